package proxies

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// The configurations lab writes for HAProxy, nginx and Caddy, as text:
// internal/lab writes them into the proxy's directory, starts the program
// with their arguments and rewrites them for a reload. kind: command's is
// the user's own template (CommandData), which internal/lab renders.

// Write is p's configuration for c, and the arguments its program runs
// with (the configuration is at filepath.Join(c.Dir, p.File)); kind:
// command has none.
func (p Proxy) Write(c Config) (text string, args []string) {
	if p.write == nil {
		return "", nil
	}
	return p.write(p, c)
}

// splitAddr splits HOST:PORT (as net.SplitHostPort, which this package
// does not link: the page's module links no net).
func splitAddr(addr string) (host, port string) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return addr, ""
	}
	return strings.TrimSuffix(strings.TrimPrefix(addr[:i], "["), "]"), addr[i+1:]
}

// Server is one server as a proxy's configuration names it, with the
// speed its weight is written from (Weights) and the address where it
// answers the agent check ("" without one).
type Server struct {
	Name, Addr string
	Speed      float64
	Agent      string
}

// weights are the backends' weights in the proxy's syntax, each with its
// leading space, when the lab's algorithm gives weights, or their agent
// checks when the servers weigh themselves (else "").
func (c Config) weights(p Proxy) []string {
	out := make([]string, len(c.Servers))
	if p.Agented(c.Lab.Balancers.Algorithm) {
		for i, b := range c.Servers {
			_, port := splitAddr(b.Agent)
			out[i] = " " + p.AgentCheck(port, AgentInterval(&c.Lab.Balancers))
		}
		return out
	}
	if !p.Weighted(c.Lab.Balancers.Algorithm) {
		return out
	}
	speeds := make([]float64, len(c.Servers))
	for i, b := range c.Servers {
		speeds[i] = b.Speed
	}
	for i, w := range Weights(speeds) {
		out[i] = " " + fmt.Sprintf(p.Weight, w)
	}
	return out
}

// Config is what a proxy's configuration is written from.
type Config struct {
	Lab     *labfile.Lab
	Dir     string // the proxy's directory: its configuration, pid file, sockets
	Listen  string // the traffic address, 127.0.0.1:PORT
	Stats   string // the stats address (HAProxy's stats page, nginx's stub_status, Caddy's admin API)
	Servers []Server
}

// directive is the lab's algorithm in the proxy's terms (one it has: check
// refused the lab otherwise).
func (c Config) directive(p Proxy) string {
	d, _ := p.Directive(c.Lab.Balancers.Algorithm, &c.Lab.Balancers)
	return d
}

// timeout is balancers.timeout in the proxy's syntax (milliseconds), or
// an hour when the lab sets none (the proxies all have a default).
func (c Config) timeout() string {
	d := c.Lab.Balancers.Timeout
	if d <= 0 {
		d = time.Hour
	}
	return strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "ms"
}

// BreakerFails is how many failures open lblab's breaker (threshold of
// its window): the count the proxies' passive health checks take a server
// out after.
func BreakerFails(b labfile.Breaker) int {
	return max(int(math.Ceil(b.Threshold*float64(b.Window)-1e-9)), 1)
}

func proxyMs(d time.Duration) string { return strconv.FormatInt(max(d.Milliseconds(), 1), 10) + "ms" }

func indent(text, by string) string {
	if text == "" {
		return ""
	}
	return by + strings.ReplaceAll(text, "\n", "\n"+by) + "\n"
}

// writeHAProxy writes haproxy.cfg: one frontend, one backend with the
// lab's servers, no retries (the lab's clients retry), a stats page.
func writeHAProxy(p Proxy, c Config) (string, []string) {
	var b strings.Builder
	h := c.Lab.Balancers.Health
	fmt.Fprintf(&b, "global\n    maxconn 4096\n    stats socket %s mode 600 level admin\n\n", filepath.Join(c.Dir, "haproxy.sock"))
	fmt.Fprintf(&b, "defaults\n    mode http\n    option http-keep-alive\n    option idle-close-on-response\n    retries 0\n    timeout connect 5s\n    timeout client 1h\n    timeout server %s\n\n", c.timeout())
	fmt.Fprintf(&b, "frontend lab\n    bind %s\n    default_backend servers\n\n", c.Listen)
	fmt.Fprintf(&b, "frontend stats\n    bind %s\n    stats enable\n    stats uri /stats\n\n", c.Stats)
	fmt.Fprintf(&b, "backend servers\n%s", indent(c.directive(p), "    "))
	check := ""
	br := c.Lab.Balancers.Breaker
	switch {
	case h.Enabled:
		check = fmt.Sprintf(" check inter %s fall %d rise %d", proxyMs(h.Interval), h.Fails, h.Passes)
		if br.Enabled { // checks sooner once its traffic marked it down
			check += " fastinter " + proxyMs(h.Interval)
		}
	case br.Enabled:
		// lblab's breaker as HAProxy's passive health: the checks only bring
		// a server back (hourly while it is up; every breaker.open once
		// marked down), probes checks in a row passing
		check = fmt.Sprintf(" check inter 1h fastinter %s downinter %s fall 1 rise %d", proxyMs(br.Open), proxyMs(br.Open), br.Probes)
	}
	if check != "" {
		b.WriteString("    option httpchk GET /healthz\n")
	}
	if br.Enabled { // error-limit 5xx answers (or failed connections) in a row mark it down
		check += fmt.Sprintf(" observe layer7 error-limit %d on-error mark-down", BreakerFails(br))
	}
	weights := c.weights(p)
	for i, s := range c.Servers {
		fmt.Fprintf(&b, "    server %s %s%s%s\n", s.Name, s.Addr, weights[i], check)
	}
	path := filepath.Join(c.Dir, p.File)
	return b.String(), []string{"-W", "-db", "-f", path} // master-worker: SIGUSR2 reloads
}

// writeNginx writes nginx.conf: a master and one worker (one set of
// least_conn counts; the master reloads on SIGHUP), an upstream with
// pooled HTTP/1.1 connections, passive health checks and retries off, and
// stub_status on the stats address. Started as root, the worker runs as
// nginx's default unprivileged user (the directory is readable to it).
func writeNginx(p Proxy, c Config) (string, []string) {
	var b strings.Builder
	fmt.Fprintf(&b, "daemon off;\nworker_processes 1;\npid %s;\nerror_log stderr warn;\n", filepath.Join(c.Dir, "nginx.pid"))
	b.WriteString("events { worker_connections 16384; }\n\nhttp {\n    access_log off;\n")
	for _, t := range []string{"client_body", "proxy", "fastcgi", "uwsgi", "scgi"} {
		fmt.Fprintf(&b, "    %s_temp_path %s;\n", t, filepath.Join(c.Dir, t))
	}
	b.WriteString("    upstream servers {\n")
	b.WriteString(indent(strings.ReplaceAll(c.directive(p), "\n", ";\n")+semicolon(c.directive(p)), "        "))
	br := c.Lab.Balancers.Breaker
	fails, next := "max_fails=0", "proxy_next_upstream off;"
	if br.Enabled {
		// lblab's breaker as nginx's passive health: max_fails failures
		// within fail_timeout take a server out for fail_timeout, then one
		// request tries it. What fails is what proxy_next_upstream names,
		// and nginx counts an answer (a 5xx, a 429) as a failure only when
		// it passes the request on to another server: so it may, once
		// (proxy_next_upstream_tries 2), the one retry of its own.
		fails = fmt.Sprintf("max_fails=%d fail_timeout=%ds", BreakerFails(br), nginxSeconds(br.Open))
		next = "proxy_next_upstream error timeout http_500 http_502 http_503 http_504 http_429;\n            proxy_next_upstream_tries 2;"
	}
	weights := c.weights(p)
	for i, s := range c.Servers {
		fmt.Fprintf(&b, "        server %s%s %s;\n", s.Addr, weights[i], fails)
	}
	b.WriteString("        keepalive 1024;\n    }\n")
	fmt.Fprintf(&b, "    server {\n        listen %s;\n        location / {\n            proxy_pass http://servers;\n", c.Listen)
	fmt.Fprintf(&b, "            proxy_http_version 1.1;\n            proxy_set_header Connection \"\";\n            %s\n", next)
	fmt.Fprintf(&b, "            proxy_connect_timeout 5s;\n            proxy_read_timeout %s;\n        }\n    }\n", c.timeout())
	fmt.Fprintf(&b, "    server {\n        listen %s;\n        location / { stub_status; }\n    }\n}\n", c.Stats)
	path := filepath.Join(c.Dir, p.File)
	return b.String(), []string{"-e", "stderr", "-p", c.Dir, "-c", path}
}

// nginxSeconds is d in the whole seconds fail_timeout takes (rounded up,
// at least 1).
func nginxSeconds(d time.Duration) int64 { return max(int64(math.Ceil(d.Seconds())), 1) }

func semicolon(d string) string {
	if d == "" {
		return ""
	}
	return ";"
}

// writeCaddy writes a Caddyfile: HTTP only, its admin API on the stats
// address, its storage in the proxy's directory, one reverse_proxy.
func writeCaddy(p Proxy, c Config) (string, []string) {
	var b strings.Builder
	h := c.Lab.Balancers.Health
	host, port := splitAddr(c.Listen)
	fmt.Fprintf(&b, "{\n\tadmin %s\n\tauto_https off\n\tstorage file_system %s\n}\n\n", c.Stats, filepath.Join(c.Dir, "data"))
	fmt.Fprintf(&b, "http://:%s {\n\tbind %s\n\treverse_proxy {\n", port, host)
	for _, s := range c.Servers {
		fmt.Fprintf(&b, "\t\tto %s\n", s.Addr)
	}
	b.WriteString(indent(c.directive(p), "\t\t"))
	if h.Enabled {
		fmt.Fprintf(&b, "\t\thealth_uri /healthz\n\t\thealth_interval %s\n", proxyMs(h.Interval))
	}
	if br := c.Lab.Balancers.Breaker; br.Enabled {
		// lblab's breaker as Caddy's passive health: a server with max_fails
		// failures (5xx and 429 answers, failed connections) in the last
		// fail_duration is left out until they are older than that
		fmt.Fprintf(&b, "\t\tfail_duration %s\n\t\tmax_fails %d\n\t\tunhealthy_status 5xx 429\n", proxyMs(br.Open), BreakerFails(br))
	}
	fmt.Fprintf(&b, "\t\ttransport http {\n\t\t\tresponse_header_timeout %s\n\t\t}\n\t}\n}\n", c.timeout())
	path := filepath.Join(c.Dir, p.File)
	return b.String(), []string{"run", "--config", path, "--adapter", "caddyfile"}
}

// CommandData is what kind: command's templates are given for c, with the
// configuration written as file in c.Dir.
func (c Config) CommandData(file string) CommandData {
	host, port := splitAddr(c.Listen)
	_, sport := splitAddr(c.Stats)
	d := CommandData{Listen: c.Listen, Stats: c.Stats, ListenHost: host, ListenPort: port, StatsPort: sport,
		Dir: c.Dir, Config: filepath.Join(c.Dir, file), Algorithm: c.Lab.Balancers.Algorithm,
		TimeoutMs: c.Lab.Balancers.Timeout.Milliseconds()}
	for _, s := range c.Servers {
		h, p := splitAddr(s.Addr)
		d.Servers = append(d.Servers, CommandServer{Name: s.Name, Addr: s.Addr, Host: h, Port: p})
	}
	return d
}
