package torture

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// A lab is a pure function of its seed; another seed draws another lab.
func TestDrawIsDeterministic(t *testing.T) {
	a, b, c := Draw(42), Draw(42), Draw(43)
	if !bytes.Equal(a.Tree.YAML(), b.Tree.YAML()) || !slices.Equal(a.Features, b.Features) {
		t.Fatalf("seed 42 drew two different labs:\n%s\n%s", a.Tree.YAML(), b.Tree.YAML())
	}
	if bytes.Equal(a.Tree.YAML(), c.Tree.YAML()) {
		t.Fatal("seeds 42 and 43 drew the same lab")
	}
}

// Every drawn lab is valid: a lab the validator refuses is a generator bug.
func TestDrawnLabsAreValid(t *testing.T) {
	for seed := uint64(1); seed <= 1000; seed++ {
		d := Draw(seed)
		if _, err := labyaml.Parse(labName(seed), d.Tree.YAML()); err != nil {
			t.Fatalf("seed %d drew an invalid lab: %v\n%s", seed, err, d.Tree.YAML())
		}
	}
}

// Swarm testing: each feature is on in some labs and off in others, and
// every kind of chaos comes up.
func TestSwarmCoversEveryFeature(t *testing.T) {
	const n = 1000
	on := map[string]int{}
	for seed := uint64(1); seed <= n; seed++ {
		for _, f := range Draw(seed).Features {
			on[f]++
		}
	}
	want := []string{"client-side", "shared-load", "breaker", "health", "client-retries", "client-budget", "hedge", "limiter",
		"subset", "client-subset", "closed-loop", "balancers", "groups", "gc", "cache", "queue", "drop-expired",
		"outlier", "slow-start", "aperture", "profile", "client-faults", "timed-events", "compare", "tls", "handshake-duration", "zones"}
	for _, k := range chaosKinds {
		want = append(want, string(k))
	}
	for _, f := range want {
		if on[f] < n/20 || on[f] > n-n/20 {
			t.Errorf("feature %s is on in %d of %d labs: a swarm coin should leave it on in some and off in others", f, on[f], n)
		}
	}
}

// A short torture run: no failures, and the chaos the issue names is
// applied — kills, removals, algorithm switches, health checks ejecting
// servers — in shared-load and client-side labs too.
func TestTortureRunExercisesTheChaos(t *testing.T) {
	s := Run(Config{First: 1, Runs: 60, Workers: 2})
	for _, f := range s.Failures {
		t.Errorf("seed %d: %s: %s", f.Drawn.Seed, f.Outcome.Verdict, f.Outcome.Detail)
	}
	for _, a := range []string{"kill", "restart", "remove-server", "add-server", "algorithm", "slow", "gc", "rate", "set"} {
		if s.Actions[a] == 0 {
			t.Errorf("no %s applied in 60 labs: %v", a, s.Actions)
		}
	}
	if s.Ejected == 0 || s.Opened == 0 {
		t.Errorf("health checks ejected %d servers and %d breakers opened; want both exercised", s.Ejected, s.Opened)
	}
	if s.Features["shared-load"] == 0 || s.Features["client-side"] == 0 {
		t.Errorf("features: %v", s.Features)
	}
	if s.Requests < 60*2000 {
		t.Errorf("only %d requests in 60 labs", s.Requests)
	}
	var out bytes.Buffer
	s.Write(&out, Config{First: 1, Runs: 60, Workers: 2})
	if !strings.HasPrefix(out.String(), "torture: 60 labs, ") || !strings.Contains(out.String(), " 0 failures in ") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// The shrinker keeps only what the failure needs. Here a lab "fails" when
// it has a kill and breakers: the shrunk lab has one event, the kill, a
// balancer section with only the breaker, and as few servers as the kill's
// target needs.
func TestShrinkKeepsOnlyWhatFails(t *testing.T) {
	var d Drawn
	for seed := uint64(1); ; seed++ {
		d = Draw(seed)
		if hasKill(d.Tree) && d.Tree.Get("balancers").(Map).Get("breaker") != nil && len(d.Tree.Get("events").(List)) > 3 {
			break
		}
	}
	judge := func(m Map) (bool, bool) {
		if _, err := labyaml.Parse("x", m.YAML()); err != nil {
			return false, false
		}
		bal, _ := m.Get("balancers").(Map)
		br, _ := bal.Get("breaker").(Map)
		return true, hasKill(m) && br.Get("enabled") == true
	}
	shrunk, runs := shrink(d.Tree, 1000, judge)
	t.Logf("seed %d shrunk in %d runs from %s to %s:\n%s", d.Seed, runs, size(d.Tree), size(shrunk), shrunk.YAML())
	events := shrunk.Get("events").(List)
	if len(events) != 1 || events[0].(Map).Get("action") != "kill" {
		t.Errorf("want the kill alone, got %v", events)
	}
	if keys := keysOf(shrunk); !slices.Equal(keys, []string{"name", "seed", "duration", "balancers", "servers", "events"}) {
		t.Errorf("want no other section, got %v", keys)
	}
	if bal := shrunk.Get("balancers").(Map); len(bal) != 1 || !slices.Equal(keysOf(bal.Get("breaker").(Map)), []string{"enabled"}) {
		t.Errorf("want balancers: {breaker: {enabled: true}}, got %v", bal)
	}
	servers := 0
	for _, g := range shrunk.Get("servers").(List) {
		if keys := keysOf(g.(Map)); len(keys) > 1 || len(keys) == 1 && keys[0] != "count" {
			t.Errorf("a server group kept settings it does not need: %v", g)
		}
		n, ok := g.(Map).Get("count").(int)
		if !ok {
			n = 1
		}
		servers += n
	}
	target := events[0].(Map).Get("target").(string)
	if need := serverNumber(target); servers != need {
		t.Errorf("%d servers for a kill of %s, want %d", servers, target, need)
	}
	at, _ := events[0].(Map).Get("at").(time.Duration) // absent: 0
	if d := shrunk.Get("duration").(time.Duration); d > 2*at+200*time.Millisecond {
		t.Errorf("duration %v not shortened towards the kill at %v", d, at)
	}
}

func hasKill(m Map) bool {
	evs, _ := m.Get("events").(List)
	for _, e := range evs {
		if e.(Map).Get("action") == "kill" {
			return true
		}
	}
	return false
}

func keysOf(m Map) []string {
	var out []string
	for _, f := range m {
		out = append(out, f.Key)
	}
	return out
}

// serverNumber is the fewest servers a target needs: 3 for s3, 1 for all.
func serverNumber(target string) int {
	n := 0
	for _, c := range strings.TrimPrefix(target, "s") {
		if c < '0' || c > '9' {
			return 1
		}
		n = n*10 + int(c-'0')
	}
	return max(n, 1)
}

// A failure is printed with its seed, the command that reproduces it and
// the shrunk lab, which is written to a file that lab sim reads.
func TestFailureReport(t *testing.T) {
	d := Draw(7)
	shrunk := Map{{"name", "torture-7"}, {"seed", uint64(7)}, {"duration", time.Second}, {"servers", List{Map{{"count", 2}}}},
		{"events", List{Map{{"at", 500 * time.Millisecond}, {"action", "kill"}, {"target", "s2"}}}}}
	file := filepath.Join(t.TempDir(), "torture-7.yaml")
	if err := os.WriteFile(file, shrunk.YAML(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &Summary{Labs: 1, Failures: []Failure{{Drawn: d, Outcome: Outcome{Verdict: Violation,
		Detail: "invariants violated in \"p2c\":\n  at 1.5s: balancer 0 counts 3 outstanding, 2 attempts are in flight"},
		Shrunk: shrunk, Runs: 12, File: file}}}
	var out bytes.Buffer
	s.Write(&out, Config{First: 7, Runs: 1, Workers: 1})
	text := out.String()
	for _, want := range []string{"1 failures", "FAIL seed 7: invariant violated", "reproduce: lab torture --seed 7 --runs 1",
		"shrunk in 12 runs to 1 events, 2 servers, 1s", "lab sim " + file + " --check", "action: kill"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	yaml := text[strings.Index(text, "---\n")+4 : strings.LastIndex(text, "---")]
	if _, err := labyaml.Parse("printed", []byte(yaml)); err != nil {
		t.Errorf("the printed lab does not parse: %v\n%s", err, yaml)
	}
}

// A failure's signature leaves out numbers, so a shrunk lab that fails the
// same way at another instant or server matches, and another bug does not.
func TestSignature(t *testing.T) {
	a := Outcome{Verdict: Violation, Detail: "invariants violated in \"p2c\":\n  at 1.5s: balancer 0 counts 3 outstanding, 2 attempts are in flight"}
	b := Outcome{Verdict: Violation, Detail: "invariants violated in \"random\":\n  at 0.2s: balancer 1 counts 9 outstanding, 7 attempts are in flight\n  at 0.3s: x"}
	c := Outcome{Verdict: Violation, Detail: "invariants violated in \"p2c\":\n  at 1.5s: s2 has 3 busy of 2 workers and 0 queued"}
	if a.Signature() != b.Signature() {
		t.Errorf("%q != %q", a.Signature(), b.Signature())
	}
	if a.Signature() == c.Signature() {
		t.Errorf("two different violations share the signature %q", a.Signature())
	}
}

// Check reports a lab the validator refuses as a generator bug, not a pass.
func TestCheckReportsAnInvalidLab(t *testing.T) {
	bad := Map{{"duration", time.Second}, {"clients", Map{{"rate", -5.0}}}}
	if out := Check("bad", bad, false); out.Verdict != Invalid || !strings.Contains(out.Detail, "clients.rate") {
		t.Errorf("got %v: %s", out.Verdict, out.Detail)
	}
}

// Every setting the lab file declares is drawn other than its default in
// some labs, from the range its check allows: the list is labfile's
// (Leaves), so a setting the generator skipped fails here. Settings in
// lists (servers, faults, mixture parts) count in any element.
func TestEverySettingIsDrawn(t *testing.T) {
	def := labfile.Default()
	seen := map[string]int{}
	for seed := uint64(1); seed <= 300; seed++ {
		lab, err := labyaml.Parse("draw", Draw(seed).Tree.YAML())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, l := range labfile.Leaves("") {
			d, err := def.Value(elem(l.Path, 0))
			if err != nil { // in a list the default lab does not have: its zero
				d = reflect.Zero(l.Type).Interface()
			}
			for i := range 8 {
				if v, err := lab.Value(elem(l.Path, i)); err == nil && v != d {
					seen[l.Path]++
					break
				}
			}
		}
	}
	for _, l := range labfile.Leaves("") {
		external := l.Path == "balancers.kind" || strings.HasPrefix(l.Path, "balancers.command.") // what runs the tier live: not drawn
		if l.Path != "balancers.count" && !external && seen[l.Path] == 0 {
			t.Errorf("%s: never drawn other than its default in 300 labs", l.Path)
		}
	}
}

// elem names element i of every list on a leaf's path: servers[i].speed,
// clients.faults[i].share, clients.work.mix[i].p.
func elem(path string, i int) string {
	for _, list := range []string{"servers", "faults", "mix"} {
		path = strings.Replace(path, list+".", list+"["+strconv.Itoa(i)+"].", 1)
	}
	return path
}

// Set events draw the settings a running lab carries out, workers and
// decay among them, and never one the lab file holds fixed for a run.
func TestSetDrawsRunTimeSettings(t *testing.T) {
	seen := map[string]bool{}
	for seed := uint64(1); seed <= 1500; seed++ {
		lab, err := labyaml.Parse("draw", Draw(seed).Tree.YAML())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, ev := range lab.Events {
			for k := range ev.Set {
				if why := labfile.FixedAtRunTime(k); why != "" {
					t.Errorf("seed %d: a set of %s, fixed for a run (%s)", seed, k, why)
				}
				seen[k] = true
			}
		}
	}
	for _, k := range []string{"servers.workers", "balancers.decay", "servers.speed", "servers.max_outstanding",
		"servers.queue_timeout", "servers.error_time", "servers.cache.size", "network.hop"} {
		if !seen[k] {
			t.Errorf("%s: never drawn in a set event in 1500 labs", k)
		}
	}
}
