package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// leastOutstanding picks the eligible member with the fewest Outstanding
// requests (the balancer's own count in local mode, the last report in shared
// mode; Envoy's and nginx's "least request"/"least_conn"), with slow start's
// ramp r as Envoy's weighted least request: the lowest (Outstanding + 1) / r.
// Ties are broken
// uniformly at random from rng.Hash(Seed, req.Seq, Salt^c), or, with
// RotatingStart, by scanning from a start that moves to one past the last
// pick, so equal members take turns. With stale shared counts every balancer
// sees the same minimum and they herd onto it; the lab shows that.
//
// Not safe for concurrent use; the driver serializes calls.
type leastOutstanding struct {
	seed, salt uint64
	rotating   bool
	next       int
}

func newLeastOutstanding(c Config) Algorithm {
	return &leastOutstanding{seed: c.Seed, salt: c.Salt, rotating: c.RotatingStart}
}

func (l *leastOutstanding) Name() string { return "least-outstanding" }

func (l *leastOutstanding) Update([]Server) { l.next = 0 }

func (l *leastOutstanding) Pick(now clock.Instant, req Request, v View) int {
	if !l.rotating {
		return argmin(now, v, outstandingCost, rng.Hash(l.seed, req.Seq, l.salt^saltTie))
	}
	n := v.Len()
	if n == 0 {
		return -1
	}
	best, bestLoad := -1, 0.0
	start := l.next % n
	for i := 0; i < n; i++ {
		j := (start + i) % n
		if !v.Ok(j) {
			continue
		}
		if c := costOf(now, v, j, outstandingCost); best < 0 || c < bestLoad {
			best, bestLoad = j, c
		}
	}
	if best >= 0 {
		l.next = best + 1
	}
	return best
}

// outstandingCost is the member's Outstanding count plus one: the same order
// as Outstanding, and a member at a ramp below 1 (slow start) costs more
// even when idle.
func outstandingCost(_ clock.Instant, s *load.Stat) float64 { return float64(s.Outstanding) + 1 }
