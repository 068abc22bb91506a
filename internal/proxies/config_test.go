package proxies

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/testbin"
)

// Every algorithm of the table reaches the proxy's configuration as the
// table writes it, with the servers, the timeout, and the health checks
// where the proxy has them.
func TestProxyConfigs(t *testing.T) {
	for _, p := range All {
		for _, a := range p.Algorithms {
			lab := labfile.Default()
			for _, kv := range [][2]string{{"balancers.kind", p.Kind}, {"balancers.algorithm", a.Algorithm},
				{"balancers.timeout", "250ms"}, {"balancers.choices", "2"}} {
				if err := lab.Apply(kv[0], kv[1]); err != nil {
					t.Fatalf("%s %s: %v", p.Kind, a.Algorithm, err)
				}
			}
			c := Config{Lab: lab, Dir: "/d", Listen: "127.0.0.1:1001", Stats: "127.0.0.1:1002",
				Servers: []Server{{Name: "s1", Addr: "127.0.0.1:2001", Speed: 2, Agent: "127.0.0.1:3001"}, {Name: "s2", Addr: "127.0.0.1:2002", Speed: 0.5, Agent: "127.0.0.1:3002"}}}
			text, args := p.Write(c)
			d, _ := p.Directive(a.Algorithm, &lab.Balancers)
			for _, line := range strings.Split(d, "\n") {
				if !strings.Contains(text, line) {
					t.Errorf("%s %s: the configuration lacks %q:\n%s", p.Kind, a.Algorithm, line, text)
				}
			}
			for _, want := range []string{":1001", "127.0.0.1:1002", "127.0.0.1:2001", "127.0.0.1:2002", "250ms"} {
				if !strings.Contains(text, want) {
					t.Errorf("%s %s: the configuration lacks %q:\n%s", p.Kind, a.Algorithm, want, text)
				}
			}
			if !strings.Contains(strings.Join(args, " "), "/d/"+p.File) {
				t.Errorf("%s: command line %q does not name its configuration", p.Kind, args)
			}
			// weighted round robin weighs each server by its speed (2 and
			// 0.5: 256 and 64); every other algorithm gives no weights
			fast, slow := fmt.Sprintf(p.Weight, 256), fmt.Sprintf(p.Weight, 64)
			if has := strings.Contains(text, "127.0.0.1:2001 "+fast) && strings.Contains(text, "127.0.0.1:2002 "+slow); has != a.Weighted {
				t.Errorf("%s %s: servers weighted %v, want %v:\n%s", p.Kind, a.Algorithm, has, a.Weighted, text)
			}
			if !a.Weighted && !a.Agent && p.Weight != "" && strings.Contains(text, strings.TrimSuffix(p.Weight, "%d")) {
				t.Errorf("%s %s: a weight in an unweighted configuration:\n%s", p.Kind, a.Algorithm, text)
			}
			// wrr-orca: each server weighs itself through its own agent
			// port, asked every weight_update_period (1s by default), from
			// the initial weight 100 its answers are percentages of
			agent := strings.Contains(text, "127.0.0.1:2001 weight 100 agent-check agent-port 3001 agent-inter 1000ms") &&
				strings.Contains(text, "127.0.0.1:2002 weight 100 agent-check agent-port 3002 agent-inter 1000ms")
			if agent != a.Agent || strings.Contains(text, "agent-check") != a.Agent {
				t.Errorf("%s %s: servers answering the agent check %v, want %v:\n%s", p.Kind, a.Algorithm, agent, a.Agent, text)
			}
		}
	}
	lab := labfile.Default()
	if err := lab.ApplyAll([][2]string{{"balancers.kind", "haproxy"}, {"balancers.health.enabled", "true"}, {"balancers.health.fails", "3"}}); err != nil {
		t.Fatal(err)
	}
	p, _ := ByKind("haproxy")
	text, _ := p.Write(Config{Lab: lab, Dir: "/d", Servers: []Server{{Name: "s1", Addr: "127.0.0.1:2001", Speed: 1, Agent: ""}}})
	if !strings.Contains(text, "option httpchk GET /healthz") || !strings.Contains(text, "server s1 127.0.0.1:2001 check inter 1000ms fall 3 rise 2") {
		t.Errorf("HAProxy's health checks are not the lab's:\n%s", text)
	}
}

// lblab's breaker is written as each proxy's passive health checks: the
// failures that open it (threshold of window) and its open time, with
// HAProxy's checks only bringing a server back and nginx's one retry that
// makes it count an answer as a failure.
func TestProxyBreakerConfigs(t *testing.T) {
	want := map[string][]string{
		"haproxy": {"option httpchk GET /healthz", "server s1 127.0.0.1:2001 check inter 1h fastinter 1500ms downinter 1500ms fall 1 rise 4 observe layer7 error-limit 8 on-error mark-down"},
		"nginx":   {"server 127.0.0.1:2001 max_fails=8 fail_timeout=2s;", "proxy_next_upstream error timeout http_500 http_502 http_503 http_504 http_429;", "proxy_next_upstream_tries 2;"},
		"caddy":   {"fail_duration 1500ms", "max_fails 8", "unhealthy_status 5xx 429"},
	}
	for _, p := range All {
		lab := labfile.Default()
		if err := lab.ApplyAll([][2]string{{"balancers.kind", p.Kind}, {"balancers.algorithm", "least-outstanding"}, {"balancers.breaker.enabled", "true"},
			{"balancers.breaker.window", "15"}, {"balancers.breaker.threshold", "0.5"}, {"balancers.breaker.open", "1500ms"}, {"balancers.breaker.probes", "4"}}); err != nil {
			t.Fatal(err)
		}
		text, _ := p.Write(Config{Lab: lab, Dir: "/d", Listen: "127.0.0.1:1001", Stats: "127.0.0.1:1002",
			Servers: []Server{{Name: "s1", Addr: "127.0.0.1:2001", Speed: 1, Agent: ""}}})
		for _, w := range want[p.Kind] {
			if !strings.Contains(text, w) {
				t.Errorf("%s: the configuration lacks %q:\n%s", p.Kind, w, text)
			}
		}
	}
}

// proxyCheck is each proxy's own check of a configuration, as its
// command line after the program (the file's path appended).
var proxyCheck = map[string][]string{
	"haproxy": {"-c", "-q", "-f"},
	"nginx":   {"-q", "-t", "-e", "stderr", "-c"},
	"caddy":   {"validate", "--adapter", "caddyfile", "--config"},
}

// Every configuration lab writes is one the proxy itself accepts: each
// algorithm of the table (weights, hash-balance-factor and all), plain,
// with health checks where the proxy has them, and with the breaker as its
// passive checks. (TestProxyConfigs reads the text; this asks the proxy.)
func TestProxyConfigsPassTheProxysCheck(t *testing.T) {
	for _, p := range All {
		t.Run(p.Kind, func(t *testing.T) {
			testbin.Tool(t, p.Binary, "apt-get install -y "+p.Package)
			checked := 0
			defer func() { t.Logf("%d configurations checked by %s", checked, p.Binary) }()
			for _, a := range p.Algorithms {
				for _, extra := range [][][2]string{nil, {{"balancers.health.enabled", "true"}, {"balancers.health.fails", "1"}, {"balancers.health.passes", "1"}}, {{"balancers.breaker.enabled", "true"}}} {
					lab := labfile.Default()
					sets := append([][2]string{{"balancers.kind", p.Kind}, {"balancers.algorithm", a.Algorithm}, {"balancers.timeout", "250ms"}}, extra...)
					if err := lab.ApplyAll(sets); err != nil && extra == nil {
						t.Fatalf("%s %s: %v", p.Kind, a.Algorithm, err)
					} else if err != nil {
						continue // a setting this proxy refuses (nginx's active checks)
					}
					checked++
					dir := t.TempDir()
					c := Config{Lab: lab, Dir: dir, Listen: "127.0.0.1:1001", Stats: "127.0.0.1:1002",
						Servers: []Server{{Name: "s1", Addr: "127.0.0.1:2001", Speed: 2, Agent: "127.0.0.1:3001"}, {Name: "s2", Addr: "127.0.0.1:2002", Speed: 0.5, Agent: "127.0.0.1:3002"}}}
					text, _ := p.Write(c)
					path := filepath.Join(dir, p.File)
					if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
						t.Fatal(err)
					}
					cmd := exec.Command(p.Binary, append(proxyCheck[p.Kind], path)...)
					cmd.Dir = dir
					cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Errorf("%s %s %v: %s refuses the configuration: %v\n%s\n%s", p.Kind, a.Algorithm, extra, p.Binary, err, out, text)
					}
				}
			}
		})
	}
}
