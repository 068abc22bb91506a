package proxies

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// An external tier is checked against its proxy's table: an algorithm it
// lacks is refused at its line and column naming those it has, and so is
// every setting it cannot honour; the mapped ones pass.
func TestExternalKindChecks(t *testing.T) {
	base := "name: x\nbalancers:\n  kind: %s\n  algorithm: %s\n%s"
	cases := []struct {
		kind, algorithm, extra string
		want                   []string // "" = valid
	}{
		{"haproxy", "least-outstanding", "", nil},
		{"nginx", "p2c", "", nil},
		{"caddy", "round-robin", "", nil},
		{"lb", "p2c-peak-ewma", "", nil},
		{"haproxy", "p2c-peak-ewma", "", []string{"x.yaml:4:14", "balancers.algorithm", "haproxy has no \"p2c-peak-ewma\"", "round-robin, weighted-round-robin, random, least-outstanding, p2c, ring-hash, ring-hash-bounded, wrr-orca"}},
		{"caddy", "ring-hash", "", []string{"x.yaml:4:14", "caddy has no \"ring-hash\"", "round-robin, random, least-outstanding, p2c"}},
		{"nginx", "p2c-peak-ewma", "", []string{"nginx has no \"p2c-peak-ewma\" (the nearest it has: least-outstanding, least_conn); the algorithms"}},
		{"caddy", "weighted-round-robin", "", []string{"caddy has no \"weighted-round-robin\" (the nearest it has: round-robin, lb_policy round_robin)"}},
		{"haproxy", "weighted-round-robin", "", nil},
		{"nginx", "weighted-round-robin", "", nil},
		{"haproxy", "ring-hash-bounded", "", nil},
		{"nginx", "ring-hash-bounded", "", []string{"nginx has no \"ring-hash-bounded\" (the nearest it has: ring-hash, hash $http_x_lab_key consistent)"}},
		{"caddy", "maglev", "", []string{"caddy has no \"maglev\"; the algorithms it maps"}}, // nor ring hashing
		// wrr-orca: HAProxy asks each server its weight (agent-check); the
		// others cannot, and say why and what comes nearest (through Caddy,
		// which has no weights at all, the nearest of the nearest)
		{"haproxy", "wrr-orca", "", nil},
		{"haproxy", "round-robin", "events:\n  - {at: 1s, action: algorithm, algorithm: wrr-orca}\n  - {at: 2s, action: set, set: {balancers.orca.weight_update_period: 200ms}}\n", nil},
		{"haproxy", "wrr-orca", "events:\n  - {at: 1s, action: set, set: {balancers.orca.blackout_period: 1s}}\n", []string{"events[0].set.balancers.orca.blackout_period", "HAProxy's configuration has no such setting"}},
		{"nginx", "wrr-orca", "", []string{"x.yaml:4:14", "nginx has no \"wrr-orca\": its weights come from the servers' own load reports, and of the proxies only HAProxy takes a weight from a server (its agent check) (the nearest it has: weighted-round-robin, its default, the servers weighted by their speeds); the algorithms it maps"}},
		{"caddy", "wrr-orca", "", []string{"caddy has no \"wrr-orca\": its weights come from the servers' own load reports", "(the nearest it has: round-robin, lb_policy round_robin)"}},
		// drop_expired by the balancer's timeout: a proxy passes the servers
		// no deadline; by a client's no later than it, the attempt carries it
		{"haproxy", "least-outstanding", "  timeout: 200ms\nservers:\n  - {count: 5, drop_expired: true}\n", []string{"x.yaml:6:", "servers.drop_expired: kind haproxy cannot honour it", "set clients.attempt_timeout"}},
		{"caddy", "least-outstanding", "  timeout: 200ms\nclients: {attempt_timeout: 200ms}\nservers:\n  - {count: 5, drop_expired: true}\n", nil},
		{"nginx", "least-outstanding", "  timeout: 200ms\nclients: {timeout: 300ms}\nservers:\n  - {count: 5, drop_expired: true}\n", []string{"servers.drop_expired"}},
		{"nginx", "least-outstanding", "servers:\n  - {count: 5, drop_expired: true}\n", nil},
		{"haproxy", "p2c", "  breaker: {enabled: true}\n", nil},
		{"nginx", "least-outstanding", "  breaker: {enabled: true, window: 30}\n", nil},
		{"nginx", "p2c", "  health: {enabled: true}\n", []string{"balancers.health.enabled", "no active health checks"}},
		{"nginx", "p2c", "  choices: 3\n", []string{"balancers.choices", "draws two"}},
		{"haproxy", "p2c", "  count: 2\n", []string{"balancers.count"}},
		{"haproxi", "p2c", "", []string{"x.yaml:3:9", "balancers.kind", "did you mean \"haproxy\""}},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: algorithm, algorithm: p2c}\n", nil},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: algorithm, algorithm: maglev}\n", []string{"events[0]", "kind nginx has no \"maglev\""}},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: set, set: {balancers.timeout: 1s}}\n  - {at: 2s, action: add-server}\n  - {at: 3s, action: remove-server, target: s1}\n", nil},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: set, set: {balancers.decay: 2s}}\n", []string{"x.yaml:6:", "events[0].set.balancers.decay", "nginx's configuration has no such setting", "balancers.algorithm, balancers.timeout, balancers.choices, balancers.hash_on, balancers.breaker.* ("}},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: set, set: {balancers.count: 2}}\n", []string{"events[0].set.balancers.count: is fixed for a run ("}},
		{"nginx", "round-robin", "events:\n  - {at: 1s, action: slow, target: s1, speed: 0.5}\n", nil},
	}
	for _, c := range cases {
		_, err := labyaml.Parse("x.yaml", []byte(strings.ReplaceAll(
			strings.Replace(strings.Replace(strings.Replace(base, "%s", c.kind, 1), "%s", c.algorithm, 1), "%s", c.extra, 1), "\t", "")))
		switch {
		case c.want == nil && err != nil:
			t.Errorf("%s %s %q: %v, want valid", c.kind, c.algorithm, c.extra, err)
		case c.want != nil && err == nil:
			t.Errorf("%s %s %q: valid, want an error with %q", c.kind, c.algorithm, c.extra, c.want)
		case c.want != nil:
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s %s %q: %v\nwant it to contain %q", c.kind, c.algorithm, c.extra, err, w)
				}
			}
		}
	}
}

// Every proxy's directives fill in the lab's hash header and choices.
func TestProxyDirective(t *testing.T) {
	b := &labfile.Balancers{Choices: 3, HashOn: labfile.HashClient}
	for kind, want := range map[string][2]string{
		"haproxy": {"balance random(3)", "balance hdr(X-Lab-Client)\nhash-type consistent"},
		"nginx":   {"random two least_conn", "hash $http_x_lab_client consistent"},
	} {
		p, _ := ByKind(kind)
		if d, _ := p.Directive("p2c", b); d != want[0] {
			t.Errorf("%s p2c: %q, want %q", kind, d, want[0])
		}
		if d, _ := p.Directive("ring-hash", b); d != want[1] {
			t.Errorf("%s ring-hash: %q, want %q", kind, d, want[1])
		}
	}
}

// Behind an external proxy the drills on the balancer tier its
// configuration can take are checked as lb's (they rewrite it and reload
// the proxy), a set of a balancers setting it lacks is refused, naming
// those it takes, on the running lab too (the dashboard's and lab chaos's
// drills); behind kind: command every drill on the tier is refused.
func TestExternalDrills(t *testing.T) {
	l := labfile.Default()
	if err := l.Apply("balancers.kind", "haproxy"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []labfile.Event{{Action: labfile.ActionSet, Set: map[string]string{"balancers.timeout": "1s", "clients.retries": "1"}},
		{Action: labfile.ActionSet, Set: map[string]string{"balancers.health.enabled": "true"}},
		{Action: labfile.ActionAddServer, Target: "s6"}, {Action: labfile.ActionRemoveServer, Target: "s2"},
		{Action: "slow", Target: "s2", Speed: 0.25}, {Action: labfile.ActionAlgorithm, Algorithm: "round-robin"}} {
		if err := l.CheckDrill(&ev); err != nil {
			t.Errorf("%s: %v", ev, err)
		}
	}
	ev := labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"balancers.decay": "2s"}}
	if err := l.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "set.balancers.decay: kind haproxy: HAProxy's configuration has no such setting") ||
		!strings.Contains(err.Error(), "balancers.timeout, balancers.choices, balancers.hash_on, balancers.health.*") {
		t.Errorf("set balancers.decay: %v, want HAProxy's refusal naming what it takes", err)
	}
	ev = labfile.Event{Action: labfile.ActionAlgorithm, Algorithm: "least-latency"}
	if err := l.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "kind haproxy has no") {
		t.Errorf("algorithm least-latency: %v, want HAProxy's refusal", err)
	}
	// a server dropping expired work by the balancer's timeout drops nothing behind a proxy
	timed := l.Clone()
	if err := timed.Apply("balancers.timeout", "200ms"); err != nil {
		t.Fatal(err)
	}
	ev = labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"servers.drop_expired": "true"}}
	if err := timed.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "set.servers.drop_expired: kind haproxy cannot honour it") {
		t.Errorf("set servers.drop_expired behind HAProxy with balancers.timeout: %v, want a refusal", err)
	}
	nginx := labfile.Default()
	if err := nginx.Apply("balancers.kind", "nginx"); err != nil {
		t.Fatal(err)
	}
	ev = labfile.Event{Action: labfile.ActionSet, Set: map[string]string{"balancers.health.interval": "2s"}}
	if err := nginx.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "nginx's configuration has no such setting") {
		t.Errorf("nginx set balancers.health.interval: %v, want a refusal", err)
	}
	cmd := labfile.Default()
	cmd.Balancers.Kind = KindCommand
	cmd.Balancers.Command = labfile.ExternalCommand{Run: "myproxy {{.Config}}", Config: "listen {{.Listen}}"}
	for _, ev := range []labfile.Event{{Action: labfile.ActionSet, Set: map[string]string{"balancers.timeout": "1s"}},
		{Action: labfile.ActionAddServer, Target: "s6"}, {Action: labfile.ActionAlgorithm, Algorithm: "round-robin"}} {
		if err := cmd.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "configuration is your own") {
			t.Errorf("kind command %s: %v, want a refusal", ev.Action, err)
		}
	}
}

// docs/external.md's mapping table is the one proxies.All declares,
// row for row, and so is its list of refused settings.
func TestExternalDocs(t *testing.T) {
	data, err := os.ReadFile("../../docs/external.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	if want := Table(); !strings.Contains(doc, want) {
		t.Errorf("docs/external.md lacks the algorithm table as proxies.All has it:\n%s", want)
	}
	for _, x := range externalRefusals {
		if !strings.Contains(doc, "| `"+x.Path+"` | "+x.Why+" |") {
			t.Errorf("docs/external.md does not list %s as refused (%s)", x.Path, x.Why)
		}
	}
	for _, p := range All {
		if row := "| " + p.Name + " | `" + strings.ReplaceAll(p.settingNames(), ", ", "`, `") + "` |"; !strings.Contains(doc, row) {
			t.Errorf("docs/external.md lacks what a set may change behind %s: %s", p.Name, row)
		}
		for _, x := range p.Refuses {
			if !strings.Contains(doc, "| `"+x.Path+"` ("+p.Name+") | "+x.Why+" |") {
				t.Errorf("docs/external.md does not list %s as refused by %s (%s)", x.Path, p.Name, x.Why)
			}
		}
	}
}

// kind: command takes the user's configuration and command line, both
// templates checked at their line on a lab's data, and refuses what no
// external proxy honours; balancers.command is for that kind only.
func TestExternalCommandChecks(t *testing.T) {
	good := "name: x\nbalancers:\n  kind: command\n  algorithm: p2c-peak-ewma\n  command:\n    run: myproxy -c {{.Config}}\n    config: |\n      listen {{.Listen}}\n      {{range .Servers}}server {{.Name}} {{.Addr}}\n      {{end}}\n"
	l, err := labyaml.Parse("x.yaml", []byte(good))
	if err != nil {
		t.Fatalf("a valid kind: command: %v", err)
	}
	if p, ok := Of(l); !ok || p.Binary != "myproxy" {
		t.Errorf("External: %+v %v, want the program myproxy", p, ok)
	}
	for bad, want := range map[string]string{
		"name: x\nbalancers:\n  kind: command\n":                                                                                  "balancers.command.run: kind command needs the command line",
		"name: x\nbalancers:\n  kind: command\n  command: {run: p}\n":                                                             "balancers.command.config: kind command needs",
		"name: x\nbalancers:\n  kind: command\n  command: {run: p, config: \"{{.Nope}}\"}\n":                                      "x.yaml:4:29: balancers.command.config: template: config:1:2: there is no field Nope",
		"name: x\nbalancers:\n  kind: command\n  command: {run: p, config: \"{{range .Servers}}{{.Adr}}{{end}}\"}\n":              "balancers.command.config: template: config:1:20: there is no field Adr",
		"name: x\nbalancers:\n  kind: command\n  command: {run: p, config: \"{{nope 1}}\"}\n":                                     "function \"nope\" not defined",
		"name: x\nbalancers:\n  kind: command\n  command: {run: \"p {{.Listen\", config: c}\n":                                    "balancers.command.run",
		"name: x\nbalancers:\n  kind: command\n  breaker: {enabled: true}\n  command: {run: p, config: c}\n":                      "kind command cannot honour it",
		"name: x\nbalancers:\n  kind: nginx\n  command: {run: p, config: c}\n":                                                    "balancers.command: is for kind: command",
		"name: x\nbalancers:\n  command: {run: p, config: c}\n":                                                                   "balancers.command: is for kind: command",
		"name: ok\nbalancers:\n  kind: command\n  command: {run: \"proxy \\e -f {{.Config}}\", config: \"listen {{.Listen}}\"}\n": "balancers.command.run: holds the control character U+001B at byte 6",
	} {
		_, err := labyaml.Parse("x.yaml", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", bad, err, want)
		}
	}
}

// A field the template is not given is refused wherever it stands: also
// when a field it is given follows it in a chain ((.Nope).Listen).
func TestCommandTemplateChains(t *testing.T) {
	if err := checkTemplate("config", "{{(.Servers).Nope.Addr}}"); err == nil || !strings.Contains(err.Error(), "no field Nope") {
		t.Errorf("a chain with an unknown field: %v", err)
	}
	if err := checkTemplate("config", "{{with $s := .Servers}}{{$s.Nope}}{{end}}"); err == nil || !strings.Contains(err.Error(), "no field Nope") {
		t.Errorf("a variable's unknown field: %v", err)
	}
	if err := checkTemplate("config", "{{range $i, $s := .Servers}}{{$s.Addr}} {{(index $.Servers 0).Name}}{{end}}"); err != nil {
		t.Errorf("fields it is given: %v", err)
	}
}

// The nearest a refusal suggests is for an algorithm of lblab's that some
// proxy lacks, and is one such a proxy has.
func TestExternalNearest(t *testing.T) {
	for from, to := range nearest {
		if !slices.Contains(labfile.Algorithms, from) {
			t.Errorf("nearest: %q is not a lblab algorithm", from)
		}
		used := false
		for _, p := range All {
			used = used || !slices.Contains(p.AlgorithmNames(), from) && slices.Contains(p.AlgorithmNames(), to)
		}
		if !used {
			t.Errorf("nearest: %s -> %s, but no proxy lacks %s and has %s", from, to, from, to)
		}
	}
}

// The proxies' weights keep the speeds' ratios in HAProxy's 1..256, and
// hash-balance-factor is epsilon as a percentage of the mean, over 100.
func TestWeightsAndFactor(t *testing.T) {
	for _, c := range []struct {
		speeds []float64
		want   []int
	}{
		{[]float64{2, 2, 1, 1}, []int{256, 256, 128, 128}},
		{[]float64{1, 0.25, 0}, []int{256, 64, 256}}, // 0: no speed given, as 1
		{[]float64{1000, 1}, []int{256, 1}},          // never 0: HAProxy's 0 takes a server out
		{[]float64{0.4, 1, 1, 1, 1}, []int{102, 256, 256, 256, 256}},
	} {
		if got := Weights(c.speeds); !slices.Equal(got, c.want) {
			t.Errorf("Weights(%v) = %v, want %v", c.speeds, got, c.want)
		}
	}
	for eps, want := range map[float64]int{0.25: 125, 1: 200, 0.001: 101, 10: 1100} {
		if got := HashBalanceFactor(eps); got != want {
			t.Errorf("HashBalanceFactor(%v) = %d, want %d", eps, got, want)
		}
	}
}
