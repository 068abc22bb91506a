package balance

import (
	"math"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// p2cStale is power of two choices on possibly stale load reports, as a
// client that balances for itself must do (docs/model.md §3, after a published
// simulation of client-side balancing with stale counts). A member's load is
// its reported queue length Queued, ties broken by InService; Queued also
// counts the requests sent since the report (the optimistic local increment
// done by load.Table.Sent). A warming member (slow start, ramp r < 1) weighs
// (Queued + 1) / r.
//
// A pick draws Choices (default 2) different eligible members. Their
// staleness s is the largest now - Reported among them (infinite if one has
// no report). With probability
//
//	p = min(1, sqrt(s in ms) / 100)
//
// it picks uniformly among all eligible members, else the least loaded
// candidate (the first drawn on ties): fresh counts (s = 0) always take the
// better of two, 100 ms picks at random 10% of the time, 10 s or more always.
// Decisions and draws come from rng.Hash(Seed, req.Seq, Salt^c), one
// constant per use. With Config.Aperture both the choices and the uniform
// pick come from this client's window of the servers (aperture.go).
//
// Not safe for concurrent use; the driver serializes calls.
type p2cStale struct {
	seed, salt uint64
	choices    int
	replace    bool      // Config.Replacement
	win        *aperture // nil: choices from all members
}

func newP2CStale(c Config) Algorithm {
	return &p2cStale{seed: c.Seed, salt: c.Salt, choices: c.Choices, replace: c.Replacement, win: newAperture(c)}
}

func (p *p2cStale) Name() string { return "p2c-stale" }

func (p *p2cStale) Update(servers []Server) {
	if p.win != nil {
		p.win.update(servers)
	}
}

func (p *p2cStale) Pick(now clock.Instant, req Request, v View) int {
	var buf [MaxChoices]int
	got := choose(p.win, p.replace, v, p.seed, req.Seq, p.salt, buf[:p.choices])
	if got <= 1 {
		if got == 0 {
			return -1
		}
		return buf[0]
	}
	cand := buf[:got]
	if rng.HashFloat(p.seed, req.Seq, p.salt^saltStale) < randomShare(now, v, cand) {
		var out [1]int
		choose(p.win, p.replace, v, p.seed, req.Seq, p.salt^saltStaleDraw, out[:])
		return out[0]
	}
	best := cand[0]
	for _, j := range cand[1:] {
		if lessLoaded(v, j, best) {
			best = j
		}
	}
	return best
}

// randomShare is min(1, sqrt(staleness ms)/100) for the candidates'
// largest staleness; 1 when any candidate has no report.
func randomShare(now clock.Instant, v View, cand []int) float64 {
	var worst clock.Instant
	for _, j := range cand {
		s := stat(v, j)
		if !s.Last.Valid {
			return 1
		}
		worst = max(worst, clock.Instant(max(now.Sub(s.Last.At), 0)))
	}
	ms := float64(worst) / 1e6
	return min(1, math.Sqrt(ms)/100)
}

// lessLoaded reports whether member a is less loaded than b: lower
// (Queued + 1) / ramp (just Queued while neither warms up), then fewer
// InService.
func lessLoaded(v View, a, b int) bool {
	sa, sb := stat(v, a), stat(v, b)
	qa, qb := float64(sa.Queued+1)/rampOf(v, a), float64(sb.Queued+1)/rampOf(v, b)
	if qa != qb {
		return qa < qb
	}
	return sa.Last.InService < sb.Last.InService
}
