package loadgen

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/workload"
)

// Defaults of the Config knobs left zero.
const (
	DefaultDrain = 30 * time.Second // like the simulator's drain limit
	DefaultLate  = report.LateAfter
	// DefaultConnections bounds the connections per endpoint against a
	// service that is not lblab's (HTTP.Plain). A connection carries one
	// request at a time, so N of them carry N / (mean answer time)
	// requests/s: 256 carry one core's worth (about 40,000/s) from a
	// service answering within 6 ms, and a loadgen that falls behind cannot
	// open more than that.
	DefaultConnections = 256
	// DefaultLabConnections is the bound in a lab, whose scenarios hold
	// thousands of requests out at once (adaptive without a limit: about
	// 2,500 on average) and want every one of them on the wire.
	DefaultLabConnections = 4096
)

// Target is one balancer tier the stream is sent to: a run of the report.
type Target struct {
	Name string   // the run's name; "" = derived from the lab or the URL
	URLs []string // client id c sends to URLs[c % len(URLs)], like the simulator's balancers
}

// Backend is one server in client-side balancing mode.
type Backend struct {
	Name string // as in the lab (s1, s2, ...): its speed is the balancer weight
	Addr string // host:port
}

// Config describes one live run: balancer targets, or servers (given,
// discovered, or both) that the clients balance over themselves.
type Config struct {
	Lab     *labfile.Lab // validated; the run works on its own copy
	Targets []Target     // balancer mode: every target gets every request
	Servers []Backend    // client-side balancing mode: no balancer in between
	// Discover, client-side, takes servers from a DNS name as well
	// (discover.go): its members join and leave while the run goes on.
	Discover *discover.Config
	Series   bool // keep 250 ms bins in the report
	// Count, when set, ends the arrivals once each target has begun this
	// many requests (hey's -n): the run lasts until they have all ended,
	// or the lab's duration, whichever comes first.
	Count uint64
	Drain time.Duration
	Late  time.Duration // an arrival started later than this behind its intended time is late
	// Connections bounds the connections per endpoint (a balancer URL, a
	// server, a targets file's host); 0 = DefaultConnections, or
	// DefaultLabConnections unless HTTP.Plain. An attempt takes one for
	// its exchange and waits for one when all are busy.
	Connections int
	// MaxInflight caps the attempts out at once; while it is reached, new
	// requests wait (and count as late) rather than start. 0 = derived:
	// Connections times the run's endpoints, so that a request waits for
	// a free connection before it starts, with its latency counted from
	// its intended instant.
	MaxInflight int
	Progress    io.Writer   // a live progress line (give a TTY); nil = quiet
	Warn        io.Writer   // end-of-run warnings (fell behind); nil = none
	Log         *zap.Logger // nil = no logging
	// Dial opens connections (tests pass in-memory listeners); nil = TCP.
	Dial func(addr string) (net.Conn, error)
	// TLS is the client side of network.tls: the certificate to trust
	// (the lab's self-signed one). Required when the lab sets network.tls.
	TLS *tls.Config
	// Admins maps the data address (host:port) of a balancer target URL or,
	// client-side, of a server to its admin address, where a hedge's loser
	// is cancelled (cancel.go). An endpoint without one abandons its losers.
	Admins map[string]string
	// Token is presented to those admin APIs (the lab's token, shared by
	// its processes; "" = none).
	Token string

	HTTP HTTP // method, headers, body, plain mode (httpmode.go)
	// Requests, from a targets file, replace Targets: request n goes to
	// Requests[n mod len]; the run is one target called "targets".
	Requests []Request
	// Replay, when set, is played instead of the lab's generated arrivals
	// (open loop, whatever the lab's mode).
	Replay *workload.Trace
	// Logs, when set, gives each target's request log (the exports), by
	// the target's name; Run calls it as the run starts.
	Logs func(target string) report.RequestLog

	// Waits times the loop's timer and the injected hops: nil is the
	// process's precise scheduler; tests in a synctest bubble set
	// pace.Runtime (the bubble's fake clock moves only Go's timers).
	Waits *pace.Scheduler
	// LogWaits logs Waits' lateness ("wait lateness") at the end of the
	// run; without it the run ends quietly.
	LogWaits bool
}

// withDefaults validates cfg and fills the zero knobs; it returns a config
// whose Lab is a private copy.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.Lab == nil {
		return cfg, errors.New("no lab")
	}
	if err := cfg.Lab.Validate(); err != nil {
		return cfg, err
	}
	cfg.Lab = cfg.Lab.Clone()
	if err := checkHTTP(&cfg); err != nil {
		return cfg, err
	}
	if err := cfg.checkMode(); err != nil {
		return cfg, err
	}
	if cfg.Lab.Network.TLS && cfg.TLS == nil {
		return cfg, errors.New("network.tls is on: give the certificate to trust (--tls-ca)")
	}
	if !cfg.clientSide() && len(cfg.Requests) == 0 { // a targets file's run is called "targets"
		cfg.Targets = slices.Clone(cfg.Targets)
		if err := nameTargets(cfg.Targets, cfg.Lab, cfg.HTTP.Plain); err != nil {
			return cfg, err
		}
	}
	if err := checkAdmins(cfg); err != nil {
		return cfg, err
	}
	cfg.Admins = maps.Clone(cfg.Admins)
	if cfg.Drain <= 0 {
		cfg.Drain = DefaultDrain
	}
	if cfg.Late <= 0 {
		cfg.Late = DefaultLate
	}
	if cfg.Connections <= 0 {
		cfg.Connections = DefaultLabConnections
		if cfg.HTTP.Plain {
			cfg.Connections = DefaultConnections
		}
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	cfg.Waits = pace.Or(cfg.Waits)
	return cfg, nil
}

// checkMode picks balancer or client-side mode. With servers and no
// clients.algorithm, the clients balance with the balancers' algorithm.
func (cfg *Config) checkMode() error {
	c := &cfg.Lab.Clients
	switch {
	case len(cfg.Targets) > 0 && cfg.clientSide():
		return errors.New("give balancer targets or servers (client-side balancing), not both")
	case len(cfg.Targets) == 0 && !cfg.clientSide():
		return errors.New("no target: give --target URL, or --servers NAME=host:port[,NAME=host:port] (or --servers-dns)")
	case !cfg.clientSide() && c.Algorithm != "":
		return fmt.Errorf("clients.algorithm is %q (client-side balancing): give the servers with --servers or --servers-dns", c.Algorithm)
	case cfg.clientSide() && c.Algorithm == "":
		c.Algorithm = cfg.Lab.Balancers.Algorithm
	}
	if cfg.Discover != nil {
		if err := cfg.Discover.Check(); err != nil {
			return fmt.Errorf("discover: %w", err)
		}
		if cfg.Discover.Port == 0 {
			return errors.New("discover: the servers' data port is needed")
		}
	}
	if cfg.clientSide() {
		if !slices.Contains(policy.Algorithms(), c.Algorithm) {
			return fmt.Errorf("clients.algorithm %q: unknown, allowed: %s", c.Algorithm, strings.Join(policy.Algorithms(), ", "))
		}
		cfg.Targets = []Target{{Name: c.Algorithm}}
		return checkServers(cfg.Servers)
	}
	return nil
}

// clientSide says the clients balance over servers themselves.
func (cfg *Config) clientSide() bool { return len(cfg.Servers) > 0 || cfg.Discover != nil }

func checkServers(servers []Backend) error {
	seen := map[string]bool{}
	for _, s := range servers {
		if s.Name == "" || seen[s.Name] {
			return fmt.Errorf("server name %q: empty or repeated", s.Name)
		}
		seen[s.Name] = true
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			return fmt.Errorf("server %s: address %q: want host:port", s.Name, s.Addr)
		}
	}
	return nil
}

// nameTargets gives unnamed targets a name: the lab's algorithm when there
// is one target (the simulator's run name) of lblab's, else host:port of its
// first URL.
func nameTargets(ts []Target, lab *labfile.Lab, plain bool) error {
	seen := map[string]bool{}
	for i := range ts {
		t := &ts[i]
		if len(t.URLs) == 0 {
			return fmt.Errorf("target %q has no URL", t.Name)
		}
		if t.Name == "" && len(ts) == 1 && !plain {
			t.Name = lab.Balancers.Algorithm
		}
		if t.Name == "" {
			ep, err := parseURL(t.URLs[0])
			if err != nil {
				return err
			}
			t.Name = ep.addr
		}
		if seen[t.Name] {
			return fmt.Errorf("two targets are called %q: name them (NAME=URL)", t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}

// ParseTargets reads --target: comma-separated [NAME=]URL items; one target
// may list several balancer URLs joined by '|' (client c uses URL c mod n).
func ParseTargets(spec string) ([]Target, error) {
	var out []Target
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		var t Target
		if name, rest, ok := strings.Cut(item, "="); ok && !strings.Contains(name, "/") {
			t.Name, item = strings.TrimSpace(name), rest
		}
		for _, u := range strings.Split(item, "|") {
			if _, err := parseURL(u); err != nil {
				return nil, err
			}
			t.URLs = append(t.URLs, strings.TrimSpace(u))
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, errors.New("no target URL given")
	}
	return out, nil
}

// ParseServers reads --servers: comma-separated [NAME=]host:port items;
// unnamed servers are called s1, s2, ... by position.
func ParseServers(spec string) ([]Backend, error) {
	var out []Backend
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		b := Backend{Name: fmt.Sprintf("s%d", i+1), Addr: item}
		if name, rest, ok := strings.Cut(item, "="); ok {
			b.Name, b.Addr = strings.TrimSpace(name), strings.TrimSpace(rest)
		}
		b.Addr = strings.TrimPrefix(b.Addr, "http://")
		if _, _, err := net.SplitHostPort(b.Addr); err != nil || b.Name == "" {
			return nil, fmt.Errorf("server %q: want NAME=host:port", item)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		return nil, errors.New("no server given")
	}
	return out, nil
}

// ParseAdmins reads --admins: comma-separated DATA=ADMIN items, each a
// host:port (http:// is accepted and dropped): the admin address of the
// balancer or server whose data address is DATA.
func ParseAdmins(spec string) (map[string]string, error) {
	out := map[string]string{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		data, admin, ok := strings.Cut(item, "=")
		data, admin = hostPort(data), hostPort(admin)
		if !ok || !isHostPort(data) || !isHostPort(admin) {
			return nil, fmt.Errorf("%q: want DATA=ADMIN, both host:port", item)
		}
		if _, dup := out[data]; dup {
			return nil, fmt.Errorf("%s: given twice", data)
		}
		out[data] = admin
	}
	if len(out) == 0 {
		return nil, errors.New("no DATA=ADMIN pair given")
	}
	return out, nil
}

func hostPort(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "http://"), "/")
}

func isHostPort(s string) bool {
	_, port, err := net.SplitHostPort(s)
	return err == nil && port != ""
}

// checkAdmins makes sure every admin address belongs to an endpoint of the
// run (a typo would otherwise silently turn cancellation off).
func checkAdmins(cfg Config) error {
	known := map[string]bool{}
	for _, s := range cfg.Servers {
		known[s.Addr] = true
	}
	for _, t := range cfg.Targets {
		for _, u := range t.URLs {
			if ep, err := parseURL(u); err == nil {
				known[ep.addr] = true
			}
		}
	}
	for data, admin := range cfg.Admins {
		if !known[data] {
			return fmt.Errorf("admins: %s is not the address of a target or server", data)
		}
		if !isHostPort(admin) {
			return fmt.Errorf("admins: %s: admin address %q: want host:port", data, admin)
		}
	}
	return nil
}

// endpointSpec is where one URL's requests go.
type endpointSpec struct {
	addr string // host:port
	uri  string // path and query
	host string // Host header
}

// parseURL accepts http://host:port/path or host:port.
func parseURL(raw string) (endpointSpec, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		return endpointSpec{}, fmt.Errorf("target %q: want http://host:port[/path]", raw)
	}
	addr := u.Host
	if u.Port() == "" {
		addr = net.JoinHostPort(u.Hostname(), "80")
	}
	return endpointSpec{addr: addr, uri: u.RequestURI(), host: u.Host}, nil
}
