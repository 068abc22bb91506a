package balance

import (
	"math"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

// peerPicks runs picks of peer i of n over m servers with equal, unchanging
// loads and returns the servers' counts by name index.
func peerPicks(t *testing.T, name string, aperture, i, n, m, picks int) []float64 {
	t.Helper()
	a := mustNew(t, Config{Name: name, Seed: 3, Salt: uint64(i) + 1, Aperture: aperture, Peer: i, Peers: n})
	a.Update(names(m))
	v := newView(m, load.Local)
	counts := make([]float64, m)
	for seq := uint64(0); seq < uint64(picks); seq++ {
		j := a.Pick(0, Request{Seq: seq}, v)
		if j < 0 {
			t.Fatalf("peer %d picked -1", i)
		}
		counts[j]++
	}
	return counts
}

// 100 peers, 20 servers, aperture 5: each window is 25 peer slots (0.25 of
// the ring, five servers' worth), so every server lies under the windows of
// exactly 29 peers and, with equal loads, gets exactly 1/20 of all picks; a
// peer talks to 5 or 6 servers.
func TestApertureEvenLoadAndFewConnections(t *testing.T) {
	const peers, servers, perPeer = 100, 20, 4000
	for _, name := range ApertureAlgorithms {
		total := make([]float64, servers)
		conns := make([]int, servers)
		for i := range peers {
			c := peerPicks(t, name, 5, i, peers, servers, perPeer)
			touched := 0
			for j, x := range c {
				total[j] += x / (peers * perPeer)
				if x > 0 {
					conns[j]++
					touched++
				}
			}
			if touched < 5 || touched > 6 {
				t.Fatalf("%s: peer %d talks to %d servers, want 5 or 6", name, i, touched)
			}
		}
		checkShares(t, name+" aperture, all peers", total, uniform(servers), 0.002)
		for j, c := range conns {
			if c != 29 {
				t.Errorf("%s: server %d talks to %d peers, want 29", name, j, c)
			}
		}
	}
}

// Within one peer's window a server gets the share of the window it covers:
// with 3 peers, 4 servers and aperture 1 the width is ceil(1 x 3 / 4) / 3 =
// 1/3, so peer 0 covers [0, 1/3): the first ring server fully (3/4 of the
// window) and a third of the second (1/4 of it).
func TestApertureEdgeShares(t *testing.T) {
	const m = 4
	a := mustNew(t, Config{Name: "p2c", Aperture: 1, Peer: 0, Peers: 3})
	a.Update(names(m))
	win := a.(*p2c).win
	if math.Abs(win.width-1.0/3) > 1e-12 {
		t.Fatalf("width %g, want 1/3", win.width)
	}
	got := peerPicks(t, "p2c", 1, 0, 3, m, distPicks)
	for j := range got {
		got[j] /= distPicks
	}
	want := make([]float64, m)
	want[win.order[0]], want[win.order[1]] = 0.75, 0.25 // equal loads: the first drawn wins
	checkShares(t, "p2c aperture edge", got, want, 0.01)
}

// A single peer must cover the whole ring, and an aperture at least the
// fleet is the whole ring too.
func TestApertureWidth(t *testing.T) {
	for _, c := range []struct {
		size, peers, servers int
		want                 float64
	}{{5, 1, 20, 1}, {5, 2, 20, 0.5}, {5, 100, 20, 0.25}, {3, 7, 20, 2.0 / 7}, {30, 10, 20, 1}, {1, 50, 10, 0.1}} {
		a := &aperture{size: c.size, peers: c.peers}
		a.update(names(c.servers))
		if math.Abs(a.width-c.want) > 1e-12 {
			t.Errorf("%+v: width %g, want %g", c, a.width, c.want)
		}
	}
}

// With the window's servers down, picks go to the rest of the fleet and
// never to an ineligible member.
func TestApertureFallsBackToTheFleet(t *testing.T) {
	a := mustNew(t, Config{Name: "p2c", Seed: 1, Aperture: 2, Peer: 0, Peers: 10})
	a.Update(names(10))
	v := newView(10, load.Local)
	for seq := uint64(0); seq < 2000; seq++ {
		for j := range v.down {
			v.down[j] = (seq/100+uint64(j))%4 != 0
		}
		j := a.Pick(0, Request{Seq: seq}, v)
		if j < 0 || v.down[j] {
			t.Fatalf("seq %d: picked %d, down %v", seq, j, v.down)
		}
	}
	for j := range v.down {
		v.down[j] = true
	}
	if j := a.Pick(0, Request{Seq: 1}, v); j != -1 {
		t.Fatalf("all down: picked %d", j)
	}
}

// The ring follows names, not list order: the same peer draws the same
// servers whatever order they are listed in.
func TestApertureRingFollowsNames(t *testing.T) {
	s := names(8)
	rev := []Server{s[7], s[6], s[5], s[4], s[3], s[2], s[1], s[0]}
	a := mustNew(t, Config{Name: "p2c", Seed: 1, Aperture: 2, Peer: 3, Peers: 4})
	b := mustNew(t, Config{Name: "p2c", Seed: 1, Aperture: 2, Peer: 3, Peers: 4})
	a.Update(s)
	b.Update(rev)
	va, vb := newView(8, load.Local), newView(8, load.Local)
	for seq := uint64(0); seq < 500; seq++ {
		ja, jb := a.Pick(0, Request{Seq: seq}, va), b.Pick(0, Request{Seq: seq}, vb)
		if s[ja].Name != rev[jb].Name {
			t.Fatalf("seq %d: %s in one order, %s in the other", seq, s[ja].Name, rev[jb].Name)
		}
	}
}

func TestApertureConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "round-robin", Aperture: 3}, "Aperture works with p2c"},
		{Config{Name: "p2c", Aperture: -1}, "Aperture"},
		{Config{Name: "p2c", Aperture: MaxAperture + 1}, "Aperture"},
		{Config{Name: "p2c", Aperture: 2, Peer: 3, Peers: 3}, "Peer"},
		{Config{Name: "p2c", Peer: -1}, "Peer"},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want an error with %q", c.cfg, err, c.want)
		}
	}
}

func TestAperturePickDoesNotAllocate(t *testing.T) {
	for _, name := range ApertureAlgorithms {
		a := mustNew(t, Config{Name: name, Seed: 1, Aperture: 5, Peer: 7, Peers: 40})
		a.Update(names(100))
		v := newView(100, load.Local)
		var seq uint64
		if allocs := testing.AllocsPerRun(200, func() { seq++; a.Pick(ms(5), Request{Seq: seq}, v) }); allocs != 0 {
			t.Errorf("%s: %v allocations per pick", name, allocs)
		}
	}
}

// With ApertureLoad the window follows the load: it grows a server at a time
// while the outstanding requests per server of the window are above twice
// the target, stops inside the band, and shrinks back to Aperture, never
// below, when the load goes away; picks stay inside the (grown) window.
func TestApertureLoadResizesTheWindow(t *testing.T) {
	const servers = 20
	p := mustNew(t, Config{Name: "p2c", Seed: 3, Salt: 1, Aperture: 3, ApertureLoad: 1, Peer: 0, Peers: servers})
	p.Update(names(servers))
	win := p.(*p2c).win
	v := newView(servers, load.Local)
	// Every pick leaves its request outstanding: the load per server of the
	// window keeps rising, so the window keeps growing.
	seq := uint64(0)
	pick := func() int {
		seq++
		j := p.Pick(0, Request{Seq: seq}, v)
		v.tb.Sent(0, j)
		return j
	}
	const outstanding = 30
	for range outstanding {
		pick()
	}
	// 30 outstanding at a target of 1 per server want a window of at least
	// 15 servers to be under the band's top (2 per server); it grows one
	// server per pick, so it gets there and not much further.
	if grown := win.Size(); grown < outstanding/2-1 || grown > outstanding/2+2 {
		t.Fatalf("after %d outstanding requests the window has %d servers, want about %d", outstanding, grown, outstanding/2)
	}
	// Every request answered: the window shrinks back to the smallest size.
	for j := range v.tb.Stats {
		for v.tb.Stats[j].Outstanding > 0 {
			v.tb.Done(0, j, 1)
		}
	}
	for range 2 * servers {
		j := p.Pick(0, Request{Seq: seq}, v)
		seq++
		if j < 0 {
			t.Fatal("no pick")
		}
	}
	if s := win.Size(); s != 3 {
		t.Fatalf("idle again, the window has %d servers, want the smallest, 3", s)
	}
	// A fixed aperture never moves.
	fixed := mustNew(t, Config{Name: "p2c", Seed: 3, Salt: 1, Aperture: 3, Peer: 0, Peers: servers})
	fixed.Update(names(servers))
	v2 := newView(servers, load.Local)
	for s := range uint64(200) {
		v2.tb.Sent(0, fixed.Pick(0, Request{Seq: s}, v2))
	}
	if s := fixed.(*p2c).win.Size(); s != 3 {
		t.Fatalf("a fixed aperture grew to %d", s)
	}
}
