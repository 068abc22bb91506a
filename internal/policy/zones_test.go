package policy

import (
	"testing"
	"time"
)

// Three zones, a and b in one region and c in another: each pair of zones
// takes its link's hop and jitter, with the same draw as the lab's own hop
// (a zoneless lab's draws do not move), and a lab without zones is the
// Network as it was.
func TestZonePairsTakeTheirLinks(t *testing.T) {
	z := NewZones(ZonePlaces{Regions: []int{0, 0, 1}, Servers: []int{0, 1, 2}, Tier: 1,
		Cross: Link{Hop: 20 * time.Millisecond, Jitter: 4 * time.Millisecond},
		Far:   Link{Hop: 80 * time.Millisecond, Jitter: 8 * time.Millisecond}})
	n := Network{Hop: 5 * time.Millisecond, Jitter: 2 * time.Millisecond, Seed: 7, Zones: z}
	flat := Network{Hop: 5 * time.Millisecond, Jitter: 2 * time.Millisecond, Seed: 7}
	for pick := uint64(16); pick < 400; pick += 7 {
		same := n.Between(1, 1).Delay(pick, BalancerOut)
		if want := flat.Delay(pick, BalancerOut); same != want {
			t.Fatalf("pick %d within a zone: %v, the zoneless hop is %v", pick, same, want)
		}
		share := float64(same-flat.Hop) / float64(flat.Jitter) // the draw, in [0, 1)
		for _, c := range []struct {
			a, b int32
			l    Link
		}{{0, 1, z.Cross}, {1, 0, z.Cross}, {0, 2, z.Far}, {2, 1, z.Far}} {
			got := n.Between(c.a, c.b).Delay(pick, BalancerOut)
			want := c.l.Hop + time.Duration(share*float64(c.l.Jitter))
			if d := got - want; d < -time.Microsecond || d > time.Microsecond {
				t.Errorf("pick %d, zones %d -> %d: %v, want %v (the link's hop and the same draw)", pick, c.a, c.b, got, want)
			}
		}
	}
	if got := flat.Between(0, 2); got != flat {
		t.Errorf("a network without zones gave %+v between two zones", got)
	}
}

// Clients go to a balancer of their own zone, spread evenly over its
// balancers; a zone without a balancer sends to the tier as before (c mod
// tier).
func TestRouteKeepsClientsInTheirZone(t *testing.T) {
	// client ids in zones a, a, b, c (c has no balancer); balancers a, b, a, b, a
	z := NewZones(ZonePlaces{Regions: []int{0, 0, 0}, Clients: []int{0, 0, 1, 2}, Balancers: []int{0, 1}, Tier: 5})
	per := map[int32]int{}
	for c := int32(0); c < 400; c++ {
		b := z.Route(c, 5)
		if zc := z.Client(c); zc != 2 && z.Balancer(b) != zc {
			t.Fatalf("client %d (zone %d) sent to balancer %d of zone %d", c, zc, b, z.Balancer(b))
		}
		if z.Client(c) == 2 && b != c%5 {
			t.Fatalf("client %d of a zone without balancers sent to %d, want %d", c, b, c%5)
		}
		if z.Client(c) == 0 {
			per[b]++
		}
	}
	// zone a's 200 clients over its balancers 0, 2, 4
	for _, b := range []int32{0, 2, 4} {
		if n := per[b]; n < 66 || n > 67 {
			t.Errorf("balancer %d has %d of zone a's 200 clients, want 66 or 67 (%v)", b, n, per)
		}
	}
}

// A server the lab does not name (added by a script) is in the last
// server's zone, in the simulator's numbering and by name alike.
func TestAddedServerIsInTheLastZone(t *testing.T) {
	z := NewZones(ZonePlaces{Regions: []int{0, 0}, Servers: []int{0, 1}, ServerNames: []string{"s1", "s2"}, Tier: 1})
	if got := z.Server(5); got != 1 {
		t.Errorf("server 5 of 2 is in zone %d, want 1", got)
	}
	if got, ok := z.ServerNamed("s9"); !ok || got != 1 {
		t.Errorf("server s9 is in zone %d (%v), want 1", got, ok)
	}
	if got, ok := z.ServerNamed("s1"); !ok || got != 0 {
		t.Errorf("server s1 is in zone %d (%v), want 0", got, ok)
	}
	if _, ok := z.ServerNamed(""); ok {
		t.Error(`"" names a server`)
	}
}
