package labyaml

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// fullExample sets every section (and most fields) of the schema:
// labfile's testdata/full.yaml, which labfile's own tests parse too.
var fullExample = func() string {
	data, err := os.ReadFile("../testdata/full.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

func mustParse(t *testing.T, src string) *labfile.Lab {
	t.Helper()
	l, err := Parse("lab.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return l
}

// parseErr parses src, which must fail, and returns the error text.
func parseErr(t *testing.T, src string) string {
	t.Helper()
	_, err := Parse("lab.yaml", []byte(src))
	if err == nil {
		t.Fatalf("Parse succeeded, want an error, for:\n%s", src)
	}
	return err.Error()
}

func TestParseFullExample(t *testing.T) {
	l := mustParse(t, fullExample)
	if l.Seed != 42 || l.Duration != 30*time.Second || l.Network.Hop != 2*time.Millisecond {
		t.Errorf("top level: seed %d duration %v hop %v", l.Seed, l.Duration, l.Network.Hop)
	}
	if l.Clients.Zipf != 0 {
		t.Errorf("explicit zipf: 0 became %v", l.Clients.Zipf)
	}
	if !reflect.DeepEqual(l.Clients.Work, labfile.Dist{Kind: "lognormal", Mean: 20 * time.Millisecond, CV: 2}) {
		t.Errorf("clients.work = %+v", l.Clients.Work)
	}
	g := l.Servers[0]
	if g.Workers != 4 || g.Speed != 2 || g.Queue.Discipline != "lifo" || g.Limiter.Kind != "gradient2" {
		t.Errorf("servers[0] = %+v", g)
	}
	if w := l.Servers[1].Work; w == nil || w.Kind != "mixture" || len(w.Mix) != 2 {
		t.Errorf("servers[1].work = %+v", w)
	}
	o := l.Balancers.Outlier
	if o != (labfile.Outlier{Enabled: true, ConsecutiveFailures: 3, Interval: 500 * time.Millisecond, BaseEjection: 2 * time.Second,
		MaxEjection: 20 * time.Second, MaxEjectionShare: 0.5, SuccessRateK: 1.5, LatencyK: 1.2, MinRequests: 20}) {
		t.Errorf("balancers.outlier = %+v", o)
	}
	if ss := l.Balancers.SlowStart; ss != (labfile.SlowStart{Enabled: true, Window: 5 * time.Second, Floor: 0.2, Aggression: 2}) {
		t.Errorf("balancers.slow_start = %+v", ss)
	}
	if l.Events[6].Target != "s5" {
		t.Errorf("unnamed add-server got target %q, want s5", l.Events[6].Target)
	}
	if l.Compare[1].Set["clients.budget"] != "0.2" {
		t.Errorf("set value = %q, want the text 0.2", l.Compare[1].Set["clients.budget"])
	}
}

func TestRoundTrip(t *testing.T) {
	l := mustParse(t, fullExample)
	out, err := Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse("again.yaml", out)
	if err != nil {
		t.Fatalf("re-parse: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(l, back) {
		t.Errorf("round trip differs:\n%+v\n%+v", l, back)
	}
}

func TestDefaults(t *testing.T) {
	l := mustParse(t, "name: tiny\n")
	want := labfile.Default()
	want.Name, want.Description, want.Narration = "tiny", "", ""
	want.Clients.Rate = 100
	if !reflect.DeepEqual(l, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", l, want)
	}
	c := l.Clients
	if l.Seed != 1 || l.Duration != 20*time.Second || l.Network.Hop != 5*time.Millisecond ||
		c.Mode != "open" || c.Users != 10 || c.Think != 100*time.Millisecond || c.Count != 20 ||
		c.Activity != "even" || c.Keys != 1000 || c.Zipf != 1.1 ||
		!reflect.DeepEqual(c.Work, labfile.Dist{Kind: "exponential", Mean: 10 * time.Millisecond, CV: 1}) ||
		c.Backoff != (labfile.Backoff{Base: 10 * time.Millisecond, Jitter: "full"}) {
		t.Errorf("clients defaults: %+v", l)
	}
	b := l.Balancers
	if b.Count != 1 || b.Algorithm != "p2c" || b.Load != "local" || b.Refresh != 500*time.Millisecond ||
		b.Choices != 2 || b.HashOn != "key" || b.VNodes != 100 || b.Epsilon != 0.25 || b.Decay != time.Second ||
		b.Breaker != (labfile.Breaker{Window: 20, Threshold: 0.5, Open: time.Second, Probes: 3}) ||
		b.Health != (labfile.Health{Interval: time.Second, Fails: 2, Passes: 2}) || b.Aperture != 0 ||
		b.Outlier != (labfile.Outlier{ConsecutiveFailures: 5, Interval: time.Second, BaseEjection: 5 * time.Second,
			MaxEjection: time.Minute, MaxEjectionShare: 0.2, SuccessRateK: 1.9, LatencyK: 1.9, MinRequests: 10}) ||
		b.SlowStart != (labfile.SlowStart{Window: 10 * time.Second, Floor: 0.1, Aggression: 1}) {
		t.Errorf("balancer defaults: %+v", b)
	}
	if len(l.Servers) != 1 || l.Servers[0].Count != 5 {
		t.Fatalf("servers default: %+v", l.Servers)
	}
	s := l.Servers[0].Server
	if s.Workers != 1 || s.Queue.Discipline != "fifo" || s.Speed != 1 || s.ErrorTime != time.Millisecond ||
		s.Cache.HitFactor != 0.2 || s.Limiter != (labfile.Limiter{Initial: 20, Min: 1, Max: 200}) {
		t.Errorf("server defaults: %+v", s)
	}
}

func TestDefaultsOnlyWhereAbsent(t *testing.T) {
	l := mustParse(t, `network: {hop: 0}
clients: {zipf: 0, think: 0, work: {dist: lognormal, cv: 0}}
servers:
  - cache: {hit_factor: 0}
    error_time: 0
    work: {dist: constant}
`)
	if l.Network.Hop != 0 || l.Clients.Zipf != 0 || l.Clients.Think != 0 || l.Clients.Work.CV != 0 {
		t.Errorf("explicit zeros replaced: %+v", l)
	}
	if l.Clients.Work.Mean != 10*time.Millisecond {
		t.Errorf("absent mean not defaulted: %v", l.Clients.Work.Mean)
	}
	s := l.Servers[0]
	if s.Count != 1 || s.Cache.HitFactor != 0 || s.ErrorTime != 0 || s.Work.Mean != 10*time.Millisecond {
		t.Errorf("server: %+v work %+v", s, s.Work)
	}
}

func TestDefaultPlayground(t *testing.T) {
	l := labfile.Default()
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	if n := len(l.ExpandServers()); n != 5 || l.Balancers.Algorithm != "p2c" || l.Clients.Rate != 200 {
		t.Errorf("playground: %d servers, %s, rate %v", n, l.Balancers.Algorithm, l.Clients.Rate)
	}
}

func TestUnknownField(t *testing.T) {
	msg := parseErr(t, "name: typo\nclients:\n  rat: 100\n")
	for _, want := range []string{"lab.yaml:3:3", "clients.rat", `"rat"`, `did you mean "rate"`, "allowed: mode, rate, users"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	msg = parseErr(t, "servers:\n  - count: 2\n    queue:\n      capacty: 3\n")
	if !strings.Contains(msg, "lab.yaml:4:7: servers[0].queue.capacty") || !strings.Contains(msg, `"capacity"`) {
		t.Errorf("nested unknown field: %q", msg)
	}
}

func TestWrongType(t *testing.T) {
	cases := []struct{ src, want string }{
		{"clients:\n  rate: fast\n", `lab.yaml:2:9: clients.rate: want a number, got "fast"`},
		{"duration: 20\n", `lab.yaml:1:11: duration: want a duration like 50ms`},
		{"servers:\n  - workers: 1.5\n", `lab.yaml:2:14: servers[0].workers: want a whole number, got "1.5"`},
		{"balancers:\n  breaker:\n    enabled: maybe\n", `lab.yaml:3:14: balancers.breaker.enabled: want true or false`},
		{"clients: 5\n", `lab.yaml:1:10: clients: want a mapping of fields`},
		{"servers:\n  count: 5\n", `lab.yaml:2:3: servers: want a list, got a mapping`},
		{"clients:\n  mode: [open]\n", `lab.yaml:2:9: clients.mode: want text, got a list`},
		{"seed: -3\n", `lab.yaml:1:7: seed: want a whole number >= 0`},
		{"clients:\n  rate: .nan\n", `lab.yaml:2:9: clients.rate: want a finite number`},
		{"compare:\n  - name: a\n    set: [clients.rate]\n", `lab.yaml:3:10: compare[0].set: want a mapping of dotted paths`},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.src); !strings.Contains(msg, c.want) {
			t.Errorf("for %q\n got %q\nwant %q", c.src, msg, c.want)
		}
	}
}

func TestSyntaxErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"clients:\n  rate: 1\n  rate: 2\n", "lab.yaml:3:3: YAML syntax"},
		{"a: 1\n---\nb: 2\n", "one YAML document"},
		{"servers:\n  - workers: *nope\n", "lab.yaml:2:14: servers[0].workers: alias *nope"},
		{"servers:\n  - &x {workers: 2, <<: *x}\n", "lab.yaml:2:9: servers[0]: an alias inside its own anchor"},
		{"x-a: &a {<<: [*a, *a]}\nservers: [*a]\n", "servers[0]: an alias inside its own anchor"},
		{"servers:\n  - &x {workers: 2, work: *x}\n", "lab.yaml:2:9: servers[0].work: an alias inside its own anchor"},
		{laughs(), "the file expands to more than"},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.src); !strings.Contains(msg, c.want) {
			t.Errorf("for %q\n got %q\nwant %q", c.src, msg, c.want)
		}
	}
}

// laughs is a "billion laughs" file: 4^12 merges through aliases.
func laughs() string {
	var b strings.Builder
	b.WriteString("x-a: &a {workers: 2}\n")
	for c := 'b'; c <= 'm'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "x-%c: &%c {<<: [*%s, *%s, *%s, *%s]}\n", c, c, p, p, p, p)
	}
	b.WriteString("servers: [*m, *m, *m]\n")
	return b.String()
}

func TestOutOfRange(t *testing.T) {
	cases := []struct{ src, want string }{
		{"duration: 0s\n", "lab.yaml:1:11: duration: must be in (0s, 8760h], got 0s"},
		{"network: {hop: 11s}\n", "lab.yaml:1:16: network.hop: must be in [0s, 10s], got 11s"},
		{"network: {jitter: 100h}\n", "network.jitter: must be in [0s, 10s], got 100h"},
		{"name: " + strings.Repeat("n", labfile.MaxNameLen+1) + "\n", "name: is 257 bytes long; at most 256 are allowed"},
		{"clients:\n  rate: 0\n", "lab.yaml:2:9: clients.rate: must be in (0, 1000000], got 0"},
		{"clients:\n  mode: closd\n", `lab.yaml:2:9: clients.mode: must be one of open, closed; got "closd" (did you mean "closed"?)`},
		{"clients:\n  keys: 0\n", "lab.yaml:2:9: clients.keys: must be between 1 and 1000000, got 0"},
		{"clients:\n  zipf: 6\n", "clients.zipf: must be in [0, 5], got 6"},
		{"clients:\n  retries: 11\n", "lab.yaml:2:12: clients.retries: must be between 0 and 10"},
		{"clients:\n  budget: 1.5\n", "clients.budget: must be in [0, 1]"},
		{"clients:\n  hedge: p100\n", "lab.yaml:2:10: clients.hedge: must be"},
		{"clients:\n  hedge: -5ms\n", "clients.hedge: must be"},
		{"clients:\n  algorithm: fastest\n", "clients.algorithm: must be one of round-robin"},
		{"clients:\n  work: {dist: gamma}\n", "lab.yaml:2:16: clients.work.dist: must be one of constant, exponential, lognormal, mixture"},
		{"clients:\n  work: {mean: 0s}\n", "clients.work.mean: must be in (0s, 1h], got 0s"},
		{"clients:\n  timeout: 100h\n", "clients.timeout: must be in [0s, 1h], got 100h"},
		{"clients:\n  subset: 1000000000\n", "clients.subset: must be between 0 and 10000, got 1000000000"},
		{"clients:\n  hedge: 2h\n", "clients.hedge: a delay must be in (0s, 1h], got 2h"},
		{"clients:\n  work: {dist: lognormal, cv: -1}\n", "clients.work.cv: must be in [0, 100]"},
		{"clients:\n  work: {dist: mixture}\n", "clients.work.mix: a mixture needs at least one part"},
		{"clients:\n  work:\n    mix:\n      - {p: 0, value: 1ms}\n", "lab.yaml:4:13: clients.work.mix[0].p: must be in (0, 1000000], got 0"},
		{"balancers: {count: 0}\n", "lab.yaml:1:20: balancers.count: must be between 1 and 1000"},
		{"balancers: {load: global}\n", "balancers.load: must be one of local, shared"},
		{"balancers: {choices: 4}\n", "balancers.choices: must be between 1 and 3"},
		{"balancers: {hash_on: path}\n", "balancers.hash_on: must be one of key, client"},
		{"balancers: {vnodes: 0}\n", "balancers.vnodes: must be between 1 and 10000"},
		{"balancers: {epsilon: 0}\n", "balancers.epsilon: must be in (0, 10]"},
		{"balancers:\n  breaker: {window: 5}\n", "lab.yaml:2:21: balancers.breaker.window: must be between 10 and 10000"},
		{"balancers:\n  breaker: {threshold: 1.5}\n", "balancers.breaker.threshold: must be in (0, 1]"},
		{"balancers:\n  breaker: {probes: 0}\n", "balancers.breaker.probes: must be between 1 and 100"},
		{"balancers:\n  outlier: {consecutive_failures: -1}\n", "balancers.outlier.consecutive_failures: must be between 0 and 1000"},
		{"balancers:\n  outlier: {interval: 0s}\n", "balancers.outlier.interval: must be in [1ms, 1h], got 0s"},
		{"balancers:\n  outlier: {base_ejection: 0s}\n", "balancers.outlier.base_ejection: must be in (0s, 1h], got 0s"},
		{"balancers:\n  outlier: {base_ejection: 2m}\n", "balancers.outlier.max_ejection: must be at least base_ejection (2m0s), got 1m0s"},
		{"balancers:\n  outlier: {max_ejection_share: 0}\n", "balancers.outlier.max_ejection_share: must be in (0, 1]"},
		{"balancers:\n  outlier: {success_rate_k: 11}\n", "balancers.outlier.success_rate_k: must be in [0, 10]"},
		{"balancers:\n  outlier: {latency_k: -1}\n", "balancers.outlier.latency_k: must be in [0, 10]"},
		{"balancers:\n  outlier: {min_requests: 0}\n", "balancers.outlier.min_requests: must be between 1 and 1000000"},
		{"balancers:\n  slow_start: {window: 0s}\n", "balancers.slow_start.window: must be in (0s, 1h], got 0s"},
		{"balancers:\n  slow_start: {floor: 0}\n", "balancers.slow_start.floor: must be in (0, 1]"},
		{"balancers:\n  slow_start: {aggression: 0.05}\n", "balancers.slow_start.aggression: must be in [0.1, 10], got 0.05"},
		{"balancers: {aperture: -1}\n", "balancers.aperture: must be between 0 and 10000"},
		{"balancers: {aperture: 3, algorithm: round-robin}\n", `balancers.aperture: works with the algorithms that draw random choices (p2c, p2c-latency-load, p2c-peak-ewma, p2c-stale); balancers.algorithm is "round-robin"`},
		{"balancers: {aperture: 3, subset: 2}\n", "balancers.aperture: and balancers.subset are two ways to choose a balancer's servers: set one of them (subset is 2)"},
		{"clients: {aperture: 3}\n", "clients.aperture: is for clients that balance themselves: set clients.algorithm too"},
		{"balancers: {aperture: 3, replacement: true}\n", "balancers.replacement: draws from the whole fleet: it does not go with balancers.aperture (3)"},
		{"clients: {retry_other: true}\n", "clients.retry_other: is for clients that balance themselves: set clients.algorithm too"},
		{"clients: {sticky_age: 1s}\n", "clients.sticky_age: ends the runs of clients.sticky: set clients.sticky too (got sticky_age 1s)"},
		{"balancers: {aperture_load: 2}\n", "balancers.aperture_load: sizes an aperture: set balancers.aperture too"},
		{"balancers: {aperture: 3, aperture_load: -1}\n", "balancers.aperture_load: must be in [0, 1000000], got -1"},
		{"clients: {aperture: 3, algorithm: maglev}\n", "clients.aperture: works with the algorithms that draw random choices"},
		{"balancers:\n  health: {fails: 0}\n", "balancers.health.fails: must be between 1 and 1000, got 0"},
		{"balancers:\n  health: {interval: 1ns}\n", "balancers.health.interval: must be in [10ms, 1h], got 1ns"},
		{"balancers: {refresh: 0s}\n", "balancers.refresh: must be in [10ms, 1h], got 0s"},
		{"balancers: {timeout: 100h}\n", "balancers.timeout: must be in [0s, 1h], got 100h"},
		{"balancers: {subset: 1000000000}\n", "balancers.subset: must be between 0 and 10000, got 1000000000"},
		{"servers: []\n", "lab.yaml:1:1: servers: needs at least one server group"},
		{"servers:\n  - count: 10001\n", "servers[0].count: must be between 1 and 10000"},
		{"servers:\n  - count: 6000\n  - count: 6000\n", "servers: the groups hold 12000 servers in all; allowed 1..10000"},
		{"servers:\n  - workers: 0\n", "lab.yaml:2:14: servers[0].workers: must be between 1 and 10000"},
		{"servers:\n  - queue: {discipline: random}\n", "servers[0].queue.discipline: must be one of fifo, lifo"},
		{"servers:\n  - speed: 0\n", "lab.yaml:2:12: servers[0].speed: must be in (0, 100]"},
		{"servers:\n  - speed: 1e308\n", "servers[0].speed: must be in (0, 100], got 1e+308"},
		{"servers:\n  - queue: {capacity: 1000000000}\n", "servers[0].queue.capacity: must be between 0 and 100000"},
		{"servers:\n  - cache: {size: 1000000000}\n", "servers[0].cache.size: must be between 0 and 1000000"},
		{"servers:\n  - limiter: {max: 1000000000}\n", "servers[0].limiter.max: must be between 1 and 1000000"},
		{"servers:\n  - errors: 2\n", "servers[0].errors: must be in [0, 1]"},
		{"servers:\n  - cache: {hit_factor: 1.5}\n", "servers[0].cache.hit_factor: must be in [0, 1]"},
		{"servers:\n  - limiter: {kind: vegas}\n", "servers[0].limiter.kind: must be one of aimd, gradient2"},
		{"servers:\n  - limiter: {kind: aimd, min: 30}\n", "servers[0].limiter.initial: needs 1 <= min <= initial <= max"},
		{"servers:\n  - gc: {every: 1s, pause: 2s}\n", "servers[0].gc.pause: with gc.every 1s the pause must be > 0 and < every"},
		{"servers:\n  - {count: 2, name: pair}\n", "servers[0].name: a name is only for a group of one server"},
		{"servers:\n  - name: s1\n", "servers[0].name: names s1, s2, ... are reserved"},
		{"servers:\n  - name: a\n  - name: a\n", `lab.yaml:3:11: servers[1].name: name "a" is already used by servers[0]`},
		{"servers:\n  - name: all\n", `servers[0].name: "all" is reserved`},
		{"servers:\n  - name: has space\n", "servers[0].name: a name is letters, digits"},
	}
	for _, c := range cases {
		if msg := parseErr(t, c.src); !strings.Contains(msg, c.want) {
			t.Errorf("for %q\n got %q\nwant %q", c.src, msg, c.want)
		}
	}
}

func TestMissingFieldReportedAtSection(t *testing.T) {
	// limiter.max is absent from the file: the error sits at its section.
	msg := parseErr(t, "servers:\n  - limiter:\n      initial: 500\n")
	if !strings.Contains(msg, "lab.yaml:2:5: servers[0].limiter.max: needs 1 <= min <= initial <= max") {
		t.Errorf("got %q", msg)
	}
	msg = parseErr(t, "servers:\n  - count: 1\n    limiter:\n      kind: aimd\n      min: 0\n")
	if !strings.Contains(msg, "lab.yaml:5:12: servers[0].limiter.min") {
		t.Errorf("got %q", msg)
	}
}

func TestSeveralErrorsInFileOrder(t *testing.T) {
	_, err := Parse("lab.yaml", []byte("servers:\n  - workers: 0\nclients:\n  rate: -1\n"))
	var es labfile.Errors
	if !errors.As(err, &es) || len(es) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	if es[0].Line != 2 || es[1].Line != 4 {
		t.Errorf("not in file order: %v", err)
	}
}

func TestErrorsCapped(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "k%d: 1\n", i)
	}
	_, err := Parse("lab.yaml", []byte(b.String()))
	var es labfile.Errors
	const most = 30 // the problems one parse reports (labfile.Errors.Capped)
	if !errors.As(err, &es) || len(es) != most+1 || es[most].Msg != "... and 10 more problems" {
		t.Errorf("got %d errors, last %v", len(es), es[len(es)-1])
	}
}

func TestAnchorsAndMerge(t *testing.T) {
	l := mustParse(t, `x-server: &base {workers: 4, queue: {capacity: 8}}
servers:
  - <<: *base
    count: 2
  - &one {name: solo, workers: 2}
  - <<: *base
    workers: 9
`)
	if l.Servers[0].Workers != 4 || l.Servers[0].Queue.Capacity != 8 || l.Servers[0].Count != 2 {
		t.Errorf("merge: %+v", l.Servers[0])
	}
	if l.Servers[2].Workers != 9 {
		t.Errorf("explicit key must win over merge: %+v", l.Servers[2])
	}
}

func TestErrorFormat(t *testing.T) {
	cases := []struct {
		e    labfile.Error
		want string
	}{
		{labfile.Error{File: "lab.yaml", Line: 3, Col: 5, Field: "clients.rate", Msg: "bad"}, "lab.yaml:3:5: clients.rate: bad"},
		{labfile.Error{File: "lab.yaml", Line: 3, Field: "clients.rate", Msg: "bad"}, "lab.yaml:3: clients.rate: bad"},
		{labfile.Error{Field: "clients.rate", Msg: "bad"}, "clients.rate: bad"},
		{labfile.Error{File: "lab.yaml", Msg: "bad"}, "lab.yaml: bad"},
		{labfile.Error{Msg: "bad"}, "bad"},
	}
	for _, c := range cases {
		if got := c.e.Error(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	es := labfile.Errors{&cases[0].e, &cases[2].e}
	if got := es.Error(); got != "lab.yaml:3:5: clients.rate: bad\nclients.rate: bad" {
		t.Errorf("Errors: %q", got)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(path, []byte("clients:\n  rate: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var e *labfile.Error
	if !errors.As(err, &e) || e.File != path || e.Line != 2 {
		t.Errorf("Load error: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestDocExamples parses every yaml block of docs/labfile.md: each is a
// complete lab file and must stay valid as the schema changes.
func TestDocExamples(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "labfile.md"))
	if err != nil {
		t.Skip("docs/labfile.md not found:", err)
	}
	blocks := 0
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		indent, ok := strings.CutSuffix(lines[i], "```yaml")
		if !ok || strings.TrimSpace(indent) != "" {
			continue
		}
		var b strings.Builder
		start := i + 1
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(strings.TrimPrefix(lines[i], indent) + "\n")
		}
		blocks++
		if _, err := Parse(fmt.Sprintf("labfile.md:%d", start), []byte(b.String())); err != nil {
			t.Errorf("example at docs/labfile.md:%d: %v", start, err)
		}
	}
	if blocks < 10 {
		t.Errorf("found only %d yaml examples", blocks)
	}
}

// TestScenariosParse loads the built-in scenarios: they must stay valid as
// the schema and its checks change.
func TestScenariosParse(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "scenarios", "*.yaml"))
	if len(files) == 0 {
		t.Skip("no scenarios found")
	}
	for _, f := range files {
		if _, err := Load(f); err != nil {
			t.Errorf("%v", err)
		}
	}
}
