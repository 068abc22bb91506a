package assemble_test

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/torture"
	"github.com/lblab/lblab/scenarios"
)

func parse(t *testing.T, src string) *labfile.Lab {
	t.Helper()
	lab, err := labyaml.Parse("big.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// bigLabs are the labs that took the machine, each inside every bound of
// its own: 8.2 GB in 7 s, over 60 s and 1.6 GB, 4.3 GB.
var bigLabs = map[string]struct {
	src     string
	product string // what the refusal must name
}{
	"caches": {"name: caches\nduration: 10ms\nclients: {keys: 1000000}\nservers: [{count: 10000, cache: {size: 1000000}}]\n",
		"servers[0]: 10000 servers x 1000000 cache entries"},
	"ring": {"name: ring\nduration: 10ms\nbalancers: {algorithm: ring-hash, vnodes: 10000}\nservers: [{count: 10000}]\n",
		"1 balancers (balancers.count) x 10000 servers x 10000 balancers.vnodes = 1e+08 ring points"},
	"maglev": {"name: maglev\nduration: 10ms\nclients: {count: 1000000, algorithm: maglev}\n",
		"1000000 balancers (clients.count: client-side, one per client) x a maglev table of 65537 slots"},
}

// TestBigLabsRefused: each big lab is refused by the estimate, in the
// simulator and live, naming its product and the flag that raises the
// budget.
func TestBigLabsRefused(t *testing.T) {
	for name, c := range bigLabs {
		lab := parse(t, c.src)
		for _, sim := range []bool{true, false} {
			err := assemble.CheckCost(lab, nil, sim, assemble.DefaultBudget)
			if err == nil || !strings.Contains(err.Error(), c.product) || !strings.Contains(err.Error(), "--max-cost N") {
				t.Errorf("%s (sim %v): got %v, want a refusal naming %q and --max-cost", name, sim, err, c.product)
			}
		}
	}
}

// TestRaisingTheBudget: a lab a few times over the default budget runs with
// --max-cost raised enough, not with less.
func TestRaisingTheBudget(t *testing.T) {
	lab := parse(t, "name: mid\nduration: 1s\nclients: {keys: 100000}\nservers: [{count: 1000, cache: {size: 100000}}]\n") // 1e8 entries x 32 B: 3 GiB
	if err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget); err == nil || !strings.Contains(err.Error(), "memory") {
		t.Fatalf("default budget: %v", err)
	}
	if err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget.Scaled(2)); err == nil {
		t.Fatal("twice the budget let a 3 GiB lab through")
	}
	if err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget.Scaled(4)); err != nil {
		t.Fatalf("four times the budget: %v", err)
	}
}

// TestEventsCountOnlyInTheSimulator: a long, fast lab is too much work to
// simulate, but live the processes pace themselves.
func TestEventsCountOnlyInTheSimulator(t *testing.T) {
	lab := parse(t, "name: long\nduration: 24h\nclients: {rate: 100000}\n")
	err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget)
	if err == nil || !strings.Contains(err.Error(), "clients.rate 100000/s x duration 24h0m0s x 1 attempts x 7 events") {
		t.Fatalf("sim: %v", err)
	}
	if err := assemble.CheckCost(lab, nil, false, assemble.DefaultBudget); err != nil {
		t.Fatalf("live: %v", err)
	}
}

// TestDefaultBudgetFitsTheBuiltIns: every scenario and the torture
// generator's labs run under the default budget, in the simulator and live.
func TestDefaultBudgetFitsTheBuiltIns(t *testing.T) {
	for _, name := range scenarios.Names() {
		lab, err := scenarios.Lab(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, sim := range []bool{true, false} {
			if err := assemble.CheckCost(lab, lab.Compare, sim, assemble.DefaultBudget); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	for seed := uint64(1); seed <= 2000; seed++ {
		d := torture.Draw(seed)
		lab, err := labyaml.Parse("torture.yaml", d.Tree.YAML())
		if err != nil {
			continue // the generator's invalid labs are refused before any estimate
		}
		if err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget); err != nil {
			t.Errorf("torture seed %d: %v", seed, err)
		}
	}
}

// TestCompareSettingsCountEach: every setting a run compares is estimated
// as its own run, and a refusal names the setting.
func TestCompareSettingsCountEach(t *testing.T) {
	lab := parse(t, "name: cmp\nduration: 10ms\nservers: [{count: 10000}]\ncompare:\n  - {name: p2c, algorithm: p2c}\n  - name: big-ring\n    algorithm: ring-hash\n    set: {balancers.vnodes: \"10000\"}\n")
	if err := assemble.CheckCost(lab, lab.Compare[:1], true, assemble.DefaultBudget); err != nil {
		t.Fatalf("p2c alone: %v", err)
	}
	err := assemble.CheckCost(lab, lab.Compare, true, assemble.DefaultBudget)
	if err == nil || !strings.Contains(err.Error(), "setting big-ring: 1 balancers (balancers.count) x 10000 servers x 10000 balancers.vnodes") {
		t.Fatalf("with big-ring: %v", err)
	}
}

// TestLargeFactorsSaturate: --max-cost 8e7 passed what a time.Duration
// holds and every lab was refused "over the budget of -2562047h47m16s";
// any finite factor over 0 now gives a budget at least as large as a
// smaller factor's (the CPU saturating about 292 years in), and NaN and
// inf are refused with a message.
func TestLargeFactorsSaturate(t *testing.T) {
	lab := parse(t, "name: small\nduration: 1s\n")
	prev := assemble.DefaultBudget
	for _, f := range []float64{1, 7.6e7, 8e7, 1e9, 1e12, 1e300, math.MaxFloat64} {
		b, err := assemble.Times(f)
		if err != nil {
			t.Fatalf("Times(%g): %v", f, err)
		}
		if b.CPU < prev.CPU || b.Memory < prev.Memory || b.CPU <= 0 || math.IsInf(b.Memory, 0) {
			t.Errorf("Times(%g) = %v of CPU and %g B, after %v and %g B for a smaller factor", f, b.CPU, b.Memory, prev.CPU, prev.Memory)
		}
		if err := assemble.CheckCost(lab, nil, true, b); err != nil {
			t.Errorf("a small lab under Times(%g): %v", f, err)
		}
		prev = b
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1} {
		if _, err := assemble.Times(f); err == nil || !strings.Contains(err.Error(), "must be a finite number over 0") {
			t.Errorf("Times(%g): %v, want it refused", f, err)
		}
	}
}

// TestEstimateSaturates: a year of 100,000 closed-loop users with no think
// time and 1 us of work (a cycle of 1 ms, the estimate's shortest), each
// request tried 11 times, is about 2.4e17 simulated events,
// more nanoseconds of CPU than an int64 holds: the estimate came out
// negative, the term was dropped, and the lab was let through with an
// estimate of 0 s.
func TestEstimateSaturates(t *testing.T) {
	lab := parse(t, "name: year\nduration: 8760h\nnetwork: {hop: 0s}\nclients: {mode: closed, users: 100000, think: 0s, retries: 10, work: {mean: 1us}}\n")
	if c := assemble.Estimate(lab, nil, true); c.CPU < 24*365*time.Hour {
		t.Errorf("the estimate of a year of 100,000 users is %v of CPU", c.CPU)
	}
	if err := assemble.CheckCost(lab, nil, true, assemble.DefaultBudget); err == nil || !strings.Contains(err.Error(), "clients.users 100000") {
		t.Errorf("a year of 100,000 users under the default budget: %v, want it refused", err)
	}
}

// What a pick costs counts (issue: least-response-time over 10,000 servers
// was estimated at 210 ms and took 105 s): a scanning algorithm's visits,
// by the algorithm's declaration (balance.Caps.Scans), a subset's size when
// it has one; the highest load the lab reaches counts, a profile's peak or
// a script's rate.
func TestEstimateCountsWhatAPickAndThePeakCost(t *testing.T) {
	scan := parse(t, "name: scan\nduration: 30s\nclients: {rate: 10000}\nbalancers: {algorithm: least-response-time}\nservers:\n  - {count: 10000}\n")
	c := assemble.Estimate(scan, nil, true)
	if c.CPU < time.Minute || !strings.Contains(c.Terms[len(c.Terms)-1].What, "which visits 10000 servers a pick") {
		t.Errorf("scan30: %v, %+v", c.CPU, c.Terms)
	}
	if err := assemble.CheckCost(parse(t, "name: scan\nduration: 100s\nclients: {rate: 100000}\nbalancers: {algorithm: least-response-time}\nservers:\n  - {count: 10000}\n"),
		nil, true, assemble.DefaultBudget); err == nil || !strings.Contains(err.Error(), "which visits 10000 servers") {
		t.Errorf("a hundred times scan30: %v", err)
	}
	p2c := parse(t, "name: scan\nduration: 30s\nclients: {rate: 10000}\nbalancers: {algorithm: p2c}\nservers:\n  - {count: 10000}\n")
	if c := assemble.Estimate(p2c, nil, true); c.CPU > time.Second {
		t.Errorf("p2c draws two servers a pick: %v", c.CPU)
	}
	sub := parse(t, "name: scan\nduration: 30s\nclients: {rate: 10000}\nbalancers: {algorithm: least-outstanding, subset: 10}\nservers:\n  - {count: 10000}\n")
	if c := assemble.Estimate(sub, nil, true); c.CPU > time.Second {
		t.Errorf("a subset of 10 visits 10 a pick: %v", c.CPU)
	}
	// ring-hash-bounded adds up every member's load on each pick
	// (balance's TestScansAsDeclared): 10 times its estimate on 2,000
	// servers when its visits were not counted
	bounded := parse(t, "name: scan\nduration: 30s\nclients: {rate: 10000}\nbalancers: {algorithm: ring-hash-bounded}\nservers:\n  - {count: 10000}\n")
	if c := assemble.Estimate(bounded, nil, true); c.Visits != 3e5*1e4 {
		t.Errorf("ring-hash-bounded over 10,000 servers: %g visits, want 3e9 (300,000 attempts x 10,000): %+v", c.Visits, c.Terms)
	}
	// the locality layer adds up each zone's members on every pick: on
	// its own, and on top of a scanning algorithm's scan
	zoned := "name: z\nduration: 10s\nclients: {rate: 1000}\nzones: [{name: a}, {name: b}]\nbalancers: {algorithm: %s, locality: {policy: %s}}\nservers:\n  - {count: 500, zone: a}\n  - {count: 500, zone: b}\n"
	for _, c := range []struct {
		algorithm, policy string
		visits            float64
	}{{"p2c", "none", 0}, {"p2c", "zone-aware", 1e4 * 1000}, {"least-outstanding", "none", 1e4 * 1000}, {"least-outstanding", "local", 2 * 1e4 * 1000}} {
		if got := assemble.Estimate(parse(t, fmt.Sprintf(zoned, c.algorithm, c.policy)), nil, true).Visits; got != c.visits {
			t.Errorf("%s under locality %s: %g visits, want %g", c.algorithm, c.policy, got, c.visits)
		}
	}
	// a fleet's setup: each server, and each balancer's entry for it
	if c := assemble.Estimate(parse(t, "name: x\nduration: 1s\nclients: {rate: 1, algorithm: round-robin, count: 20}\nservers:\n  - {count: 2000}\n"), nil, true); c.CPU < 2000*10*time.Microsecond+20*2000*time.Microsecond {
		t.Errorf("20 clients balancing over 2,000 servers: %v of CPU, want at least their setup's %v", c.CPU, 2000*10*time.Microsecond+20*2000*time.Microsecond)
	}
	flat := assemble.Estimate(parse(t, "name: x\nduration: 10s\nclients: {rate: 100}\n"), nil, true).Events
	for name, src := range map[string]string{
		"profile": "name: x\nduration: 10s\nclients: {rate: 100, profile: {shape: spike, base: 100, peak: 5000, at: 1s, for: 1s}}\n",
		"rate":    "name: x\nduration: 10s\nclients: {rate: 100}\nevents: [{at: 1s, action: rate, rate: 5000}]\n",
		"set":     "name: x\nduration: 10s\nclients: {rate: 100}\nevents: [{at: 1s, action: set, set: {clients.rate: '5000'}}]\n",
	} {
		if got := assemble.Estimate(parse(t, src), nil, true).Events; got < 40*flat {
			t.Errorf("%s: %g events, want the peak of 5000/s counted (100/s: %g)", name, got, flat)
		}
	}
}

// A probing algorithm's probes are events of their own: two a probe,
// probe_rate probes an attempt, at the highest rate the lab or its script
// sets, whichever algorithm it starts with.
func TestEstimateCountsProbes(t *testing.T) {
	events := func(src string) float64 {
		t.Helper()
		return assemble.Estimate(parse(t, "name: x\nduration: 10s\nclients: {rate: 100}\n"+src), nil, true).Events
	}
	flat := events("")
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b }
	if got := events("balancers: {algorithm: prequal}\n"); !near(got, flat*(7+2*3)/7) {
		t.Errorf("prequal at 3 probes an attempt: %g events, want %g (7 an attempt and 2 a probe)", got, flat*13/7)
	}
	if got := events("balancers: {algorithm: prequal, prequal: {probe_rate: 0.5}}\n"); !near(got, flat*8/7) {
		t.Errorf("prequal at half a probe an attempt: %g events, want %g", got, flat*8/7)
	}
	if got := events("events: [{at: 1s, action: set, set: {balancers.algorithm: prequal, balancers.prequal.probe_rate: '10'}}]\n"); !near(got, flat*27/7) {
		t.Errorf("switched to prequal at 10 probes: %g events, want %g", got, flat*27/7)
	}
}

// jiq's announcements are counted: at most one event an attempt (a server
// falls idle at most once a reply), from the start or once an algorithm
// event switches to it, since the servers announce the whole run then.
func TestEstimateCountsAnnouncements(t *testing.T) {
	events := func(src string) float64 {
		t.Helper()
		return assemble.Estimate(parse(t, "name: x\nduration: 10s\nclients: {rate: 100}\n"+src), nil, true).Events
	}
	flat := events("")
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b }
	if got := events("balancers: {algorithm: jiq}\n"); !near(got, flat*8/7) {
		t.Errorf("jiq: %g events, want %g (7 an attempt and 1 announcement)", got, flat*8/7)
	}
	if got := events("events: [{at: 1s, action: algorithm, algorithm: jiq}]\n"); !near(got, flat*8/7) {
		t.Errorf("switched to jiq: %g events, want %g", got, flat*8/7)
	}
	if got := events("balancers: {algorithm: prequal, prequal: {probe_rate: 0.5}}\n"); !near(got, flat*8/7) {
		t.Errorf("prequal: %g events, want %g (no announcement)", got, flat*8/7)
	}
}

// The refusal names the CPU the estimate found, rounded to its size: an
// estimate of a few hundred ms over a budget of 1 ms said "about 0s of CPU".
func TestRefusalRoundsTheCPUToItsSize(t *testing.T) {
	lab, err := labyaml.Parse("e.yaml", []byte("name: e\nduration: 60s\nclients: {rate: 5000}\nservers:\n  - {count: 50, workers: 8}\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = assemble.CheckCost(lab, nil, true, assemble.Budget{Memory: 1 << 40, CPU: time.Millisecond})
	if err == nil || strings.Contains(err.Error(), "about 0s of CPU") || !strings.Contains(err.Error(), "ms of CPU, over the budget of 1ms") {
		t.Errorf("the refusal: %v", err)
	}
}

// A closed loop whose zones may be partitioned goes round as fast as its
// think time: an attempt across a cut link fails at the client with no hop
// (torture's seed 2269 fired over 3 times the events counted before).
func TestEstimateCountsAPartitionAsNoHop(t *testing.T) {
	events := func(src string) float64 {
		t.Helper()
		return assemble.Estimate(parse(t, "name: x\nduration: 1s\nzones: [{name: a}, {name: b}]\n"+
			"clients: {mode: closed, users: 10, think: 1ms, zones: [b]}\nservers: [{}]\n"+src), nil, true).Events
	}
	want := 10 * 1.0 / 0.001 * 7 // users x duration / think x 7 events an attempt
	for _, src := range []string{"network: {partition: true}\n", "events: [{at: 0.5s, action: partition}]\n"} {
		if got := events(src); math.Abs(got-want) > 1e-6*want {
			t.Errorf("%s: %g events, want %g", src, got, want)
		}
	}
	if got := events(""); got >= want/2 {
		t.Errorf("never partitioned: %g events, want those of think + work + hops, far fewer than %g", got, want)
	}
}
