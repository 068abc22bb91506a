package balance

import "github.com/lblab/lblab/internal/clock"

// p2c is the power of d choices (Mitzenmacher 2001, "The Power of Two Choices
// in Randomized Load Balancing"; Finagle's P2C distributor): draw d different
// eligible members uniformly at random (Choices, default 2), send to the one
// of lowest cost, the first drawn on ties. With d = 2 the maximum load falls
// from Θ(log n / log log n) to Θ(log log n); d = 1 is plain random.
//
// The selection rule is separate from the load metric (Finagle's NodeT vs
// DistributorT): p2c compares Outstanding, p2c-latency-load and
// p2c-peak-ewma are the same rule with another cost (see their files).
// Draws are rng.Hash(Seed, req.Seq, Salt^c) with one constant per choice and
// redraw, so the choices are always different members (with
// Config.Replacement they are drawn independently and may repeat, as
// Envoy's least-request balancer drew them: replacement.go). With Config.Aperture
// the choices come from this balancer's window of the servers (aperture.go).
//
// Not safe for concurrent use; the driver serializes calls.
type p2c struct {
	name       string
	seed, salt uint64
	choices    int
	replace    bool // Config.Replacement: choices drawn with replacement (replacement.go)
	cost       costFunc
	win        *aperture // nil: choices from all members
}

func newP2C(c Config) Algorithm { return newP2CWith(c, "p2c", outstandingCost) }

func newP2CWith(c Config, name string, cost costFunc) *p2c {
	if c.DefaultRTT > 0 && name != "p2c" {
		cost = withDefaultRTT(cost, c.DefaultRTT) // defaultrtt.go
	}
	return &p2c{name: name, seed: c.Seed, salt: c.Salt, choices: c.Choices, replace: c.Replacement, cost: cost, win: newAperture(c)}
}

func (p *p2c) Name() string { return p.name }

func (p *p2c) Update(servers []Server) {
	if p.win != nil {
		p.win.update(servers)
	}
}

func (p *p2c) Pick(now clock.Instant, req Request, v View) int {
	var buf [MaxChoices]int
	got := choose(p.win, p.replace, v, p.seed, req.Seq, p.salt, buf[:p.choices])
	if got == 0 {
		return -1
	}
	best, bestCost := buf[0], costOf(now, v, buf[0], p.cost)
	for _, j := range buf[1:got] {
		if c := costOf(now, v, j, p.cost); c < bestCost {
			best, bestCost = j, c
		}
	}
	return best
}
