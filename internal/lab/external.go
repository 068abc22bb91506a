package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/proxies"
)

// An external balancer tier (balancers.kind: haproxy | nginx | caddy): lab
// writes the proxy's configuration from the lab, starts it on 127.0.0.1 in
// the lb's place and points the loadgen at it. What each proxy is (its
// binary, package, algorithms, what it refuses, its configuration) is
// internal/proxies; this file writes the configurations into the proxy's
// directory, runs the process and reloads it.

// CheckExternal refuses a lab whose external proxy is not installed, naming
// the Debian package, before anything starts.
func CheckExternal(lab *labfile.Lab) error {
	p, ok := proxies.Of(lab)
	if !ok {
		return nil
	}
	if _, err := exec.LookPath(p.Binary); err != nil {
		return fmt.Errorf("balancers.kind %s: %s is not installed (%s is not on PATH): apt-get install -y %s",
			p.Kind, p.Name, p.Binary, p.Package)
	}
	return nil
}

// externalProxy is the running proxy of a fleet.
type externalProxy struct {
	kind  proxies.Proxy
	proc  *proc.Proc
	dir   string // its configuration, pid file and logs
	stats string // its stats listener (HAProxy's stats page, nginx's stub_status, Caddy's admin API)
	mu    sync.Mutex
	conf  proxies.Config // what its configuration was written from (reload rewrites it)
}

// reload switches the running proxy to algorithm: it rewrites the
// configuration and reloads it gracefully (rewrite). It returns what the
// log says.
func (x *externalProxy) reload(ctx context.Context, algorithm string) (string, error) {
	c, err := x.rewrite(ctx, func(c *proxies.Config) error { return c.Lab.Apply("balancers.algorithm", algorithm) })
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s reloaded gracefully with %s (%s)", x.kind.Name, algorithm, proxyRuns(x.kind, algorithm, &c.Lab.Balancers)), nil
}

// proxyRuns says how proxy p runs algorithm, for lab's messages: its
// directive on one line ("random two least_conn"), "its default" when it
// has none (nginx's round robin), and whether the servers are weighted.
func proxyRuns(p proxies.Proxy, algorithm string, b *labfile.Balancers) string {
	d, _ := p.DirectiveText(algorithm, b)
	switch {
	case p.Weighted(algorithm):
		d += ", the servers weighted by their speeds"
	case p.Agented(algorithm):
		d += fmt.Sprintf(", each server weighing itself by its load report, asked every %v (agent-check)", proxies.AgentInterval(b))
	}
	return d
}

// set applies a set drill's balancers settings (those the configuration is
// written from: internal/proxies refused the others when labfile checked
// the drill) to the proxy through a reload.
func (x *externalProxy) set(ctx context.Context, set map[string]string) (string, error) {
	var keys []string
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if strings.HasPrefix(k, "balancers.") {
			keys = append(keys, k+"="+set[k])
		}
	}
	if len(keys) == 0 {
		return "", nil
	}
	_, err := x.rewrite(ctx, func(c *proxies.Config) error {
		for _, k := range slices.Sorted(maps.Keys(set)) {
			if strings.HasPrefix(k, "balancers.") {
				if err := c.Lab.Apply(k, set[k]); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s reloaded gracefully with %s", x.kind.Name, strings.Join(keys, " ")), nil
}

// addServer adds a server (started by the fleet) to the proxy's servers
// through a reload.
func (x *externalProxy) addServer(ctx context.Context, b proxies.Server) (string, error) {
	name := b.Name
	c, err := x.rewrite(ctx, func(c *proxies.Config) error {
		c.Servers = append(slices.DeleteFunc(slices.Clone(c.Servers), func(o proxies.Server) bool { return o.Name == name }), b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s reloaded gracefully with %s added (%d servers)", x.kind.Name, name, len(c.Servers)), nil
}

// removeServer takes a server out of the proxy's servers through a reload
// (its process goes on, as behind lb: what it has in hand is answered).
func (x *externalProxy) removeServer(ctx context.Context, name string) (string, error) {
	c, err := x.rewrite(ctx, func(c *proxies.Config) error {
		n := len(c.Servers)
		c.Servers = slices.DeleteFunc(slices.Clone(c.Servers), func(b proxies.Server) bool { return b.Name == name })
		switch {
		case len(c.Servers) == n:
			return fmt.Errorf("%s has no server %q", x.kind.Name, name)
		case len(c.Servers) == 0:
			return fmt.Errorf("%s would have no server left", x.kind.Name)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s reloaded gracefully without %s (%d servers)", x.kind.Name, name, len(c.Servers)), nil
}

// rewrite changes what the proxy's configuration is written from, writes
// it again and reloads the proxy gracefully: HAProxy's master gets SIGUSR2
// and starts a new worker while the old one finishes its requests; nginx's
// master gets SIGHUP; Caddy is sent the new Caddyfile on its admin API
// (POST /load). It returns the configuration now in force.
func (x *externalProxy) rewrite(ctx context.Context, change func(*proxies.Config) error) (proxies.Config, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	c := x.conf
	c.Lab = c.Lab.Clone()
	if err := change(&c); err != nil {
		return c, err
	}
	text, _ := x.kind.Write(c)
	if err := os.WriteFile(filepath.Join(c.Dir, x.kind.File), []byte(text), 0o600); err != nil {
		return c, err
	}
	switch x.kind.Kind {
	case "haproxy":
		if err := x.proc.Signal(reloadHAProxy); err != nil {
			return c, err
		}
	case "nginx":
		if err := x.proc.Signal(reloadNginx); err != nil {
			return c, err
		}
	default: // caddy
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "POST", "http://"+x.stats+"/load", strings.NewReader(text))
		if err != nil {
			return c, err
		}
		req.Header.Set("Content-Type", "text/caddyfile")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return c, err
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return c, fmt.Errorf("caddy's /load: %d %s", resp.StatusCode, strings.TrimSpace(string(body)))
		}
	}
	x.conf = c
	return c, nil
}

// addProxied starts the server an add-server drill adds, as behind lb,
// and adds it to the proxy's configuration through a reload.
func (f *fleet) addProxied(ctx context.Context, x *externalProxy, ev labfile.Event, log *gather.Log) error {
	if err := f.addBackend(ctx, ev, nil); err != nil {
		return err
	}
	var b *proc.Proc
	for _, p := range f.servers() { // the newest of that name (addBackend appends it)
		if p.Name == ev.Target {
			b = p
		}
	}
	if b == nil {
		return fmt.Errorf("the added server %s is not in the fleet", ev.Target)
	}
	// weighed as behind lb: by the drill's speed, else the lab's for the name
	speed := ev.Speed
	if speed <= 0 {
		speed = f.lab.ServerSpeed(b.Name)
	}
	text, err := x.addServer(ctx, proxies.Server{Name: b.Name, Addr: b.Ready.Addr, Speed: speed, Agent: b.Ready.Agent})
	if err == nil {
		log.Add(time.Now(), text)
	}
	return err
}

// freePort picks a free port on 127.0.0.1: it listens on port 0 and
// closes. The proxies take a port in their configuration, not port 0, so
// another process could take it meanwhile: the start then fails clearly.
func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// commandConfig renders kind: command's templates for the fleet: the
// configuration, the arguments after the program, and the file name.
func commandConfig(c proxies.Config) (string, []string, string, error) {
	cmd := c.Lab.Balancers.Command
	file := cmd.File
	if file == "" {
		file = "proxy.conf"
	}
	text, argv, err := renderCommand(cmd, c.CommandData(file))
	if err != nil {
		return "", nil, "", err
	}
	return text, argv[1:], file, nil
}

// startExternal writes the proxy's configuration for the fleet's servers
// and starts it on 127.0.0.1 (opts.LBAddr if given, else a free port). It
// is ready when its traffic port accepts connections.
func (f *fleet) startExternal(ctx context.Context, p proxies.Proxy) error {
	dir := filepath.Join(f.dir, p.Kind)
	if err := os.MkdirAll(dir, 0o755); err != nil { // nginx's worker may run as another user
		return err
	}
	listen := f.opts.LBAddr
	var err error
	if listen == "" {
		if listen, err = freePort(); err != nil {
			return err
		}
	}
	stats, err := freePort()
	if err != nil {
		return err
	}
	c := proxies.Config{Lab: f.lab, Dir: dir, Listen: listen, Stats: stats}
	for _, b := range f.servers() {
		c.Servers = append(c.Servers, proxies.Server{Name: b.Name, Addr: b.Ready.Addr, Speed: f.lab.ServerSpeed(b.Name), Agent: b.Ready.Agent})
	}
	file := p.File
	var text string
	var args []string
	if p.Kind == proxies.KindCommand {
		if text, args, file, err = commandConfig(c); err != nil {
			return fmt.Errorf("balancers.command: %w", err)
		}
	} else {
		text, args = p.Write(c)
	}
	if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o600); err != nil {
		return err
	}
	bin, err := exec.LookPath(p.Binary)
	if err != nil {
		return CheckExternal(f.lab)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	pr, err := proc.StartPlain(ctx, cmd, p.Kind, "lb1", listen, f.opts.Logs, f.opts.Log)
	if err != nil {
		return err
	}
	f.mu.Lock()
	f.proxy = &externalProxy{kind: p, proc: pr, dir: dir, stats: stats, conf: c}
	f.mu.Unlock()
	f.opts.Log.Debug("external balancer started", zap.String("kind", p.Kind), zap.String("addr", listen),
		zap.String("stats", stats), zap.String("config", filepath.Join(dir, file)))
	return nil
}

// ProxyServer is one server as the proxy's own stats interface counts it.
type ProxyServer struct {
	Name    string
	Total   uint64 // requests (HAProxy: sessions) it sent the server
	Current int    // what it has outstanding there now
	Status  string // UP, DOWN, MAINT, ... ("" where the proxy does not say)
	Fails   int    // Caddy: its recent failures (passive health checks)
	Weight  int    // HAProxy: its weight now (under wrr-orca, what its agent check last answered)
}

// ProxyStats are a proxy's own counters, as far as it has any.
type ProxyStats struct {
	Servers  []ProxyServer // HAProxy's per-server figures (nginx and Caddy: none)
	Requests uint64        // nginx stub_status: the requests it handled
	Active   int           // nginx stub_status: its active client connections
}

// stats reads the proxy's own counters: HAProxy's stats CSV, nginx's
// stub_status, Caddy's upstreams (GET /reverse_proxy/upstreams).
func (x *externalProxy) readStats(ctx context.Context) (ProxyStats, error) {
	var st ProxyStats
	url := map[string]string{"haproxy": "/stats;csv", "nginx": "/", "caddy": "/reverse_proxy/upstreams"}[x.kind.Kind]
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+x.stats+url, nil)
	if err != nil {
		return st, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return st, fmt.Errorf("%s stats: status %d", x.kind.Name, resp.StatusCode)
	}
	switch x.kind.Kind {
	case "haproxy":
		return parseHAProxyCSV(resp.Body)
	case "nginx":
		return parseStubStatus(resp.Body)
	}
	return parseCaddyUpstreams(resp.Body)
}

// parseHAProxyCSV reads the servers of backend "servers" from HAProxy's
// stats CSV: scur (current sessions), stot (total), status and weight.
func parseHAProxyCSV(r io.Reader) (ProxyStats, error) {
	var st ProxyStats
	sc := bufio.NewScanner(r)
	var col map[string]int
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "# "); ok {
			col = map[string]int{}
			for i, name := range strings.Split(h, ",") {
				col[name] = i
			}
			continue
		}
		f := strings.Split(line, ",")
		if col == nil || len(f) <= col["status"] || f[col["pxname"]] != "servers" {
			continue
		}
		if name := f[col["svname"]]; name != "BACKEND" && name != "FRONTEND" {
			total, _ := strconv.ParseUint(f[col["stot"]], 10, 64)
			cur, _ := strconv.Atoi(f[col["scur"]])
			weight := 0
			if i, ok := col["weight"]; ok && i < len(f) {
				weight, _ = strconv.Atoi(f[i])
			}
			st.Servers = append(st.Servers, ProxyServer{Name: name, Total: total, Current: cur, Status: f[col["status"]], Weight: weight})
		}
	}
	if col == nil {
		return st, fmt.Errorf("HAProxy stats: no CSV header")
	}
	return st, sc.Err()
}

// parseStubStatus reads nginx's stub_status page:
//
//	Active connections: 2
//	server accepts handled requests
//	 10 10 25
//	Reading: 0 Writing: 1 Waiting: 1
func parseStubStatus(r io.Reader) (ProxyStats, error) {
	var st ProxyStats
	data, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return st, err
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) < 3 {
		return st, fmt.Errorf("nginx stub_status: %d lines, want 4", len(lines))
	}
	if _, err := fmt.Sscanf(lines[0], "Active connections: %d", &st.Active); err != nil {
		return st, fmt.Errorf("nginx stub_status: %q: %v", lines[0], err)
	}
	var accepts, handled uint64
	if _, err := fmt.Sscanf(strings.TrimSpace(lines[2]), "%d %d %d", &accepts, &handled, &st.Requests); err != nil {
		return st, fmt.Errorf("nginx stub_status: %q: %v", lines[2], err)
	}
	return st, nil
}

// parseCaddyUpstreams reads Caddy's GET /reverse_proxy/upstreams: each
// upstream's address, requests in flight and recent fails.
func parseCaddyUpstreams(r io.Reader) (ProxyStats, error) {
	var st ProxyStats
	var ups []struct {
		Address     string `json:"address"`
		NumRequests int    `json:"num_requests"`
		Fails       int    `json:"fails"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 1<<20)).Decode(&ups); err != nil {
		return st, fmt.Errorf("caddy upstreams: %v", err)
	}
	for _, u := range ups {
		st.Servers = append(st.Servers, ProxyServer{Name: u.Address, Current: u.NumRequests, Fails: u.Fails})
	}
	return st, nil
}

// proxyFigures adds the external proxy's own counters to the run's log at
// its end (the per-server shares come from the backends' counters, as for
// lb): HAProxy's requests per server and their status, nginx's requests,
// Caddy's requests in flight per upstream.
func (f *fleet) proxyFigures(ctx context.Context, log *gather.Log) {
	x := f.external()
	if x == nil || x.kind.Kind == proxies.KindCommand { // a proxy of the user's own: no stats interface lab knows
		return
	}
	st, err := x.readStats(ctx)
	if err != nil {
		log.Add(time.Now(), fmt.Sprintf("%s's own counters could not be read: %v", x.kind.Name, firstLine(err.Error())))
		return
	}
	log.Add(time.Now(), x.kind.Name+"'s own counters: "+st.text(x.kind.Kind))
}

// text is the stats in one line.
func (st ProxyStats) text(kind string) string {
	if kind == "nginx" {
		return fmt.Sprintf("%d requests handled, %d active client connections (stub_status)", st.Requests, st.Active)
	}
	var parts []string
	for _, s := range st.Servers {
		if kind == "caddy" {
			parts = append(parts, fmt.Sprintf("%s %d in flight", s.Name, s.Current))
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d sent, %d now, %s, weight %d", s.Name, s.Total, s.Current, s.Status, s.Weight))
	}
	return strings.Join(parts, "; ")
}

// renderCommand executes kind: command's templates (labfile has checked
// their syntax and fields): the configuration and the command line, split
// at spaces.
func renderCommand(c labfile.ExternalCommand, d proxies.CommandData) (config string, argv []string, err error) {
	var out [2]strings.Builder
	for i, text := range []string{c.Config, c.Run} {
		t, err := template.New([]string{"config", "run"}[i]).Option("missingkey=error").Parse(text)
		if err != nil {
			return "", nil, err
		}
		if err := t.Execute(&out[i], d); err != nil {
			return "", nil, err
		}
	}
	argv = strings.Fields(out[1].String())
	if len(argv) == 0 {
		return "", nil, fmt.Errorf("balancers.command.run: the command line is empty")
	}
	return out[0].String(), argv, nil
}
