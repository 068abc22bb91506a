// Package proxies is what lblab knows of the real proxies it can run in
// the lb's place (balancers.kind: haproxy, nginx, caddy, or command, a
// proxy of the user's own): each one's program and Debian package, how
// lblab's algorithms map to its directives, which of a lab's settings and
// drills it cannot honour, and the configuration lab writes for it.
// internal/lab runs them; labfile knows none of them: this package hands
// it the kinds and the checks (labfile.UseTiers) when it is linked, so the
// refusals keep the lab file's line and column.
package proxies

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/labfile"
)

// An external balancer tier (balancers.kind: haproxy | nginx | caddy) runs
// a real proxy in the lb's place in lab run and lab up. All is the one
// declaration of what each proxy is: its binary and Debian package, how
// lblab's algorithms map to its own, which of the lab's balancer settings
// it cannot honour, and its configuration's writer (config.go). The kinds
// labfile takes and its checks (check, checkScript, handed over below),
// lab's messages and the docs check (docs/external.md's tables) are
// derived from it.

// KindCommand is balancers.kind for a proxy of the user's own
// (balancers.command); lblab's own lb is labfile.KindLB.
const KindCommand = "command"

func init() {
	kinds := make([]string, 0, len(All)+1)
	for _, p := range All {
		kinds = append(kinds, p.Kind)
	}
	labfile.UseTiers(labfile.Tiers{Kinds: append(kinds, KindCommand), Check: check, Script: checkScript})
}

// Proxy is one external proxy lblab can put in the lb's place.
type Proxy struct {
	Kind    string // the balancers.kind value
	Name    string // how the docs and messages name it
	Binary  string // the program looked up on PATH
	Package string // the Debian package that installs it
	// Algorithms maps a lblab algorithm to the proxy's own, as the text
	// the configuration carries. "{key}" stands for the hashed header in
	// the proxy's syntax (KeyHeader), "{choices}" for balancers.choices,
	// "{factor}" for balancers.epsilon as a percentage of the mean load
	// (HashBalanceFactor); an entry without "{choices}" draws two (p2c) or
	// one (random). "" is the proxy's default (no directive).
	Algorithms []Algorithm
	// Header writes a request header's name as the proxy's configuration
	// names its value (for hash keys).
	Header func(name string) string
	// Weight is a server line's weight in the proxy's syntax, a format
	// of one whole number (for the Weighted algorithms).
	Weight string
	// Agent is a server line's agent check in the proxy's syntax (for the
	// Agent algorithms): "{weight}" stands for the initial weight the
	// answers are a percentage of (load.AgentInitialWeight), "{port}" for
	// the server's agent port, "{inter}" for how often the proxy asks
	// (AgentInterval).
	Agent string
	// Refuses are the lab's settings this proxy cannot honour, besides
	// those no external proxy honours (externalRefusals).
	Refuses []Refusal
	// File is its configuration's name in its directory, and write writes
	// the configuration and its program's arguments (config.go).
	File  string
	write func(Proxy, Config) (string, []string)
	// Settings are the balancers settings its configuration is written
	// from (a path, or a prefix ending in "."): a set drill on one of them
	// rewrites the configuration and reloads the proxy; a set of any other
	// balancers setting is refused behind it, as it would change nothing.
	Settings []string
}

// Algorithm is one lblab algorithm and the proxy's directive for it.
// Weighted: the configuration gives each server a weight, its speed in
// the lab (Weights), as lb's weighted round robin weighs it. Agent:
// the servers weigh themselves instead, answering the proxy's agent check
// from their own load reports (HAProxy's agent-check; the backend's
// --agent): each server line carries the proxy's Agent text.
type Algorithm struct {
	Algorithm string
	Directive string
	Weighted  bool
	Agent     bool
}

// Refusal is a setting an external proxy does not have: the dotted path it
// is reported at, whether the lab uses it, and why it is refused.
type Refusal struct {
	Path string
	Used func(l *labfile.Lab) bool
	Why  string
}

// All are the external proxies, in the order the docs list them.
var All = []Proxy{
	{
		Kind: "haproxy", Name: "HAProxy", Binary: "haproxy", Package: "haproxy", File: "haproxy.cfg", write: writeHAProxy,
		Algorithms: []Algorithm{
			{"round-robin", "balance roundrobin", false, false},
			{"weighted-round-robin", "balance roundrobin", true, false},
			{"random", "balance random(1)", false, false},
			{"least-outstanding", "balance leastconn", false, false},
			{"p2c", "balance random({choices})", false, false},
			{"ring-hash", "balance hdr({key})\nhash-type consistent", false, false},
			{"ring-hash-bounded", "balance hdr({key})\nhash-type consistent\nhash-balance-factor {factor}", false, false},
			{Algorithm: "wrr-orca", Directive: "balance roundrobin", Agent: true},
		},
		Header: func(name string) string { return name },
		Weight: "weight %d",
		Agent:  "weight {weight} agent-check agent-port {port} agent-inter {inter}",
		Settings: []string{"balancers.algorithm", "balancers.timeout", "balancers.choices", "balancers.hash_on", "balancers.health.", "balancers.breaker.", "balancers.epsilon",
			"balancers.orca.weight_update_period"},
	},
	{
		Kind: "nginx", Name: "nginx", Binary: "nginx", Package: "nginx", File: "nginx.conf", write: writeNginx,
		Algorithms: []Algorithm{
			{"round-robin", "", false, false},
			{"weighted-round-robin", "", true, false},
			{"random", "random", false, false},
			{"least-outstanding", "least_conn", false, false},
			{"p2c", "random two least_conn", false, false},
			{"ring-hash", "hash {key} consistent", false, false},
		},
		Header:   func(name string) string { return "$http_" + strings.ToLower(strings.ReplaceAll(name, "-", "_")) },
		Weight:   "weight=%d",
		Settings: []string{"balancers.algorithm", "balancers.timeout", "balancers.choices", "balancers.hash_on", "balancers.breaker."},
		Refuses: []Refusal{{Path: "balancers.health.enabled", Used: func(l *labfile.Lab) bool { return l.Balancers.Health.Enabled },
			Why: "open-source nginx has no active health checks (only passive max_fails, which lblab turns off)"}},
	},
	{
		Kind: "caddy", Name: "Caddy", Binary: "caddy", Package: "caddy", File: "Caddyfile", write: writeCaddy,
		Algorithms: []Algorithm{
			{"round-robin", "lb_policy round_robin", false, false},
			{"random", "lb_policy random", false, false},
			{"least-outstanding", "lb_policy least_conn", false, false},
			{"p2c", "lb_policy random_choose {choices}", false, false},
		},
		Header:   func(name string) string { return name },
		Settings: []string{"balancers.algorithm", "balancers.timeout", "balancers.choices", "balancers.health.", "balancers.breaker."},
		Refuses: []Refusal{{Path: "balancers.health", Used: func(l *labfile.Lab) bool {
			h := l.Balancers.Health
			return h.Enabled && (h.Fails != 1 || h.Passes != 1)
		}, Why: "Caddy 2.6's active checks mark a server down or up on one check: set fails: 1 and passes: 1"}},
	},
}

// externalRefusals are the settings no external proxy honours: lblab's
// own mechanisms the proxies lack or configure differently.
var externalRefusals = []Refusal{
	{"balancers.count", func(l *labfile.Lab) bool { return l.Balancers.Count != 1 }, "an external tier is one proxy process: set count: 1"},
	{"balancers.load", func(l *labfile.Lab) bool { return l.Balancers.Load == labfile.SharedLoad }, "the proxies do not share load reports"},
	{"balancers.subset", func(l *labfile.Lab) bool { return l.Balancers.Subset > 0 }, "the proxy balances over every server"},
	{"balancers.aperture", func(l *labfile.Lab) bool { return l.Balancers.Aperture > 0 || l.Balancers.ApertureLoad > 0 }, "the proxies have no aperture"},
	{"balancers.breaker.enabled", func(l *labfile.Lab) bool { return l.Balancers.Breaker.Enabled && l.Balancers.Kind == KindCommand },
		"kind command: lab writes no breaker into a configuration of your own (behind HAProxy, nginx and Caddy it is their passive health checks)"},
	{"balancers.outlier.enabled", func(l *labfile.Lab) bool { return l.Balancers.Outlier.Enabled }, "lblab's outlier ejection is the lb's own"},
	{"balancers.locality.policy", func(l *labfile.Lab) bool {
		return l.Balancers.Locality.Policy != "" && l.Balancers.Locality.Policy != balance.LocalityNone
	}, "lblab's locality layer is the lb's own (the proxies know no zones)"},
	{"balancers.slow_start.enabled", func(l *labfile.Lab) bool { return l.Balancers.SlowStart.Enabled }, "lblab's slow start ramp is the lb's own"},
	{"clients.algorithm", func(l *labfile.Lab) bool { return l.Clients.Algorithm != "" }, "clients that balance themselves use no balancer tier"},
	{"network.tls", func(l *labfile.Lab) bool { return l.Network.TLS }, "the lab does not give the proxies its certificate"},
	{"network.handshake", func(l *labfile.Lab) bool { return !l.Network.Handshake.Zero() }, "the proxies do not emulate the cost of opening a connection"},
	{"network.max_conns", func(l *labfile.Lab) bool { return l.Network.MaxConns > 0 }, "the proxies' connection pools are their own"},
	{"servers.drop_expired", dropsBalancerDeadline,
		"the proxies do not pass balancers.timeout on to the servers as their deadline (X-Lab-Deadline, as lb does), so a server would drop nothing: set clients.attempt_timeout to balancers.timeout, or use kind: lb"},
}

// dropsBalancerDeadline says whether a server of the lab drops expired
// work by a deadline only the balancer's timeout sets: one lb writes into
// the attempt (X-Lab-Deadline) and a proxy does not. With a client's
// deadline no later than the balancer's (clients.attempt_timeout or
// clients.timeout), the attempt carries it through the proxy.
func dropsBalancerDeadline(l *labfile.Lab) bool {
	if l.Balancers.Timeout <= 0 || !slices.ContainsFunc(l.Servers, func(g labfile.ServerGroup) bool { return g.DropExpired }) {
		return false
	}
	for _, d := range []time.Duration{l.Clients.AttemptTimeout, l.Clients.Timeout} {
		if d > 0 && d <= l.Balancers.Timeout {
			return false
		}
	}
	return true
}

// nearest is, for a lblab algorithm some proxy lacks, the one it may have
// that comes closest to it: what a refusal suggests instead.
var nearest = map[string]string{
	"weighted-round-robin": "round-robin", // Caddy 2.6 has no weights: every server alike
	"least-latency":        "least-outstanding",
	"least-response-time":  "least-outstanding",
	"p2c-peak-ewma":        "least-outstanding",
	"p2c-latency-load":     "least-outstanding",
	"ring-hash-bounded":    "ring-hash",
	"maglev":               "ring-hash",
	"wrr-orca":             "weighted-round-robin", // weights fixed in the configuration: the speeds, not the reports
}

// lacking says why a proxy that lacks an algorithm cannot have it, where
// the reason is not simply that the proxy has no such directive.
var lacking = map[string]string{
	"wrr-orca": "its weights come from the servers' own load reports, and of the proxies only HAProxy takes a weight from a server (its agent check)",
}

// ByKind returns the external proxy of kind ("" and lb are lblab's own).
func ByKind(kind string) (Proxy, bool) {
	for _, p := range All {
		if p.Kind == kind {
			return p, true
		}
	}
	return Proxy{}, false
}

// Of is the proxy that runs the lab's balancer tier, if an external one
// does. kind: command's is the program its command line starts, with no
// algorithm table (its configuration is the user's).
func Of(l *labfile.Lab) (Proxy, bool) {
	if l.Balancers.Kind == KindCommand {
		bin := ""
		if f := strings.Fields(l.Balancers.Command.Run); len(f) > 0 {
			bin = f[0]
		}
		return Proxy{Kind: KindCommand, Name: bin, Binary: bin, Package: "the package that has " + bin}, true
	}
	return ByKind(l.Balancers.Kind)
}

// CommandData is what kind: command's templates are given.
type CommandData struct {
	Listen, Stats string // 127.0.0.1:PORT: the traffic address, and a second free one (for a stats page)
	ListenHost    string // 127.0.0.1
	ListenPort    string
	StatsPort     string
	Dir           string // the proxy's own directory (pid files, sockets, logs)
	Config        string // the path its configuration is written at
	Servers       []CommandServer
	Algorithm     string // balancers.algorithm as the lab names it
	TimeoutMs     int64  // balancers.timeout in milliseconds (0 = none)
}

// CommandServer is one server of the lab.
type CommandServer struct{ Name, Addr, Host, Port string }

// validateCommand checks kind: command: a command line and a
// configuration, both templates that execute on a lab's data.
func validateCommand(l *labfile.Lab, refuse labfile.Refuse) {
	c := l.Balancers.Command
	switch {
	case strings.TrimSpace(c.Run) == "":
		refuse("balancers.command.run", "kind command needs the command line that starts the proxy, e.g. haproxy -db -f {{.Config}}")
	case strings.TrimSpace(c.Config) == "":
		refuse("balancers.command.config", "kind command needs the proxy's configuration, a template of {{.Listen}}, {{range .Servers}}{{.Addr}}{{end}}, ...")
	default:
		if err := checkTemplate("config", c.Config); err != nil {
			refuse("balancers.command.config", "%v", err)
		}
		if err := checkTemplate("run", c.Run); err != nil {
			refuse("balancers.command.run", "%v", err)
		}
	}
	if strings.ContainsAny(c.File, "/\\") || c.File == ".." {
		refuse("balancers.command.file", "a file name in the proxy's directory, got %q", c.File)
	}
	for _, f := range []struct {
		field, text string
		lines       bool
	}{{"config", c.Config, true}, {"run", c.Run, true}, {"file", c.File, false}} {
		if msg := labfile.CheckPrintable(f.text, f.lines); msg != "" {
			refuse("balancers.command."+f.field, "%s", msg)
		}
	}
}

// Directive is the proxy's configuration text for algorithm, with the
// lab's hash header and choices filled in; ok is false when the proxy
// lacks it.
func (p Proxy) Directive(algorithm string, b *labfile.Balancers) (string, bool) {
	for _, a := range p.Algorithms {
		if a.Algorithm == algorithm {
			key := "X-Lab-Key"
			if b.HashOn == labfile.HashClient {
				key = "X-Lab-Client"
			}
			d := strings.ReplaceAll(a.Directive, "{key}", p.Header(key))
			d = strings.ReplaceAll(d, "{factor}", fmt.Sprint(HashBalanceFactor(b.Epsilon)))
			return strings.ReplaceAll(d, "{choices}", fmt.Sprint(b.Choices)), true
		}
	}
	return "", false
}

// DirectiveText is Directive as messages print it: on one line, and "its
// default" for an algorithm the proxy runs with no directive (nginx's
// round robin); ok is false when the proxy lacks the algorithm.
func (p Proxy) DirectiveText(algorithm string, b *labfile.Balancers) (string, bool) {
	d, ok := p.Directive(algorithm, b)
	if ok && d == "" {
		d = "its default"
	}
	return strings.ReplaceAll(d, "\n", "; "), ok
}

// HashBalanceFactor is balancers.epsilon as HAProxy's hash-balance-factor
// takes it: the most a server may hold as a percentage of the mean load,
// 100 × (1 + epsilon) rounded, and at least 101 (HAProxy's least: 100
// would turn bounded loads off).
func HashBalanceFactor(epsilon float64) int {
	return max(101, int(math.Round(100*(1+epsilon))))
}

// Weights are the servers' weights in a proxy's configuration: the
// speeds as lb's weighted round robin takes them (balance.Weight: 0 or
// less counts as 1) as whole numbers from 1 to 256 (HAProxy's greatest;
// nginx takes any), the fastest at 256, so their ratios are the speeds'
// to within half a unit.
func Weights(speeds []float64) []int {
	top := 0.0
	for _, v := range speeds {
		top = max(top, balance.Weight(v))
	}
	out := make([]int, len(speeds))
	for i, v := range speeds {
		out[i] = max(1, int(math.Round(256*balance.Weight(v)/top)))
	}
	return out
}

// Weighted says whether the proxy's configuration for algorithm gives the
// servers weights.
func (p Proxy) Weighted(algorithm string) bool { return p.algorithm(algorithm).Weighted }

// Agented says whether the proxy's configuration for algorithm has the
// servers weigh themselves through the agent check.
func (p Proxy) Agented(algorithm string) bool { return p.algorithm(algorithm).Agent }

// AgentCheck is a server's agent check in the proxy's syntax (Proxy.Agent)
// for its agent port, asked every inter (AgentInterval).
func (p Proxy) AgentCheck(port string, inter time.Duration) string {
	return p.agentText(port, fmt.Sprintf("%dms", max(inter.Milliseconds(), 1)))
}

// agentText is Proxy.Agent with the initial weight, port and interval
// filled in.
func (p Proxy) agentText(port, inter string) string {
	return strings.NewReplacer("{weight}", fmt.Sprint(load.AgentInitialWeight), "{port}", port, "{inter}", inter).Replace(p.Agent)
}

// AgentInterval is how often the proxy asks each server's agent for its
// weight: balancers.orca.weight_update_period, how often A58's weighted
// round robin takes up the servers' weights.
func AgentInterval(b *labfile.Balancers) time.Duration { return b.ORCA.Update }

// AlgorithmNames are the lblab algorithms the proxy maps.
func (p Proxy) AlgorithmNames() []string {
	var out []string
	for _, a := range p.Algorithms {
		out = append(out, a.Algorithm)
	}
	return out
}

// check is labfile's check of an external tier (labfile.Tiers.Check): an
// algorithm the proxy has (naming those it has), and none of the settings
// it cannot honour. labfile has checked the kind.
func check(l *labfile.Lab, refuse labfile.Refuse) {
	if c := l.Balancers.Command; c != (labfile.ExternalCommand{}) && l.Balancers.Kind != KindCommand {
		refuse("balancers.command", "is for kind: command (kind is %s)", strconv.Quote(l.Balancers.Kind))
	}
	p, ok := Of(l)
	if !ok {
		return
	}
	if p.Kind == KindCommand {
		validateCommand(l, refuse)
	} else if !slices.Contains(labfile.Algorithms, l.Balancers.Algorithm) {
		// labfile refuses it, naming lblab's algorithms
	} else if _, ok := p.Directive(l.Balancers.Algorithm, &l.Balancers); !ok {
		why := ""
		if w := lacking[l.Balancers.Algorithm]; w != "" {
			why = ": " + w
		}
		refuse("balancers.algorithm", "kind %s has no %q%s%s; the algorithms it maps: %s (or kind: lb for every algorithm)",
			p.Kind, l.Balancers.Algorithm, why, p.nearestTo(l.Balancers.Algorithm, &l.Balancers), strings.Join(p.AlgorithmNames(), ", "))
	} else if a := p.algorithm(l.Balancers.Algorithm); !strings.Contains(a.Directive, "{choices}") &&
		l.Balancers.Algorithm == "p2c" && l.Balancers.Choices != 2 {
		refuse("balancers.choices", "%s's %q draws two; got choices %d", p.Name, a.Directive, l.Balancers.Choices)
	}
	for _, x := range append(slices.Clone(externalRefusals), p.Refuses...) {
		if x.Used(l) {
			refuse(x.Path, "kind %s cannot honour it: %s", p.Kind, x.Why)
		}
	}
}

// nearestTo names the proxy's nearest to an algorithm it lacks, with its
// directive ("" when it has none near): the nearest of nearest when the
// proxy lacks that too (wrr-orca through Caddy: round-robin).
func (p Proxy) nearestTo(algorithm string, b *labfile.Balancers) string {
	for n, seen := nearest[algorithm], 0; n != "" && seen < len(nearest); n, seen = nearest[n], seen+1 {
		if d, ok := p.DirectiveText(n, b); ok {
			if p.Weighted(n) {
				d += ", the servers weighted by their speeds"
			}
			return fmt.Sprintf(" (the nearest it has: %s, %s)", n, d)
		}
	}
	return ""
}

func (p Proxy) algorithm(name string) Algorithm {
	for _, a := range p.Algorithms {
		if a.Algorithm == name {
			return a
		}
	}
	return Algorithm{}
}

// checkScript (labfile.Tiers.Script) refuses, behind an external tier, the drills on
// the balancer tier the proxy cannot take. Behind HAProxy, nginx and Caddy
// an algorithm switch, a set of a setting its configuration is written
// from (Proxy.Settings), add-server and remove-server rewrite the
// configuration and reload the proxy; a set of another balancers setting
// is refused, naming those it takes. kind: command's configuration is the
// user's: lab rewrites none of it.
func checkScript(l *labfile.Lab, refuse labfile.Refuse) {
	p, ok := Of(l)
	if !ok {
		return
	}
	for i, ev := range l.Events {
		switch ev.Action {
		case labfile.ActionAlgorithm, labfile.ActionSet, labfile.ActionAddServer, labfile.ActionRemoveServer:
		default:
			continue
		}
		if p.Kind == KindCommand {
			refuse(fmt.Sprintf("events[%d].action", i), "kind command: %s acts on the balancer tier, and the proxy's configuration is your own (lab rewrites none of it); drills on servers (slow, gc, kill, fail, ...) and rate work",
				ev.Action)
			continue
		}
		if ev.Action != labfile.ActionSet {
			continue // the configuration is rewritten and the proxy reloaded (an algorithm is checked as the lab's)
		}
		for _, k := range slices.Sorted(maps.Keys(ev.Set)) {
			if strings.HasPrefix(k, "balancers.") && !p.expresses(k) {
				refuse(fmt.Sprintf("events[%d].set.%s", i, k), "kind %s: %s's configuration has no such setting, so a set of it would change nothing; a set may change %s (the configuration is rewritten and %s reloaded)",
					p.Kind, p.Name, p.settingNames(), p.Name)
			}
		}
	}
}

// settingNames are Settings as the docs and messages write them
// (balancers.health.* for a prefix).
func (p Proxy) settingNames() string {
	var out []string
	for _, s := range p.Settings {
		if strings.HasSuffix(s, ".") {
			s += "*"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// expresses says whether the proxy's configuration is written from the
// balancers setting at path.
func (p Proxy) expresses(path string) bool {
	for _, s := range p.Settings {
		if path == s || (strings.HasSuffix(s, ".") && strings.HasPrefix(path, s)) {
			return true
		}
	}
	return false
}

// weights is how the table says a Weighted algorithm's servers carry
// weights, and an Agent algorithm's their agent checks.
func weights(p Proxy, a Algorithm) string {
	switch {
	case a.Agent:
		return ", `" + p.agentText("A", "U") + "` per server"
	case a.Weighted:
		return ", `" + strings.ReplaceAll(p.Weight, "%d", "W") + "` per server"
	}
	return ""
}

// Table is the algorithm mapping as docs/external.md shows it: a
// row per lblab algorithm any proxy maps, a column per proxy ("-": it
// lacks it; "(default)": no directive; W: a server's weight). {key},
// {choices} and {factor} stay as written.
func Table() string {
	var rows []string
	var algorithms []string
	for _, p := range All {
		for _, a := range p.Algorithms {
			if !slices.Contains(algorithms, a.Algorithm) {
				algorithms = append(algorithms, a.Algorithm)
			}
		}
	}
	head, rule := "| lblab |", "|---|"
	for _, p := range All {
		head += " " + p.Name + " (`kind: " + p.Kind + "`) |"
		rule += "---|"
	}
	rows = append(rows, head, rule)
	for _, name := range algorithms {
		row := "| `" + name + "` |"
		for _, p := range All {
			a := p.algorithm(name)
			switch {
			case a.Algorithm == "":
				row += " - |"
			case a.Directive == "":
				row += " (default)" + weights(p, a) + " |"
			default:
				row += " `" + strings.ReplaceAll(a.Directive, "\n", "; ") + "`" + weights(p, a) + " |"
			}
		}
		rows = append(rows, row)
	}
	return strings.Join(rows, "\n") + "\n"
}
