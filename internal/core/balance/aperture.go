package balance

import (
	"cmp"
	"math"
	"slices"

	"github.com/lblab/lblab/internal/rng"
)

// aperture is Finagle's deterministic aperture (finagle-core's
// DeterministicAperture; "Deterministic Aperture: A distributed, load
// balancing algorithm", Twitter engineering blog, 2019): many balancers
// (peers) each talk to a small contiguous window of a ring of servers, so
// each keeps few connections, and the windows are placed so that every
// server carries the same load.
//
// The servers sit on the unit ring in an order fixed by their names (a hash,
// so it does not depend on the list order), server k of M on [k/M, (k+1)/M).
// Peer i of N starts its window at i/N; the window is
//
//	width = min(1, ceil(Aperture × N / M) / N)
//
// that is the wanted Aperture servers' worth (Aperture/M) rounded up to a
// whole number of peer slots 1/N. Since every point of the ring then lies in
// exactly width × N windows, peers sending at the same rate give every
// server the same load, even when the window cuts a server in part: a point
// drawn uniformly in the window lands on a server with probability its
// overlap with the window over the width. A peer talks to about
// width × M + 1 servers (the partial ones at the edges), each server to about
// width × N + 1 peers.
//
// With ApertureLoad set the window is sized to a target load, as Finagle's
// aperture keeps its "load band": before each pick the balancer looks at
// its own outstanding requests per server of the window, and grows the
// window by one server when that is above 2 × ApertureLoad, shrinks it by
// one when below ApertureLoad / 2, never below Aperture nor above the fleet.
// The band's factor of four between its edges keeps the size from flapping.
//
// The p2c family draws its choices as points in the window (each redrawn up
// to maxTries times while it lands on an ineligible member or one already
// chosen) and keeps its own cost rule. When no eligible member turns up in
// the window the first choice is drawn from the whole fleet instead (Finagle
// widens its aperture when the window is unhealthy); a later choice that
// does not turn up is left out.
//
// Not safe for concurrent use; the driver serializes calls.
type aperture struct {
	size        int     // wanted servers per window
	least       int     // the smallest size (Config.Aperture)
	load        float64 // target outstanding requests per server of the window; 0 = fixed size
	peer, peers int
	order       []int   // member indices in ring order
	lo, width   float64 // the window [lo, lo+width) on the unit ring
}

// newAperture returns the window of c, or nil when c.Aperture is 0.
func newAperture(c Config) *aperture {
	if c.Aperture <= 0 {
		return nil
	}
	return &aperture{size: c.Aperture, least: c.Aperture, load: c.ApertureLoad, peer: c.Peer, peers: max(c.Peers, 1)}
}

// SupportsAperture reports whether the named algorithm draws its choices
// from an aperture when Config.Aperture is set (Caps.Aperture).
func SupportsAperture(name string) bool { return CapsOf(name).Aperture }

// ApertureAlgorithms are the algorithms Config.Aperture works with: the
// random-choice ones (Caps.Aperture).
var ApertureAlgorithms = With(func(c Caps) bool { return c.Aperture })

// update places the servers on the ring and sizes the window.
func (a *aperture) update(servers []Server) {
	m := len(servers)
	a.order = make([]int, m)
	pos := make([]uint64, m)
	for j, s := range servers {
		a.order[j] = j
		pos[j] = rng.Hash(rng.StringHash(s.Name), 0, saltRing)
	}
	slices.SortFunc(a.order, func(x, y int) int {
		return cmp.Or(cmp.Compare(pos[x], pos[y]), cmp.Compare(servers[x].Name, servers[y].Name), cmp.Compare(x, y))
	})
	a.lo = float64(a.peer) / float64(a.peers)
	a.resize()
}

// resize sets the window's width for a.size servers of the ring.
func (a *aperture) resize() {
	m, n := len(a.order), float64(a.peers)
	a.width = 1
	if m > 0 {
		a.width = math.Min(1, math.Ceil(float64(min(a.size, m))*n/float64(m))/n)
	}
}

// adapt moves the window's size one server towards the load band (see
// above): by the outstanding requests per server it covers now.
func (a *aperture) adapt(v View) {
	m := len(a.order)
	if a.load <= 0 || m == 0 {
		return
	}
	first := int(math.Floor(a.lo * float64(m)))
	covered := min(int(math.Ceil((a.lo+a.width)*float64(m)))-first, m)
	out := 0
	for k := range covered {
		out += v.Load(a.order[(first+k)%m]).Outstanding
	}
	per := float64(out) / float64(covered)
	switch {
	case per > 2*a.load && a.size < m:
		a.size++
	case per < a.load/2 && a.size > a.least:
		a.size--
	default:
		return
	}
	a.resize()
}

// Size is the window's size now, in servers (for tests and reports).
func (a *aperture) Size() int { return a.size }

// at returns the member index under the point u in [0, 1) of the window.
func (a *aperture) at(u float64) int {
	p := a.lo + u*a.width
	p -= math.Floor(p)
	k := min(int(p*float64(len(a.order))), len(a.order)-1)
	return a.order[k]
}

// draw fills out with different eligible members drawn from the window (see
// above) and returns how many it found.
func (a *aperture) draw(v View, seed, seq, salt uint64, out []int) int {
	n := v.Len()
	if len(a.order) == 0 || len(a.order) != n {
		return drawDistinct(v, seed, seq, salt, out) // no ring for this view (a pick before Update)
	}
	a.adapt(v)
	for d := range out {
		j := -1
		for t := 0; t < maxTries && j < 0; t++ {
			c := a.at(rng.HashFloat(seed, seq, salt^saltAperture^drawConst(d, t)))
			if v.Ok(c) && !contains(out[:d], c) {
				j = c
			}
		}
		if j < 0 {
			if d > 0 {
				return d
			}
			return drawDistinct(v, seed, seq, salt^saltAperture, out[:1])
		}
		out[d] = j
	}
	return len(out)
}

// choose fills out with random choices: from the window when there is one,
// else uniformly among all eligible members (drawDistinct).
func choose(win *aperture, replace bool, v View, seed, seq, salt uint64, out []int) int {
	switch {
	case win != nil:
		return win.draw(v, seed, seq, salt, out)
	case replace:
		return drawWithReplacement(v, seed, seq, salt, out)
	}
	return drawDistinct(v, seed, seq, salt, out)
}
