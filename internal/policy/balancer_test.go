package policy

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/load"
)

func servers(n int) []balance.Server {
	out := make([]balance.Server, n)
	for i := range out {
		out[i] = balance.Server{Name: string(rune('a' + i)), Weight: 1}
	}
	return out
}

func newBal(t *testing.T, algo string, br *breaker.Config, n int) *Balancer {
	t.Helper()
	b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: algo, Seed: 1}, Load: load.Local,
		Decay: time.Second, Breaker: br}, servers(n))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBalancerCountsOutstanding(t *testing.T) {
	b := newBal(t, "least-outstanding", nil, 3)
	var tickets []Ticket
	for i := 0; i < 6; i++ {
		tickets = append(tickets, b.Pick(clock.Instant(i), balance.Request{Seq: uint64(i)}, -1))
	}
	for i := 0; i < 3; i++ {
		if got := b.Loads().Stats[i].Outstanding; got != 2 {
			t.Fatalf("server %d has %d outstanding, want 2 each", i, got)
		}
	}
	for _, tk := range tickets {
		b.Done(10, tk, OK, time.Millisecond)
	}
	if b.Loads().InFlight() != 0 {
		t.Fatalf("in flight %d after all done", b.Loads().InFlight())
	}
}

func TestBalancerExcludesHedgeSibling(t *testing.T) {
	b := newBal(t, "random", nil, 3)
	for i := 0; i < 200; i++ {
		tk := b.Pick(0, balance.Request{Seq: uint64(i)}, 1)
		if !tk.Valid || tk.Server == 1 {
			t.Fatalf("pick %d went to the excluded server: %+v", i, tk)
		}
		b.Done(0, tk, OK, 0)
	}
	one := newBal(t, "random", nil, 1)
	if tk := one.Pick(0, balance.Request{}, 0); !tk.Valid || tk.Server != 0 {
		t.Fatalf("with only the sibling left it should still be picked: %+v", tk)
	}
}

func TestBalancerBreakerOpensAndProbes(t *testing.T) {
	cfg := &breaker.Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1}
	b := newBal(t, "round-robin", cfg, 2)
	var log []string
	b.OnBreaker = func(now clock.Instant, s int, from, to breaker.State) {
		log = append(log, from.String()+">"+to.String())
	}
	now := clock.Instant(0)
	for i := 0; i < 40; i++ { // server 1 always fails
		tk := b.Pick(now, balance.Request{Seq: uint64(i)}, -1)
		r := OK
		if tk.Server == 1 {
			r = Error
		}
		b.Done(now, tk, r, time.Millisecond)
	}
	if b.BreakerState(now, 1) != breaker.Open || len(log) != 1 {
		t.Fatalf("breaker of the failing server: %v, log %v", b.BreakerState(now, 1), log)
	}
	for i := 0; i < 20; i++ {
		if tk := b.Pick(now, balance.Request{Seq: uint64(100 + i)}, -1); tk.Server == 1 {
			t.Fatal("picked through an open breaker")
		} else {
			b.Done(now, tk, OK, 0)
		}
	}
	later := now.Add(time.Second)
	var probe Ticket
	for i := 0; i < 4 && !probe.Probe; i++ {
		tk := b.Pick(later, balance.Request{Seq: uint64(200 + i)}, -1)
		if tk.Server == 1 {
			probe = tk
		} else {
			b.Done(later, tk, OK, 0)
		}
	}
	if !probe.Probe {
		t.Fatal("no probe through the half-open breaker")
	}
	b.Done(later, probe, OK, time.Millisecond)
	if b.BreakerState(later, 1) != breaker.Closed {
		t.Fatalf("a successful probe should close it: %v (log %v)", b.BreakerState(later, 1), log)
	}
}

func TestBalancerHealthAndRemoval(t *testing.T) {
	b := newBal(t, "round-robin", nil, 3)
	b.SetHealthy(0, false)
	b.RemoveServer(2)
	for i := 0; i < 10; i++ {
		if tk := b.Pick(0, balance.Request{Seq: uint64(i)}, -1); tk.Server != 1 {
			t.Fatalf("picked %d, only server 1 is healthy and present", tk.Server)
		}
	}
	b.SetHealthy(1, false)
	if tk := b.Pick(0, balance.Request{}, -1); tk.Valid {
		t.Fatal("picked with no eligible server")
	}
	if i := b.AddServer(balance.Server{Name: "new", Weight: 1}); i != 3 {
		t.Fatalf("new server index %d", i)
	}
	if tk := b.Pick(0, balance.Request{}, -1); tk.Server != 3 {
		t.Fatalf("picked %+v, want the new server", tk)
	}
}

func TestBalancerOwnersAndAlgorithmSwitch(t *testing.T) {
	b := newBal(t, "round-robin", nil, 5)
	if b.Owners(10) != nil {
		t.Fatal("round robin has no key owners")
	}
	if err := b.SetAlgorithm(balance.Config{Name: "ring-hash", Seed: 1}); err != nil {
		t.Fatal(err)
	}
	owners := b.Owners(1000)
	counts := map[int]int{}
	for _, o := range owners {
		counts[o]++
	}
	if len(counts) != 5 {
		t.Fatalf("ring hash owners %v", counts)
	}
	if err := b.SetAlgorithm(balance.Config{Name: "no-such"}); err == nil || b.Algorithm() != "ring-hash" {
		t.Fatal("a bad algorithm should be refused and leave the old one")
	}
}

func TestNewLimit(t *testing.T) {
	if l, err := NewLimit(LimitSpec{}); l != nil || err != nil {
		t.Fatal("an empty kind means no limiter")
	}
	for _, k := range Limiters() {
		l, err := NewLimit(LimitSpec{Kind: k, Initial: 10, Min: 1, Max: 50, MeanService: 10 * time.Millisecond})
		if err != nil || l.Limit() != 10 {
			t.Fatalf("%s: %v %v", k, l, err)
		}
	}
	if _, err := NewLimit(LimitSpec{Kind: "vegas"}); err == nil {
		t.Fatal("unknown limiter accepted")
	}
}

// A cancelled attempt (a hedge's loser withdrawn while queued) frees its
// place but is neither a success nor a failure for the breaker.
func TestBalancerCancelledIsNoVerdict(t *testing.T) {
	cfg := &breaker.Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1}
	b := newBal(t, "round-robin", cfg, 1)
	for i := 0; i < 30; i++ {
		tk := b.Pick(0, balance.Request{Seq: uint64(i)}, -1)
		b.Done(0, tk, Cancelled, time.Hour)
	}
	if b.BreakerState(0, 0) != breaker.Closed || b.Loads().InFlight() != 0 {
		t.Fatalf("after 30 cancellations: breaker %v, in flight %d", b.BreakerState(0, 0), b.Loads().InFlight())
	}
	if b.Loads().Stats[0].Latency.Set() {
		t.Fatal("a cancelled attempt's time was learnt as latency")
	}
}

// A subset follows server identity: removing a server outside a balancer's
// subset leaves its members alone; removing a member replaces only it.
func TestBalancerSubsetSurvivesRemoval(t *testing.T) {
	for seed := uint64(0); seed < 50; seed++ {
		names := make([]balance.Server, 20)
		for i := range names {
			names[i] = balance.Server{Name: fmt.Sprintf("s%d", i+1), Weight: 1}
		}
		b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "p2c"}, Subset: 5, Seed: seed, Salt: 3}, names)
		if err != nil {
			t.Fatal(err)
		}
		before := slices.Clone(b.Members())
		out := 0
		for slices.Contains(before, out) {
			out++
		}
		b.RemoveServer(out)
		if !slices.Equal(b.Members(), before) {
			t.Fatalf("seed %d: removing non-member %d changed the subset %v -> %v", seed, out, before, b.Members())
		}
		b.RemoveServer(before[0])
		after := b.Members()
		kept := 0
		for _, i := range before[1:] {
			if slices.Contains(after, i) {
				kept++
			}
		}
		if len(after) != 5 || kept != 4 {
			t.Fatalf("seed %d: removing member %d: %v -> %v", seed, before[0], before, after)
		}
	}
}
