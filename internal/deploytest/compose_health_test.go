package deploytest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dnsFleets are the services other services find by DNS (--backends-dns
// HOST:PORT names them), whose replicas are the fleet.
func dnsFleets(t *testing.T, c compose) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for name, s := range c.Services {
		for _, v := range flagValues(s.Command, map[string]bool{"--backends-dns": true})["--backends-dns"] {
			host, _, err := net.SplitHostPort(v)
			if err != nil {
				t.Errorf("service %s: --backends-dns %q: %v", name, v, err)
				continue
			}
			out[host] = true
		}
	}
	return out
}

// TestComposeFleetScales checks the fleet found by DNS can be scaled: it has
// replicas, no container name and no published port (either would make a
// second replica collide), and every lblab process that talks to backends
// follows it by DNS rather than by a fixed list.
func TestComposeFleetScales(t *testing.T) {
	c := loadCompose(t)
	fleets := dnsFleets(t, c)
	if len(fleets) != 1 {
		t.Fatalf("want one fleet found by --backends-dns, got %v", fleets)
	}
	for name := range fleets {
		s := c.Services[name]
		if s.Deploy.Replicas == nil || *s.Deploy.Replicas < 2 {
			t.Errorf("service %s: deploy.replicas must be at least 2 (the fleet), got %v", name, s.Deploy.Replicas)
		}
		if len(s.Ports) > 0 {
			t.Errorf("service %s publishes %v: replicas would collide on the host port", name, s.Ports)
		}
		if s.Image != lblabImage || len(s.Command) == 0 || s.Command[0] != "backend" || len(flagValues(s.Command, map[string]bool{"--server": true})) == 0 {
			t.Errorf("service %s: want the backend with --server (each replica named after its host), got %v", name, s.Command)
		}
	}
	for _, name := range []string{"lb", "dashboard"} {
		if v := flagValues(c.Services[name].Command, map[string]bool{"--backends": true}); len(v) > 0 {
			t.Errorf("service %s lists --backends %v: it would not follow the fleet's scale", name, v)
		}
	}
}

// adminPort is the port of a service's admin API: --admin, or --listen for
// lab dashboard.
func adminPort(s service) string {
	vals := flagValues(s.Command, map[string]bool{"--admin": true, "--listen": true})
	for _, flag := range []string{"--admin", "--listen"} {
		for _, v := range vals[flag] {
			if _, port, err := net.SplitHostPort(v); err == nil {
				return port
			}
		}
	}
	return ""
}

// TestComposeHealthchecks checks every lblab service's healthcheck is `lab
// probe 127.0.0.1:PORT` on its own admin port, and runs that probe (with
// the port moved to a test server) to see it pass.
func TestComposeHealthchecks(t *testing.T) {
	c := loadCompose(t)
	lab := filepath.Join(binaries(t), "lab")
	healthz := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer healthz.Close()
	for _, name := range sortedNames(c) {
		s := c.Services[name]
		if s.Image != lblabImage {
			continue
		}
		h := s.Healthcheck
		if h == nil || len(h.Test) < 4 || !slices.Equal(h.Test[:3], []string{"CMD", "lab", "probe"}) {
			t.Errorf("service %s: want healthcheck test [CMD, lab, probe, 127.0.0.1:PORT] (the image has no shell), got %+v", name, h)
			continue
		}
		addr := h.Test[len(h.Test)-1]
		if want := net.JoinHostPort("127.0.0.1", adminPort(s)); addr != want {
			t.Errorf("service %s: the healthcheck probes %s, its admin listener is %s", name, addr, want)
		}
		if h.Interval == "" {
			t.Errorf("service %s: give the healthcheck an interval (Docker's default is 30 s)", name)
		}
		args := append(slices.Clone(h.Test[2:len(h.Test)-1]), strings.TrimPrefix(healthz.URL, "http://"))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, lab, args...).CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("service %s: lab %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
}

// TestComposeStartOrder checks every lblab service starts after the
// services it talks to are healthy: each host its flags name is in its
// depends_on with condition service_healthy, and has a healthcheck.
func TestComposeStartOrder(t *testing.T) {
	c := loadCompose(t)
	for _, name := range sortedNames(c) {
		s := c.Services[name]
		if s.Image != lblabImage {
			continue
		}
		needs := map[string]bool{}
		for flag, vals := range flagValues(s.Command, refFlags) {
			for _, v := range vals {
				for _, ref := range addrRefs(flag, v) {
					if host, _, err := net.SplitHostPort(ref); err == nil && host != name {
						needs[host] = true
					}
				}
			}
		}
		for host := range needs {
			if cond := s.DependsOn[host]; cond != "service_healthy" {
				t.Errorf("service %s talks to %s: depends_on %s needs condition service_healthy, got %q", name, host, host, cond)
			}
			if c.Services[host].Healthcheck == nil {
				t.Errorf("service %s waits for %s to be healthy, which has no healthcheck", name, host)
			}
		}
	}
	// The order the README promises: lb after its backends, the dashboard after everything.
	order := map[string][]string{"lb": {"backend"}, "loadgen": {"lb"}, "dashboard": {"backend", "lb", "loadgen"}}
	for svc, deps := range order {
		for _, d := range deps {
			if c.Services[svc].DependsOn[d] != "service_healthy" {
				t.Errorf("service %s must start once %s is healthy", svc, d)
			}
		}
	}
}
