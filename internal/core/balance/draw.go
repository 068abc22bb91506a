package balance

import (
	"math"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// Salt constants. A draw uses rng.Hash(Seed, req.Seq, Salt ^ constant), so
// each kind of draw has its own stream and none shifts another.
const (
	saltStart       = 0x51a7_0000_0000_0001 // round-robin starting point
	saltTie         = 0x7165_0000_0000_0002 // random tie-break among equal costs
	saltStale       = 0x57a1_0000_0000_0003 // p2c-stale: random or best of two
	saltStaleDraw   = 0x57a1_0000_0000_0004 // p2c-stale: the uniform draw
	saltVNode       = 0x0e0d_0000_0000_0005 // ring points from server names
	saltKey         = 0x6b65_0000_0000_0006 // request keys onto the ring / table
	saltMaglevOff   = 0x3a61_0000_0000_0007 // maglev offset of a name
	saltMaglevSkip  = 0x3a61_0000_0000_0008 // maglev skip of a name
	saltSubset      = 0x5b5e_0000_0000_0009 // random subset scores
	saltRing        = 0xa9e7_0000_0000_000a // aperture ring order of a name
	saltAperture    = 0xa9e7_0000_0000_000b // aperture: points drawn in the window
	saltORCA        = 0x0dca_0000_0000_000c // wrr-orca: the scheduler's first sequence number
	saltProbeCount  = 0x94e0_0000_0000_000d // prequal: one probe more for the rate's fractional part
	saltProbeTarget = 0x94e0_0000_0000_000e // prequal: the members probed
	saltProbeReuse  = 0x94e0_0000_0000_000f // prequal: an answer's reuse budget rounded up or down
	saltProbeRandom = 0x94e0_0000_0000_0010 // prequal: the pick with no answer in the pool
	saltJIQRandom   = 0x1d1e_0000_0000_0011 // jiq: the pick with no eligible member in the idle queue
	saltJoin        = 0x1d1e_0000_0000_0012 // jiq: the balancers an idle server samples (JIQ.Sample)
)

// maxTries bounds the redraws of one random choice before it falls back to a
// scan, so a draw costs O(1) expected while most members are eligible and
// O(n) at worst.
const maxTries = 16

// drawConst is the per-draw constant of try t of choice d.
func drawConst(d, t int) uint64 {
	return uint64(d*(maxTries+1)+t+1) * 0xd6e8feb86659fd93
}

// drawDistinct fills out with different eligible members, each uniform among
// the eligible ones not drawn before it, in draw order. It returns how many it
// found: fewer than len(out) only when fewer members are eligible.
//
// Each choice draws uniformly among the members not yet chosen (skipping the
// chosen ones by index arithmetic) and redraws while the draw is ineligible,
// at most maxTries times; then it scans and takes the r-th eligible member.
// Both paths are uniform over the eligible members, so their mixture is too.
// len(out) must be at most MaxChoices.
func drawDistinct(v View, seed, seq, salt uint64, out []int) int {
	n := v.Len()
	of := rng.HashOf(seed, seq) // every draw of this request shares it
	var taken [MaxChoices]int   // the choices so far, ascending
	for d := range out {
		j := drawOne(v, n, of, salt, d, taken[:d])
		if j < 0 {
			return d
		}
		out[d] = j
		taken[d] = j
		for k := d; k > 0 && taken[k-1] > taken[k]; k-- {
			taken[k-1], taken[k] = taken[k], taken[k-1]
		}
	}
	return len(out)
}

// drawOne is choice d of drawDistinct; of is rng.HashOf(seed, seq), so a try
// draws rng.Hash(seed, seq, salt^drawConst(d, t)).
func drawOne(v View, n int, of, salt uint64, d int, taken []int) int {
	free := n - len(taken)
	if free <= 0 {
		return -1
	}
	for t := 0; t < maxTries; t++ {
		j := rng.Bounded(rng.SaltHash(of, salt^drawConst(d, t)), free)
		for _, p := range taken {
			if p <= j {
				j++
			}
		}
		if v.Ok(j) {
			return j
		}
	}
	return scanDraw(v, n, rng.SaltHash(of, salt^drawConst(d, maxTries)), taken)
}

// scanDraw returns the r-th (r drawn from u) eligible member not in taken.
func scanDraw(v View, n int, u uint64, taken []int) int {
	m := 0
	for j := 0; j < n; j++ {
		if v.Ok(j) && !contains(taken, j) {
			m++
		}
	}
	if m == 0 {
		return -1
	}
	r := rng.Bounded(u, m)
	for j := 0; j < n; j++ {
		if v.Ok(j) && !contains(taken, j) {
			if r == 0 {
				return j
			}
			r--
		}
	}
	return -1
}

func contains(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// costFunc is a load metric: lower is better.
type costFunc func(now clock.Instant, s *load.Stat) float64

// noLoad stands in for a nil Stat from a View; it is only ever read.
var noLoad load.Stat

func stat(v View, j int) *load.Stat {
	if s := v.Load(j); s != nil {
		return s
	}
	return &noLoad
}

// costOf is member j's cost divided by its ramp (slow start: a member at a
// tenth of its weight looks ten times as loaded), with NaN treated as +Inf so
// comparisons stay total. This is how slow start reaches every load-aware
// algorithm.
func costOf(now clock.Instant, v View, j int, cost costFunc) float64 {
	c := cost(now, stat(v, j))
	if r := v.Ramp(j); r > 0 && r < 1 {
		c /= r
	}
	if math.IsNaN(c) {
		return math.Inf(1)
	}
	return c
}

// rampOf is member j's ramp, 1 unless it is a number in (0, 1).
func rampOf(v View, j int) float64 {
	if r := v.Ramp(j); r > 0 && r < 1 {
		return r
	}
	return 1
}

// argminKept is how many members' costs argmin keeps on its stack between
// its two passes; a larger fleet asks the View again in the second.
const argminKept = 64

// argmin returns the eligible member of lowest cost, ties broken uniformly by
// the random bits u (two passes: count the ties, then take the r-th), or -1.
// The first pass keeps each member's cost (NaN for an ineligible one: costOf
// never returns NaN) so the second reads them back instead of asking the
// View again: the same answers, since a View's answers at one instant do not
// change, at half the calls (each a costly one in a WebAssembly build).
func argmin(now clock.Instant, v View, cost costFunc, u uint64) int {
	n := v.Len()
	var kept [argminKept]float64
	costs := kept[:0]
	if n <= argminKept {
		costs = kept[:n]
	}
	best, ties := math.Inf(1), 0
	for j := 0; j < n; j++ {
		if !v.Ok(j) {
			if len(costs) > 0 {
				costs[j] = math.NaN()
			}
			continue
		}
		c := costOf(now, v, j, cost)
		if len(costs) > 0 {
			costs[j] = c
		}
		switch {
		case ties == 0 || c < best:
			best, ties = c, 1
		case c == best:
			ties++
		}
	}
	if ties == 0 {
		return -1
	}
	r := rng.Bounded(u, ties)
	if len(costs) > 0 {
		for j, c := range costs {
			if c == best { // never an ineligible member's NaN
				if r == 0 {
					return j
				}
				r--
			}
		}
		return -1
	}
	for j := 0; j < n; j++ {
		if v.Ok(j) && costOf(now, v, j, cost) == best {
			if r == 0 {
				return j
			}
			r--
		}
	}
	return -1
}

// weightOf returns a server's weight (Weight).
func weightOf(s Server) float64 { return Weight(s.Weight) }

// Weight is w as the weighted algorithms take a server's weight: 1 when it
// is not a finite number > 0.
func Weight(w float64) float64 {
	if w > 0 && !math.IsInf(w, 1) {
		return w
	}
	return 1
}
