package policy

import (
	"fmt"
	"testing"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
)

// A tier of two balancers, one in zone a and one in zone b (one region),
// over six servers: s0-s1 in a, s2-s5 in b. The clients sit half in each
// zone, as the balancers do.
func zonedBalancer(t *testing.T, algo string, loc balance.LocalityConfig) *Balancer {
	t.Helper()
	z := NewZones(ZonePlaces{Regions: []int{0, 0}, Clients: []int{0, 1}, Balancers: []int{0, 1},
		Servers: []int{0, 0, 1, 1, 1, 1}, Tier: 2})
	var servers []balance.Server
	for i := range 6 {
		servers = append(servers, balance.Server{Name: fmt.Sprintf("s%d", i), Weight: 1})
	}
	b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: algo, Seed: 3, Salt: 1}, Seed: 3, Salt: 1,
		Locality: loc, Zones: z, Zone: 0}, servers)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pickShare picks n times and returns the share of picks in zone a.
func pickShare(b *Balancer, from uint64, n int) float64 {
	local := 0
	for k := range n {
		tk := b.Pick(clock.Instant(0), balance.Request{Seq: from + uint64(k)}, -1)
		if tk.Valid && tk.Server < 2 {
			local++
		}
		b.Done(clock.Instant(0), tk, OK, 0)
	}
	return float64(local) / float64(n)
}

// Every algorithm picks within the zones the layer chose: zone-aware
// routing keeps a third of the six servers' balancer-of-half-the-callers
// local two thirds of the time; local keeps it all; none spreads by the
// algorithm alone.
func TestLocalityLayerOverEveryAlgorithm(t *testing.T) {
	for _, algo := range balance.Names {
		if balance.CapsOf(algo).TierOnly() {
			continue // needs probes or announcements the test does not send
		}
		za := pickShare(zonedBalancer(t, algo, balance.LocalityConfig{Policy: balance.LocalityZoneAware}), 1, 3000)
		local := pickShare(zonedBalancer(t, algo, balance.LocalityConfig{Policy: balance.LocalityLocal}), 1, 3000)
		if za < 0.62 || za > 0.71 {
			t.Errorf("%s under zone-aware: %.3f of the picks local, want about 2/3", algo, za)
		}
		if local != 1 {
			t.Errorf("%s under local: %.3f of the picks local, want all", algo, local)
		}
	}
	none := pickShare(zonedBalancer(t, "round-robin", balance.LocalityConfig{}), 1, 3000)
	if none < 0.32 || none > 0.35 {
		t.Errorf("round-robin without the layer: %.3f local, want its 1/3", none)
	}
}

// A zone whose servers fail their health checks (or are ejected as
// outliers) stops counting as healthy: failover moves its load to the next
// level, and back when it returns.
func TestFailoverFollowsHealth(t *testing.T) {
	b := zonedBalancer(t, "p2c", balance.LocalityConfig{Policy: balance.LocalityFailover})
	if got := pickShare(b, 1, 1000); got != 1 {
		t.Fatalf("before: %.3f local, want all (both local servers healthy)", got)
	}
	b.SetHealthy(0, false) // half the level: 0.5 x 1.4 = 70% stays
	if got := pickShare(b, 2000, 3000); got < 0.67 || got > 0.73 {
		t.Fatalf("one local server down: %.3f local, want about 0.7", got)
	}
	b.SetHealthy(1, false)
	if got := pickShare(b, 6000, 1000); got != 0 {
		t.Fatalf("the local zone down: %.3f local, want none", got)
	}
	b.SetHealthy(0, true)
	b.SetHealthy(1, true)
	if got := pickShare(b, 8000, 1000); got != 1 {
		t.Fatalf("after: %.3f local, want all again", got)
	}
}

// A lab without zones refuses a locality policy; with none, a zoned
// balancer picks exactly as a zoneless one.
func TestLocalityNeedsZones(t *testing.T) {
	_, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "p2c"},
		Locality: balance.LocalityConfig{Policy: balance.LocalityRings}}, []balance.Server{{Name: "a"}})
	if err == nil {
		t.Fatal("rings without zones: want an error")
	}
	zoned := zonedBalancer(t, "p2c", balance.LocalityConfig{})
	flat, _ := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "p2c", Seed: 3, Salt: 1}, Seed: 3, Salt: 1}, zoned.servers)
	for k := range uint64(500) {
		a, c := zoned.Pick(0, balance.Request{Seq: k}, -1), flat.Pick(0, balance.Request{Seq: k}, -1)
		if a != c {
			t.Fatalf("pick %d: zoned %+v, flat %+v", k, a, c)
		}
	}
}
