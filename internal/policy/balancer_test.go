package policy

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/slowstart"
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
	cfg := b.cfg
	cfg.Algorithm = balance.Config{Name: "ring-hash", Seed: 1}
	if err := b.Reconfigure(cfg); err != nil {
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
	cfg.Algorithm.Name = "no-such"
	if err := b.Reconfigure(cfg); err == nil || b.Algorithm() != "ring-hash" {
		t.Fatal("a bad algorithm should be refused and leave the old one")
	}
}

// Reconfigure changes only what differs: an unrelated change keeps the
// breakers' states and the load figures; a bad setting changes nothing; a
// new decay keeps the outstanding counts, so the answer of a pick made
// before it is counted off; a new load mode is refused.
func TestBalancerReconfigureKeepsWhatDidNotChange(t *testing.T) {
	br := &breaker.Config{Window: 10, Threshold: 0.5, Open: time.Hour, Probes: 1}
	b := newBal(t, "round-robin", br, 2)
	for i := range 10 { // open server 0's breaker
		tk := b.Pick(0, balance.Request{Seq: uint64(i)}, 1)
		b.Done(0, tk, Error, time.Millisecond)
	}
	held := b.Pick(0, balance.Request{Seq: 99}, -1)
	if b.BreakerState(0, 0) != breaker.Open || !held.Valid || held.Server != 1 || b.Loads().InFlight() != 1 {
		t.Fatalf("setup: breaker %v, ticket %+v, in flight %d", b.BreakerState(0, 0), held, b.Loads().InFlight())
	}
	cfg := b.cfg
	cfg.Timeout = time.Second
	if err := b.Reconfigure(cfg); err != nil {
		t.Fatal(err)
	}
	if b.BreakerState(0, 0) != breaker.Open || b.Loads().InFlight() != 1 || b.Timeout() != time.Second {
		t.Fatalf("a timeout change reset the breaker (%v) or the load figures (%d in flight)", b.BreakerState(0, 0), b.Loads().InFlight())
	}
	bad := cfg
	bad.Breaker = &breaker.Config{Window: 1}
	if err := b.Reconfigure(bad); err == nil || b.BreakerState(0, 0) != breaker.Open {
		t.Fatal("an invalid breaker was accepted, or changed the breakers")
	}
	shared := cfg
	shared.Load = load.Shared
	if err := b.Reconfigure(shared); err == nil || b.Loads().Mode != load.Local {
		t.Fatalf("a new load mode was taken (%v): the counts in flight would come from nowhere", err)
	}
	cfg.Decay = 10 * time.Second
	if err := b.Reconfigure(cfg); err != nil {
		t.Fatal(err)
	}
	if b.Loads().InFlight() != 1 || b.Loads().Decay() != 10*time.Second || b.BreakerState(0, 0) != breaker.Open {
		t.Fatalf("a new decay: %d in flight (want the held pick), decay %v, breaker %v", b.Loads().InFlight(), b.Loads().Decay(), b.BreakerState(0, 0))
	}
	b.Done(0, held, OK, time.Millisecond) // picked before the new decay
	if b.Loads().InFlight() != 0 || !b.Loads().Stats[1].Latency.Set() {
		t.Fatalf("the answer of a pick made before the new decay was not counted: %d in flight", b.Loads().InFlight())
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

// A half-open probe that is cancelled (a hedge's loser) gives its place
// back: a later pick probes the server again and a successful probe closes
// the breaker. Before the fix the breaker stayed half-open with no probe out
// and the server never got traffic again.
func TestBalancerCancelledProbeFreesHalfOpen(t *testing.T) {
	cfg := &breaker.Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1}
	b := newBal(t, "round-robin", cfg, 2)
	for i := 0; i < 40; i++ { // server 1 always fails: its breaker opens
		tk := b.Pick(0, balance.Request{Seq: uint64(i)}, -1)
		r := OK
		if tk.Server == 1 {
			r = Error
		}
		b.Done(0, tk, r, time.Millisecond)
	}
	later := clock.Instant(2 * time.Second)
	probeOf := func(from int) Ticket {
		for i := from; i < from+10; i++ {
			tk := b.Pick(later, balance.Request{Seq: uint64(i)}, -1)
			if tk.Server == 1 {
				return tk
			}
			b.Done(later, tk, OK, 0)
		}
		return Ticket{}
	}
	probe := probeOf(100)
	if !probe.Probe {
		t.Fatal("no probe through the half-open breaker")
	}
	b.Done(later, probe, Cancelled, time.Millisecond)
	again := probeOf(200)
	if !again.Valid || !again.Probe {
		t.Fatalf("after the probe was cancelled no pick probed server 1 again (breaker %v)", b.BreakerState(later, 1))
	}
	b.Done(later, again, OK, time.Millisecond)
	if s := b.BreakerState(later, 1); s != breaker.Closed {
		t.Fatalf("a successful second probe should close the breaker, it is %v", s)
	}
}

func outlierCfg() *outlier.Config {
	return &outlier.Config{ConsecutiveFailures: 3, Interval: time.Second, BaseEjection: 2 * time.Second,
		MaxEjection: 10 * time.Second, MaxShare: 0.5, MinRequests: 5}
}

// Three failures in a row eject a server: it gets no picks until its two
// seconds are over, then it is back (the event log hears both).
func TestBalancerEjectsOutlier(t *testing.T) {
	b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "round-robin", Seed: 1}, Outlier: outlierCfg()}, servers(4))
	if err != nil {
		t.Fatal(err)
	}
	var log []string
	b.OnOutlier = func(now clock.Instant, s int, c outlier.Change) {
		log = append(log, now.String()+" "+c.Describe(b.servers[s].Name))
	}
	now := clock.Instant(0)
	for i := 0; i < 12; i++ {
		now += clock.Instant(time.Millisecond)
		tk := b.Pick(now, balance.Request{Seq: uint64(i)}, -1)
		r := OK
		if tk.Server == 2 {
			r = Error
		}
		b.Done(now, tk, r, time.Millisecond)
	}
	if !b.Ejected(2) || len(log) != 1 {
		t.Fatalf("after 3 failures in a row: ejected %v, log %v", b.Ejected(2), log)
	}
	if e, a := b.Ejections(); e != 1 || a != 2 {
		t.Fatalf("ejections %d of %d allowed, want 1 of 2", e, a)
	}
	ejectedAt := now
	for i := 0; i < 250; i++ {
		now += clock.Instant(10 * time.Millisecond)
		if tk := b.Pick(now, balance.Request{Seq: uint64(100 + i)}, -1); tk.Server == 2 && now < ejectedAt.Add(2*time.Second) {
			t.Fatalf("picked the ejected server at %v", now)
		} else {
			b.Done(now, tk, OK, time.Millisecond)
		}
	}
	back := ejectedAt.Add(2 * time.Second)
	if b.Ejected(2) || len(log) != 2 || log[1] != back.String()+" outlier c: back in rotation" {
		t.Fatalf("after 2 s: ejected %v, log %q (ejected at %v)", b.Ejected(2), log, ejectedAt)
	}
}

// A server that comes back warms up: with slow start (10 s, floor 0.1,
// linear) and weighted round robin it gets its share of a smaller weight,
// a tenth of a full share at first and half a share after 5 s.
func TestBalancerSlowStartRamps(t *testing.T) {
	ss := &slowstart.Config{Window: 10 * time.Second, Floor: 0.1, Aggression: 1}
	b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "weighted-round-robin"}, SlowStart: ss}, servers(4))
	if err != nil {
		t.Fatal(err)
	}
	shareOf := func(now clock.Instant, i int) float64 {
		n := 0
		for k := 0; k < 3100; k++ {
			tk := b.Pick(now, balance.Request{Seq: uint64(k)}, -1)
			if tk.Server == i {
				n++
			}
			b.Done(now, tk, OK, time.Millisecond)
		}
		return float64(n) / 3100
	}
	if s := shareOf(0, 3); math.Abs(s-0.25) > 0.001 {
		t.Fatalf("servers present from the start are warm: share %.3f", s)
	}
	b.SetHealthy(3, false)
	b.SetHealthy(3, true) // back at the next pick, at 1 s
	start := clock.Instant(time.Second)
	if s := shareOf(start, 3); math.Abs(s-0.1/3.1) > 0.001 {
		t.Fatalf("just back: share %.4f, want 0.1/3.1", s)
	}
	if s := shareOf(start.Add(5*time.Second), 3); math.Abs(s-0.5/3.5) > 0.001 {
		t.Fatalf("after 5 s: share %.4f, want 0.5/3.5", s)
	}
	if s := shareOf(start.Add(10*time.Second), 3); math.Abs(s-0.25) > 0.001 {
		t.Fatalf("after the window: share %.4f, want 0.25", s)
	}
	i := b.AddServer(balance.Server{Name: "new", Weight: 1})
	if s := shareOf(start.Add(20*time.Second), i); math.Abs(s-0.1/4.1) > 0.001 {
		t.Fatalf("a new server: share %.4f, want 0.1/4.1", s)
	}
}

// Breakers closing and ejections ending start ramps too.
func TestBalancerRampAfterBreakerAndEjection(t *testing.T) {
	ss := &slowstart.Config{Window: 10 * time.Second, Floor: 0.5, Aggression: 1}
	br := &breaker.Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1}
	b, err := NewBalancer(BalancerConfig{Algorithm: balance.Config{Name: "least-outstanding", Seed: 1},
		Breaker: br, Outlier: outlierCfg(), SlowStart: ss}, servers(3))
	if err != nil {
		t.Fatal(err)
	}
	b.view.now = 0
	if r := b.view.Ramp(0); r != 1 {
		t.Fatalf("ramp %g before anything happened", r)
	}
	for _, tr := range []struct{ from, to breaker.State }{{breaker.Closed, breaker.Open}, {breaker.HalfOpen, breaker.Closed}} {
		b.breakers[0].OnChange(clock.Instant(time.Second), tr.from, tr.to)
	}
	b.ejector.OnChange(clock.Instant(time.Second), 1, outlier.Change{})
	b.view.now = clock.Instant(6 * time.Second)
	for j, want := range []float64{0.5, 0.5, 1} {
		if r := b.view.Ramp(j); math.Abs(r-want) > 1e-9 {
			t.Errorf("member %d ramp %g, want %g", j, r, want)
		}
	}
}
