package deploytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// The compose lab under a real Docker engine: `make compose-test` installs
// and starts the engine (deploy/offline/engine.sh), makes the stand-in base
// images (deploy/offline/standins.sh) and runs this test with
// LBLAB_COMPOSE_TEST=1. It builds lblab:local from deploy/Dockerfile,
// brings up deploy/compose.yaml (with deploy/offline/compose.yaml for the
// image it cannot pull) and checks what a user would: every backend answers
// through the lb, a drill shows in the answers, the loadgen counts, the
// fleet scales by DNS, and `down -v` leaves nothing. Its own traffic goes
// only to the ports published on 127.0.0.1.

const (
	composeProject = "lblabtest" // not the file's name: a user's running lab is left alone
	lbURL          = "http://127.0.0.1:8080"
	dashAddr       = "127.0.0.1:8000"
	promAddr       = "127.0.0.1:9090"
	dnsEvery       = 2 * time.Second // --dns-interval in compose.yaml
)

func TestComposeLab(t *testing.T) {
	if os.Getenv("LBLAB_COMPOSE_TEST") == "" {
		t.Skip("needs a Docker engine: run make compose-test")
	}
	// compose refuses to start without LBLAB_TOKEN (the admin APIs bind
	// 0.0.0.0); the test's calls to the dashboard present it.
	if os.Getenv("LBLAB_TOKEN") == "" {
		t.Setenv("LBLAB_TOKEN", composeTestToken)
	}
	c := &composeLab{t: t, files: []string{repoFile("deploy", "compose.yaml"), repoFile("deploy", "offline", "compose.yaml")}}
	c.engine()
	c.portsFree("8080", "8000", "9090")
	t.Cleanup(c.cleanup)

	start := time.Now()
	c.must(40*time.Minute, "build", "backend")
	t.Logf("build: lblab:local from deploy/Dockerfile in %v", time.Since(start).Round(time.Second))
	c.must(5*time.Minute, "up", "-d", "--no-build", "--wait", "--wait-timeout", "240",
		"backend", "lb", "loadgen", "dashboard", "prometheus")
	c.healthy()

	fleet := c.backendNames()
	if len(fleet) != 5 {
		t.Fatalf("want 5 backends (deploy.replicas), got %v", fleet)
	}
	c.waitState("the lb and the dashboard to hold the 5 backends", func(s labState) error { return s.fleetIs(fleet) })
	c.answerAll(fleet)
	c.waitTargetsUp(len(fleet) + 2) // + lb and loadgen
	c.loadgenCounts()

	c.drill(fleet[1])
	before := c.settledFailures()

	grown := c.scale(8)
	added := slices.DeleteFunc(slices.Clone(grown), func(n string) bool { return slices.Contains(fleet, n) })
	c.followedWithinTwoRounds(grown, added)
	c.answerAll(added)
	c.waitTargetsUp(len(grown) + 2)

	shrunk := c.scale(5)
	c.waitState("the lb and the dashboard to drop the 3 removed backends", func(s labState) error { return s.fleetIs(shrunk) })
	after := c.settledFailures()
	t.Logf("scale 5 -> 8 -> 5: the loadgen's failed requests %d before, %d after", before, after)
	if after != before {
		t.Errorf("%d requests failed while the fleet scaled (the drill's were counted before)", after-before)
	}

	c.down()
}

// bearer is the header that presents the lab's token, for getJSON.
func bearer() []string { return []string{"Authorization", "Bearer " + os.Getenv("LBLAB_TOKEN")} }

// composeLab runs docker compose on the lab's files.
type composeLab struct {
	t         *testing.T
	files     []string
	diagnosed bool
}

// run runs `docker compose ARGS` within timeout and returns its output.
func (c *composeLab) run(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	full := []string{"compose", "-p", composeProject}
	for _, f := range c.files {
		full = append(full, "-f", f)
	}
	cmd := exec.CommandContext(ctx, "docker", append(full, args...)...)
	cmd.Env = append(os.Environ(), "DOCKER_BUILDKIT=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (c *composeLab) must(timeout time.Duration, args ...string) string {
	c.t.Helper()
	out, err := c.run(timeout, args...)
	if err != nil {
		c.t.Fatalf("docker compose %s: %v\n%s", strings.Join(args, " "), err, tail(out, 40))
	}
	return out
}

func docker(timeout time.Duration, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// engine logs the engine's and compose's versions; without an engine the
// test fails under CI and skips elsewhere, saying why.
func (c *composeLab) engine() {
	c.t.Helper()
	ver, err := docker(20*time.Second, "version", "--format", "{{.Server.Version}} (API {{.Server.APIVersion}})")
	comp, cerr := docker(20*time.Second, "compose", "version", "--short")
	if err == nil && cerr == nil {
		c.t.Logf("engine: Docker %s, compose %s", ver, comp)
		return
	}
	reason := fmt.Sprintf("docker version: %v %s; docker compose version: %v %s", err, ver, cerr, comp)
	if log := os.Getenv("DOCKERD_LOG"); log != "" {
		if data, rerr := os.ReadFile(log); rerr == nil {
			reason += "\ndockerd's log ends:\n" + tail(string(data), 20)
		}
	}
	if os.Getenv("CI") != "" {
		c.t.Fatalf("no Docker engine with compose (deploy/offline/engine.sh should have started one): %s", reason)
	}
	c.t.Skipf("SKIPPED: no Docker engine with compose here: %s", reason)
}

// portsFree checks the ports compose publishes are free on 127.0.0.1.
func (c *composeLab) portsFree(ports ...string) {
	c.t.Helper()
	for _, p := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:"+p)
		if err != nil {
			msg := fmt.Sprintf("127.0.0.1:%s, which compose publishes, is taken (%v): stop what listens there (lab up? another compose lab?)", p, err)
			if os.Getenv("CI") != "" {
				c.t.Fatal(msg)
			}
			c.t.Skip("SKIPPED: " + msg)
		}
		ln.Close()
	}
}

// healthy logs every container's state and health; lblab's must be healthy.
func (c *composeLab) healthy() {
	c.t.Helper()
	out := c.must(time.Minute, "ps", "--format", "json")
	type row struct{ Name, Service, State, Health string }
	var rows []row
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() { // one object per line (compose >= 2.21), or one array
		line := strings.TrimSpace(sc.Text())
		var r row
		var many []row
		switch {
		case json.Unmarshal([]byte(line), &many) == nil:
			rows = append(rows, many...)
		case json.Unmarshal([]byte(line), &r) == nil:
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return strings.Compare(a.Name, b.Name) })
	var lines []string
	for _, r := range rows {
		lines = append(lines, fmt.Sprintf("%-24s %-8s %s", r.Name, r.State, r.Health))
		if r.Service != "prometheus" && (r.State != "running" || r.Health != "healthy") {
			c.t.Errorf("%s is %s, %q: want running and healthy", r.Name, r.State, r.Health)
		}
	}
	c.t.Logf("services:\n  %s", strings.Join(lines, "\n  "))
	if len(rows) != 9 {
		c.t.Errorf("want 9 containers (5 backends, lb, loadgen, dashboard, prometheus), got %d", len(rows))
	}
}

// backendNames are the running backends' host names: the names they give
// themselves (backend --server without --name).
func (c *composeLab) backendNames() []string {
	c.t.Helper()
	ids := strings.Fields(c.must(time.Minute, "ps", "-q", "backend"))
	if len(ids) == 0 {
		c.t.Fatal("no backend container runs")
	}
	out, err := docker(time.Minute, append([]string{"inspect", "--format", "{{.Config.Hostname}}"}, ids...)...)
	if err != nil {
		c.t.Fatalf("docker inspect: %v %s", err, out)
	}
	names := strings.Fields(out)
	slices.Sort(names)
	return names
}

// answerAll sends requests to the lb until each of names has answered at
// least once (at most 3000 requests, 90 s), and logs who answered how often.
func (c *composeLab) answerAll(names []string) {
	c.t.Helper()
	counts := map[string]int{}
	statuses := map[int]int{}
	deadline := time.Now().Add(90 * time.Second)
	n := 0
	for ; n < 3000 && time.Now().Before(deadline); n++ {
		status, server := lbGet()
		statuses[status]++
		counts[server]++
		if !slices.ContainsFunc(names, func(s string) bool { return counts[s] == 0 }) {
			n++
			break
		}
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(counts)) {
		parts = append(parts, fmt.Sprintf("%s=%d", orNone(name), counts[name]))
	}
	c.t.Logf("%d requests to the lb, answered by: %s (statuses %v)", n, strings.Join(parts, " "), statuses)
	for _, name := range names {
		if counts[name] == 0 {
			c.t.Errorf("backend %s never answered", name)
		}
	}
}

func orNone(s string) string {
	if s == "" {
		return "(no server)"
	}
	return s
}

// lbGet sends one request to the lb: its status and X-Lab-Server (0, ""
// when the request got no answer).
func lbGet() (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", lbURL+"/hello", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("X-Lab-Server")
}

// labState is the part of the dashboard's GET /api/state this test reads.
type labState struct {
	Balancers []struct {
		Name     string `json:"name"`
		Backends []struct {
			Name    string `json:"name"`
			Present bool   `json:"present"`
			Healthy bool   `json:"healthy"`
			Breaker string `json:"breaker"`
			Picks   uint64 `json:"picks"`
		} `json:"backends"`
		Discovery *struct {
			Rounds  uint64 `json:"rounds"`
			Members int    `json:"members"`
			Error   string `json:"error"`
		} `json:"discovery"`
	} `json:"balancers"`
	Servers []struct {
		Name string `json:"name"`
	} `json:"servers"`
	Loadgen struct {
		Targets []struct {
			Requests  uint64 `json:"requests"`
			Succeeded uint64 `json:"succeeded"`
			Failed    uint64 `json:"failed"`
		} `json:"targets"`
	} `json:"loadgen"`
	Log []struct {
		T    float64 `json:"t_s"`
		Text string  `json:"text"`
	} `json:"log"`
}

func (c *composeLab) state() (labState, error) {
	var s labState
	err := getJSON(context.Background(), "http://"+dashAddr+"/api/state", &s, bearer()...)
	if err == nil && (len(s.Balancers) != 1 || len(s.Loadgen.Targets) != 1 || s.Balancers[0].Discovery == nil) {
		err = fmt.Errorf("want one lb with DNS discovery and one loadgen target, got %+v", s)
	}
	return s, err
}

// lbFleet is the backends the lb has (present), sorted.
func (s labState) lbFleet() []string {
	var out []string
	for _, b := range s.Balancers[0].Backends {
		if b.Present {
			out = append(out, b.Name)
		}
	}
	slices.Sort(out)
	return out
}

// fleetIs checks the lb and the dashboard both hold exactly names.
func (s labState) fleetIs(names []string) error {
	var dash []string
	for _, v := range s.Servers {
		dash = append(dash, v.Name)
	}
	slices.Sort(dash)
	if lb := s.lbFleet(); !slices.Equal(lb, names) || !slices.Equal(dash, names) {
		return fmt.Errorf("lb has %v, dashboard %v, want %v", lb, dash, names)
	}
	return nil
}

// waitState polls /api/state every 250 ms until check passes (at most 60 s).
func (c *composeLab) waitState(what string, check func(labState) error) labState {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var s labState
	waitFor(ctx, c.t, what, func() error {
		var err error
		if s, err = c.state(); err != nil {
			return err
		}
		return check(s)
	})
	return s
}

// waitTargetsUp waits (at most 90 s) for Prometheus to scrape want targets,
// all up: every backend found by DNS, the lb and the loadgen.
func (c *composeLab) waitTargetsUp(want int) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	waitFor(ctx, c.t, fmt.Sprintf("Prometheus to see %d lblab targets up", want), func() error { return targetsUp(ctx, promAddr, want) })
	c.t.Logf("prometheus: %d lblab targets, all up", want)
}

// loadgenCounts checks the loadgen's counters move.
func (c *composeLab) loadgenCounts() {
	c.t.Helper()
	first := c.waitState("the loadgen's counters", func(labState) error { return nil }).Loadgen.Targets[0]
	s := c.waitState("the loadgen's counters to move", func(s labState) error {
		if t := s.Loadgen.Targets[0]; t.Requests <= first.Requests || t.Succeeded <= first.Succeeded {
			return fmt.Errorf("requests %d, succeeded %d: not moving", t.Requests, t.Succeeded)
		}
		return nil
	})
	t := s.Loadgen.Targets[0]
	c.t.Logf("loadgen: %d requests, %d succeeded, %d failed (was %d, %d)", t.Requests, t.Succeeded, t.Failed, first.Requests, first.Succeeded)
}

// chaos posts a drill to the dashboard.
func (c *composeLab) chaos(action, target string) {
	c.t.Helper()
	body, _ := json.Marshal(map[string]string{"action": action, "target": target})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://"+dashAddr+"/api/chaos", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("LBLAB_TOKEN"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("drill %s %s: %v", action, target, err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		c.t.Fatalf("drill %s %s: %s %s", action, target, resp.Status, out)
	}
}

// drill kills one backend through the dashboard: the lb's health checks
// take it out (its breaker may open first), and 100 requests in a row are
// not answered by it; a restart brings it back into the answers.
func (c *composeLab) drill(victim string) {
	c.t.Helper()
	c.chaos("kill", victim)
	s := c.waitState("the lb's health checks to take out "+victim, func(s labState) error {
		for _, b := range s.Balancers[0].Backends {
			if b.Name == victim && b.Present && !b.Healthy {
				return nil
			}
		}
		return fmt.Errorf("%s is still healthy", victim)
	})
	for _, b := range s.Balancers[0].Backends {
		if b.Name == victim {
			c.t.Logf("drill: kill %s -> the lb marks it healthy=%v, breaker %s", victim, b.Healthy, b.Breaker)
		}
	}
	statuses := map[int]int{}
	for range 100 {
		status, server := lbGet()
		statuses[status]++
		if answeredBy(status, server, victim) {
			c.t.Fatalf("drill: %s answered (%d) after the lb took it out", victim, status)
		}
	}
	c.t.Logf("drill: 100 requests after that, none answered by %s (statuses %v)", victim, statuses)

	c.chaos("restart", victim)
	deadline := time.Now().Add(60 * time.Second)
	for n := 1; n <= 3000 && time.Now().Before(deadline); n++ {
		if status, server := lbGet(); answeredBy(status, server, victim) {
			c.t.Logf("drill: restart %s -> it answers again, request %d after the restart", victim, n)
			return
		}
	}
	c.t.Fatalf("drill: %s did not answer again within 3000 requests or 60 s of its restart", victim)
}

// answeredBy says whether the backend name answered: the lb names the
// backend on its own 502 and 504 too, when it could not reach it.
func answeredBy(status int, server, name string) bool {
	return server == name && status != http.StatusBadGateway && status != http.StatusGatewayTimeout
}

// settledFailures is the loadgen's failed count once the lb has every
// backend healthy with a closed breaker and the count has not moved for 4 s
// (at most 60 s).
func (c *composeLab) settledFailures() uint64 {
	c.t.Helper()
	var last uint64
	var since time.Time
	s := c.waitState("the failed count to settle", func(s labState) error {
		for _, b := range s.Balancers[0].Backends {
			if b.Present && (!b.Healthy || b.Breaker != "closed") {
				since = time.Time{}
				return fmt.Errorf("%s: healthy=%v, breaker %s", b.Name, b.Healthy, b.Breaker)
			}
		}
		f := s.Loadgen.Targets[0].Failed
		if since.IsZero() || f != last {
			last, since = f, time.Now()
		}
		if time.Since(since) < 4*time.Second {
			return fmt.Errorf("failed %d, unchanged for %v", f, time.Since(since).Round(time.Second))
		}
		return nil
	})
	return s.Loadgen.Targets[0].Failed
}

// scale resizes the backend service and returns the new fleet's names.
func (c *composeLab) scale(n int) []string {
	c.t.Helper()
	before := c.backendNames()
	c.must(5*time.Minute, "up", "-d", "--no-build", "--no-recreate", "--no-deps", "--wait", "--wait-timeout", "240",
		"--scale", fmt.Sprintf("backend=%d", n), "backend")
	after := c.backendNames()
	if len(after) != n {
		c.t.Fatalf("scale backend=%d: %d run: %v", n, len(after), after)
	}
	gone := slices.DeleteFunc(slices.Clone(before), func(s string) bool { return slices.Contains(after, s) })
	added := slices.DeleteFunc(slices.Clone(after), func(s string) bool { return slices.Contains(before, s) })
	c.t.Logf("scale backend=%d: added %v, removed %v", n, added, gone)
	return after
}

// followedWithinTwoRounds checks the lb holds the grown fleet, and has sent
// traffic to each new replica, within two discovery rounds of compose
// reporting them healthy (in DNS and listening); the dashboard follows too.
func (c *composeLab) followedWithinTwoRounds(names, added []string) {
	c.t.Helper()
	s0, err := c.state()
	if err != nil {
		c.t.Fatal(err)
	}
	r0 := s0.Balancers[0].Discovery.Rounds
	s := c.waitState("the lb to hold the grown fleet and send to the new backends", func(s labState) error {
		if lb := s.lbFleet(); !slices.Equal(lb, names) {
			return fmt.Errorf("lb has %v, want %v", lb, names)
		}
		for _, b := range s.Balancers[0].Backends {
			if b.Present && b.Picks == 0 && slices.Contains(added, b.Name) {
				return fmt.Errorf("no request sent to %s yet", b.Name)
			}
		}
		return nil
	})
	rounds := s.Balancers[0].Discovery.Rounds - r0
	c.t.Logf("scale: the lb held all %d backends and had sent to each new one %d discovery rounds (interval %v) after compose reported them healthy (at most 2 allowed)",
		len(names), rounds, dnsEvery)
	if rounds > 2 {
		c.t.Errorf("the lb took %d rounds to add the new backends and send them traffic, want at most 2", rounds)
	}
	c.waitState("the dashboard to hold the grown fleet", func(s labState) error { return s.fleetIs(names) })
}

// down runs `down -v` and checks no container, network or volume of the
// project is left.
func (c *composeLab) down() {
	c.t.Helper()
	c.diagnose()
	ids := strings.Fields(c.must(time.Minute, "ps", "-aq"))
	volumes, err := docker(time.Minute, append([]string{"inspect", "--format",
		`{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}`}, ids...)...)
	if err != nil {
		c.t.Fatalf("docker inspect: %v %s", err, volumes)
	}
	c.must(3*time.Minute, "down", "-v", "--remove-orphans", "--timeout", "15")
	label := "label=com.docker.compose.project=" + composeProject
	var left []string
	for _, kind := range []string{"container", "network", "volume"} {
		args := []string{kind, "ls", "-q", "--filter", label}
		if kind == "container" {
			args = []string{"ps", "-aq", "--filter", label}
		}
		if out, err := docker(time.Minute, args...); err != nil || out != "" {
			left = append(left, fmt.Sprintf("%ss: %q (%v)", kind, out, err))
		}
	}
	for _, v := range strings.Fields(volumes) { // the image's anonymous volumes carry no label
		if _, err := docker(time.Minute, "volume", "inspect", v); err == nil {
			left = append(left, "volume "+v)
		}
	}
	if len(left) > 0 {
		c.t.Errorf("down -v left: %s", strings.Join(left, "; "))
		return
	}
	c.t.Logf("down -v: no containers, networks or volumes left (%d containers and %d volumes removed)", len(ids), len(strings.Fields(volumes)))
}

// diagnose logs, once and only if the test failed, what the lab says:
// the dashboard's event log (breakers, health, discovery), the services'
// last log lines and the machine's load.
func (c *composeLab) diagnose() {
	if !c.t.Failed() || c.diagnosed {
		return
	}
	c.diagnosed = true
	var s labState
	if err := getJSON(context.Background(), "http://"+dashAddr+"/api/state", &s, bearer()...); err == nil {
		var lines []string
		for _, l := range s.Log[max(0, len(s.Log)-80):] {
			lines = append(lines, fmt.Sprintf("%7.1fs %s", l.T, l.Text))
		}
		c.t.Logf("the dashboard's event log ends:\n%s", strings.Join(lines, "\n"))
	}
	out, _ := c.run(time.Minute, "logs", "--no-color", "--tail", "15")
	c.t.Logf("the services' last log lines:\n%s", tail(out, 150))
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		c.t.Logf("load average: %s", strings.TrimSpace(string(data)))
	}
}

// cleanup takes the lab down whatever happened.
func (c *composeLab) cleanup() {
	c.diagnose()
	if out, err := c.run(3*time.Minute, "down", "-v", "--remove-orphans", "--timeout", "15"); err != nil {
		c.t.Errorf("cleanup: docker compose down: %v\n%s", err, tail(out, 20))
	}
}
