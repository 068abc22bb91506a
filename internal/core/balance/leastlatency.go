package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// leastLatency picks the eligible member with the lowest time-decayed EWMA
// response time (load.Stat.Latency, tau ~1 s: a sample dt after the last one
// weighs 1 - exp(-dt/tau)). Members without a sample count as 0, so each new
// member gets tried; ties are broken uniformly at random from
// rng.Hash(Seed, req.Seq, Salt^c). Alone it herds: every request goes to the
// current fastest until its average rises, which the lab demonstrates.
//
// Not safe for concurrent use; the driver serializes calls.
type leastLatency struct{ seed, salt uint64 }

func newLeastLatency(c Config) Algorithm { return &leastLatency{seed: c.Seed, salt: c.Salt} }

func (l *leastLatency) Name() string { return "least-latency" }

func (l *leastLatency) Update([]Server) {}

func (l *leastLatency) Pick(now clock.Instant, req Request, v View) int {
	return argmin(now, v, latencyCost, rng.Hash(l.seed, req.Seq, l.salt^saltTie))
}

// latencyCost is the EWMA latency in ns (0 without a sample).
func latencyCost(_ clock.Instant, s *load.Stat) float64 { return s.Latency.Value() }
