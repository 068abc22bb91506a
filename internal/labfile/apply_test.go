package labfile_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"

	"github.com/lblab/lblab/internal/labfile"
)

const twoGroups = `servers:
  - count: 3
  - name: slow
    speed: 0.25
`

func TestApply(t *testing.T) {
	l := mustParse(t, twoGroups)
	steps := []struct{ path, value string }{
		{"clients.budget", "0.1"},
		{"clients.hedge", "p99"},
		{"clients.backoff.base", "50ms"},
		{"balancers.breaker.enabled", "true"},
		{"balancers.breaker.window", "40"},
		{"servers[1].queue.discipline", "lifo"},
		{"servers.queue.capacity", "12"},
		{"servers[0].work.mean", "30ms"},
		{"seed", "7"},
		{"network.hop", "0"},
		{"balancers.outlier.enabled", "true"},
		{"balancers.outlier.latency_k", "1.2"},
		{"balancers.slow_start.enabled", "true"},
		{"balancers.slow_start.window", "3s"},
		{"balancers.aperture", "2"},
	}
	for _, s := range steps {
		if err := l.Apply(s.path, s.value); err != nil {
			t.Fatalf("Apply(%s, %s): %v", s.path, s.value, err)
		}
	}
	if l.Clients.Budget != 0.1 || l.Clients.Hedge != "p99" || l.Clients.Backoff.Base != 50*time.Millisecond {
		t.Errorf("clients: %+v", l.Clients)
	}
	if !l.Balancers.Breaker.Enabled || l.Balancers.Breaker.Window != 40 {
		t.Errorf("breaker: %+v", l.Balancers.Breaker)
	}
	if l.Servers[1].Queue.Discipline != "lifo" || l.Servers[0].Queue.Discipline != "fifo" {
		t.Errorf("indexed path: %+v", l.Servers)
	}
	if l.Servers[0].Queue.Capacity != 12 || l.Servers[1].Queue.Capacity != 12 {
		t.Errorf("servers.queue.capacity must set every group: %+v", l.Servers)
	}
	// A server without work of its own starts from the clients' work.
	if w := l.Servers[0].Work; w == nil || w.Kind != "exponential" || w.Mean != 30*time.Millisecond || l.Servers[1].Work != nil {
		t.Errorf("servers[0].work = %+v", l.Servers[0].Work)
	}
	if l.Seed != 7 || l.Network.Hop != 0 {
		t.Errorf("seed %d hop %v", l.Seed, l.Network.Hop)
	}
	if b := l.Balancers; !b.Outlier.Enabled || b.Outlier.LatencyK != 1.2 || !b.SlowStart.Enabled ||
		b.SlowStart.Window != 3*time.Second || b.Aperture != 2 {
		t.Errorf("outlier %+v, slow start %+v, aperture %d", b.Outlier, b.SlowStart, b.Aperture)
	}
}

func TestApplyErrors(t *testing.T) {
	cases := []struct{ path, value, want string }{
		{"clients.rat", "5", `clients.rat: unknown field "rat" in clients; did you mean "rate"? (allowed: mode, rate,`},
		{"cleints.rate", "5", `did you mean "clients"? (allowed: seed, duration, network, clients, balancers, servers)`},
		{"events", "x", `unknown field "events"`},
		{"balancers.breaker.enabledd", "true", `allowed: enabled, window, threshold, open, probes`},
		{"balancers.breaker", "true", "balancers.breaker: breaker is a section; set one of its fields: enabled, window"},
		{"clients.rate.x", "1", "clients.rate: rate is a value, not a section"},
		{"servers[5].speed", "1", "servers[5]: index 5 is out of range: servers has 2 entries (0..1)"},
		{"servers", "1", "servers: servers is a list; set a field"},
		{"clients[0].rate", "1", "clients is not a list"},
		{"clients..rate", "1", "not a path"},
		{"clients.rate", "fast", `clients.rate: want a number, got "fast"`},
		{"clients.rate", "0", "clients.rate: must be in (0, 1000000], got 0"},
		{"clients.timeout", "5", `clients.timeout: want a duration like 50ms`},
		{"balancers.breaker.enabled", "maybe", "want true or false"},
		{"balancers.count", "1.5", "want a whole number"},
		{"servers[1].queue.discipline", "stack", "servers[1].queue.discipline: must be one of fifo, lifo"},
		{"servers.speed", "-1", "must be in (0, 100]"},
		{"balancers.algorithm", "rr", "balancers.algorithm: must be one of round-robin"},
	}
	for _, c := range cases {
		l := mustParse(t, twoGroups)
		before := l.Clone()
		err := l.Apply(c.path, c.value)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Apply(%q, %q) = %v, want %q", c.path, c.value, err, c.want)
		}
		if !reflect.DeepEqual(l, before) {
			t.Errorf("Apply(%q, %q) failed but changed the lab", c.path, c.value)
		}
	}
}

func TestWithSetting(t *testing.T) {
	l := mustParse(t, twoGroups)
	got, err := l.WithSetting(labfile.Setting{Name: "rr", Algorithm: "round-robin",
		Set: map[string]string{"clients.retries": "2", "servers.limiter.kind": "aimd", "servers.limiter.min": "5", "servers.limiter.initial": "10"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Balancers.Algorithm != "round-robin" || got.Clients.Algorithm != "" || got.Clients.Retries != 2 {
		t.Errorf("setting not applied: %+v %+v", got.Balancers, got.Clients)
	}
	if lim := got.Servers[1].Limiter; lim.Kind != "aimd" || lim.Min != 5 || lim.Initial != 10 {
		t.Errorf("limiter: %+v", lim)
	}
	if l.Balancers.Algorithm != "p2c" || l.Clients.Retries != 0 {
		t.Error("WithSetting changed the original lab")
	}

	cs := mustParse(t, "clients: {algorithm: p2c-stale, subset: 2}\n")
	got, err = cs.WithSetting(labfile.Setting{Name: "ll", Algorithm: "least-outstanding"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Clients.Algorithm != "least-outstanding" || got.Balancers.Algorithm != "p2c" {
		t.Errorf("client-side shorthand: clients %q balancers %q", got.Clients.Algorithm, got.Balancers.Algorithm)
	}

	_, err = l.WithSetting(labfile.Setting{Name: "bad", Set: map[string]string{"clients.budget": "3"}})
	var e *labfile.Error
	if !errors.As(err, &e) || e.Field != "clients.budget" || !strings.Contains(err.Error(), `setting "bad"`) {
		t.Errorf("bad setting: %v", err)
	}
	_, err = l.WithSetting(labfile.Setting{Name: "typo", Set: map[string]string{"clients.bugdet": "0.1"}})
	if err == nil || !strings.Contains(err.Error(), `did you mean "budget"`) {
		t.Errorf("typo setting: %v", err)
	}
}

func TestCompareValidation(t *testing.T) {
	cases := []struct{ compare, want string }{
		{"  - {algorithm: random}\n", "lab.yaml:2:6: compare[0].name: every setting needs a name"},
		{"  - {name: a}\n  - {name: a}\n", `lab.yaml:3:12: compare[1].name: name "a" is already used by compare[0]`},
		{"  - {name: a, algorithm: rr}\n", "lab.yaml:2:26: compare[0].algorithm: must be one of round-robin"},
		{"  - name: a\n    set:\n      clients.bugdet: 0.1\n", `lab.yaml:4:7: compare[0].set.clients.bugdet: unknown field "bugdet"`},
		{"  - name: a\n    set:\n      servers[1].speed: 2\n", "lab.yaml:4:7: compare[0].set.servers[1].speed: servers[1]: index 1 is out of range"},
		{"  - name: a\n    set:\n      clients.budget: 2\n", "lab.yaml:4:7: compare[0].set.clients.budget: must be in [0, 1], got 2"},
		{"  - name: a\n    set:\n      servers.speed: 0\n", "lab.yaml:4:7: compare[0].set.servers.speed: must be in (0, 100], got 0"},
		{"  - name: a\n    set:\n      servers.limiter.min: 50\n", "lab.yaml:4:7: compare[0].set.servers.limiter.min: servers[0].limiter.initial: needs 1 <= min <= initial"},
	}
	for _, c := range cases {
		msg := parseErr(t, "compare:\n"+c.compare)
		if !strings.Contains(msg, c.want) {
			t.Errorf("for %q\n got %q\nwant %q", c.compare, msg, c.want)
		}
	}
	// A setting must keep the script valid.
	msg := parseErr(t, "compare:\n  - name: one\n    set: {servers.count: 1}\nevents:\n  - {at: 1s, action: kill, target: s5}\n")
	if !strings.Contains(msg, `lab.yaml:3:5: compare[0].set: events[0].target: no server named "s5"`) {
		t.Errorf("got %q", msg)
	}
	// Entries of one setting apply together: min 50 is fine with initial 60.
	mustParse(t, "compare:\n  - name: a\n    set: {servers.limiter.min: 50, servers.limiter.initial: 60}\n")
}

func TestEventsValidation(t *testing.T) {
	cases := []struct{ events, want string }{
		{"  - {at: 1s, action: explode}\n", `lab.yaml:2:22: events[0].action: must be one of slow, restore`},
		{"  - {at: 2s, action: kill, target: s1}\n  - {at: 1s, action: restart, target: s1}\n", "lab.yaml:3:10: events[1].at: events must be in time order: 1s comes after 2s"},
		{"  - {at: 20s, action: kill, target: s1}\n", "events[0].at: must be before the end of the lab (duration 20s), got 20s"},
		{"  - {at: -1s, action: kill, target: s1}\n", "events[0].at: must be >= 0"},
		{"  - {at: 1s, action: slow, target: s1}\n", "events[0].speed: slow needs speed in (0, 100]"},
		{"  - {at: 1s, action: slow, speed: 0.5}\n", "events[0].target: action slow needs a target: a server name (s1, s2, s3, s4, s5) or all"},
		{"  - {at: 1s, action: kill, target: s6}\n", `events[0].target: no server named "s6" at 1s; servers then: s1, s2, s3, s4, s5, or all`},
		{"  - {at: 1s, action: gc, target: s1}\n", "events[0].pause: gc needs pause in (0s, 1h]"},
		{"  - {at: 1s, action: errors, target: s1, share: 2}\n", "events[0].share: must be in [0, 1], got 2"},
		{"  - {at: 1s, action: rate, rate: -5}\n", "events[0].rate: must be in [0, 1000000]"},
		{"  - {at: 1s, action: algorithm, algorithm: fastest}\n", "events[0].algorithm: must be one of round-robin"},
		{"  - {at: 1s, action: algorithm, algorithm: maglev}\n", "events[0].algorithm: balancers.aperture: works with the algorithms that draw random choices"},
		{"  - {at: 1s, action: kill, target: s1, speed: 2}\n", "lab.yaml:2:47: events[0].speed: is not used by action kill (it takes target)"},
		{"  - {at: 1s, action: set}\n", "events[0].set: needs at least one dotted path"},
		{"  - at: 1s\n    action: set\n    set: {clients.retries: 20}\n", "lab.yaml:4:11: events[0].set.clients.retries: must be between 0 and 10, got 20"},
		{"  - {at: 1s, action: remove-server, target: all}\n", "events[0].target: remove-server takes one server name"},
		{"  - {at: 1s, action: add-server, target: s2}\n", `events[0].target: server "s2" already exists`},
		{"  - {at: 1s, action: remove-server, target: s5}\n  - {at: 2s, action: kill, target: s5}\n", `events[1].target: no server named "s5" at 2s`},
		{"  - {at: 1s, action: kill, target: s7}\n  - {at: 2s, action: add-server}\n", `events[0].target: no server named "s7"`},
	}
	for _, c := range cases {
		src := "events:\n" + c.events
		if strings.Contains(c.events, "maglev") {
			src = "balancers: {aperture: 2}\n" + src // an aperture needs a random-choice algorithm
		}
		msg := parseErr(t, src)
		if !strings.Contains(msg, c.want) {
			t.Errorf("for %q\n got %q\nwant %q", c.events, msg, c.want)
		}
	}
	// Servers added by earlier events can be targeted; "all" reaches everyone.
	l := mustParse(t, `events:
  - {at: 1s, action: add-server}
  - {at: 2s, action: slow, target: s6, speed: 0.5}
  - {at: 3s, action: add-server, target: big}
  - {at: 4s, action: kill, target: all}
  - {at: 5s, action: remove-server, target: big}
  - {at: 6s, action: add-server}
`)
	if l.Events[0].Target != "s6" || l.Events[5].Target != "s8" {
		t.Errorf("generated add-server names: %q, %q", l.Events[0].Target, l.Events[5].Target)
	}
}

func TestExpandServers(t *testing.T) {
	l := mustParse(t, `servers:
  - count: 2
  - name: slow
    speed: 0.25
    work: {dist: constant, mean: 5ms}
  - count: 2
    workers: 4
  - count: 1
`)
	got := l.ExpandServers()
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if want := []string{"s1", "s2", "slow", "s4", "s5", "s6"}; !reflect.DeepEqual(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if got[2].Speed != 0.25 || got[3].Workers != 4 || got[0].Workers != 1 {
		t.Errorf("settings not carried: %+v", got)
	}
	got[2].Work.Mean = time.Second
	if l.Servers[1].Work.Mean != 5*time.Millisecond {
		t.Error("ExpandServers shares Work with the lab")
	}
	if d := l.ServerWork(l.Servers[1].Server); d != (rng.Constant{Value: 5 * time.Millisecond}) {
		t.Errorf("own work: %v", d)
	}
	if d := l.ServerWork(l.Servers[0].Server); d != (rng.Exponential{Avg: 10 * time.Millisecond}) {
		t.Errorf("clients' work: %v", d)
	}
}

func TestDistBuild(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		d    labfile.Dist
		want string
	}{
		{labfile.Dist{Kind: "constant", Mean: 4 * ms}, "constant 4ms"},
		{labfile.Dist{Kind: "exponential", Mean: 10 * ms}, "exponential mean 10ms"},
		{labfile.Dist{Mean: 10 * ms}, "exponential mean 10ms"},
		{labfile.Dist{Kind: "lognormal", Mean: 60 * ms, CV: 1.5}, "lognormal mean 60ms cv 1.5"},
		{labfile.Dist{Kind: "mixture", Mix: []labfile.MixPart{{0.7, 4 * ms}, {0.3, 10 * ms}}}, "mixture of 2 values"},
	}
	for _, c := range cases {
		got, err := c.d.Build()
		if err != nil || got.String() != c.want {
			t.Errorf("%+v.Build() = %v, %v; want %s", c.d, got, err, c.want)
		}
	}
	for _, bad := range []labfile.Dist{{Kind: "gamma", Mean: ms}, {Kind: "constant"}, {Kind: "mixture"}, {Kind: "mixture", Mix: []labfile.MixPart{{0, ms}}}, {Kind: "mixture", Mix: []labfile.MixPart{{1, 0}}}} {
		if _, err := bad.Build(); err == nil {
			t.Errorf("%+v.Build() succeeded", bad)
		}
	}
	m, _ := labfile.Dist{Kind: "mixture", Mix: []labfile.MixPart{{0.5, 4 * ms}, {0.5, 10 * ms}}}.Build()
	if m.Mean() != 7*ms {
		t.Errorf("mixture mean %v", m.Mean())
	}
}

func TestClone(t *testing.T) {
	l := mustParse(t, fullExample)
	c := l.Clone()
	if !reflect.DeepEqual(l, c) {
		t.Fatal("clone differs")
	}
	c.Servers[1].Work.Mix[0].P = 0.9
	c.Compare[1].Set["clients.budget"] = "0.9"
	c.Events[13].Set["clients.retries"] = "9"
	c.Clients.Work.Mean = time.Hour
	c.Servers[0].Workers = 99
	if l.Servers[1].Work.Mix[0].P != 0.7 || l.Compare[1].Set["clients.budget"] != "0.2" ||
		l.Events[13].Set["clients.retries"] != "1" || l.Servers[0].Workers != 4 {
		t.Error("clone shares memory with the original")
	}
	if (*labfile.Lab)(nil).Clone() != nil {
		t.Error("nil clone")
	}
}

func TestValidateInCode(t *testing.T) {
	ev := labfile.Default()
	ev.Events = []labfile.Event{{At: time.Second, Action: "add-server"}}
	if err := ev.Validate(); err == nil || !strings.Contains(err.Error(), "events[0].target: add-server needs the new server's name") {
		t.Errorf("unnamed add-server built in code: %v", err)
	}

	l := labfile.Default()
	l.Clients.Rate = 0
	l.Servers[0].Speed = 200
	err := l.Validate()
	var es labfile.Errors
	if !errors.As(err, &es) || len(es) != 2 || es[0].Line != 0 {
		t.Fatalf("got %v", err)
	}
	if es[0].Error() != "clients.rate: must be in (0, 1000000], got 0" {
		t.Errorf("got %q", es[0].Error())
	}
}
