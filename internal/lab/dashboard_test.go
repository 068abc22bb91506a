package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/attach"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/dash"
)

// waitSnapshot polls the snapshot until ok holds (or fails after limit).
func waitSnapshot(t *testing.T, addr string, limit time.Duration, what string, ok func(dash.Snapshot) bool) dash.Snapshot {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var s dash.Snapshot
		err := admin.Call(context.Background(), addr, "GET", "/api/snapshot", nil, &s)
		if err == nil && ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting %v for %s: last snapshot %+v (err %v)", limit, what, s.Window, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// The controller of lab up: the snapshot and its stream, the scenario
// list, a scenario switch, service discovery and the page itself.
func TestControllerDashboardAPI(t *testing.T) {
	addr := startUp(t, smallLab(t, "p2c", 3600))
	s := waitSnapshot(t, addr, 10*time.Second, "2 s of readings", func(s dash.Snapshot) bool { return len(s.Series.T) >= 8 })
	if len(s.Servers) != 3 || s.Servers[0].Backend == nil || len(s.Balancers) != 1 || s.Settings["algorithm"] != "p2c" {
		t.Fatalf("snapshot: %d servers, %d balancers, settings %+v", len(s.Servers), len(s.Balancers), s.Settings)
	}
	if w := s.Window; float64(w.OfferedPerS) < 100 || float64(w.OfferedPerS) > 200 || w.Goodput != 1 {
		t.Errorf("window at 150/s: %+v", w)
	}
	if len(s.Series.InServer) != 3 || len(s.Series.InServer[0]) != len(s.Series.T) {
		t.Errorf("series per server: %d columns of %d points for %d times", len(s.Series.InServer), len(s.Series.InServer[0]), len(s.Series.T))
	}
	checkStream(t, addr)
	checkScenarioList(t, addr)
	checkPage(t, addr)

	resp, err := http.Post("http://"+addr+"/api/scenario", "application/json", strings.NewReader(`{"name":"playground"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("switch to the playground: %d", resp.StatusCode)
	}
	s = waitSnapshot(t, addr, 10*time.Second, "the playground running", func(s dash.Snapshot) bool {
		return s.Scenario == "playground" && len(s.Servers) == 5 && len(s.Series.T) >= 2
	})
	if s.Narration == "" || len(s.Log) != 1 || !strings.Contains(s.Log[0].Text, "scenario playground") {
		t.Errorf("after the switch: narration %q, log %+v", s.Narration, s.Log)
	}
	var sd []control.SDTarget
	if err := admin.Call(context.Background(), addr, "GET", "/api/sd", nil, &sd); err != nil || len(sd) != 7 {
		t.Errorf("/api/sd after the switch: %d targets (want 5 backends, lb, loadgen), %v", len(sd), err)
	}
}

// checkStream reads two events from GET /api/stream.
func checkStream(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/api/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("stream content type %q", ct)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 8<<20)
	var times []float64
	for len(times) < 2 && sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
			var s struct {
				T float64 `json:"t_s"`
			}
			if err := json.Unmarshal([]byte(data), &s); err != nil {
				t.Fatalf("stream event: %v", err)
			}
			times = append(times, s.T)
		}
	}
	if len(times) < 2 || times[1] <= times[0] {
		t.Errorf("stream: snapshots at %v, want two, later after earlier", times)
	}
}

func checkScenarioList(t *testing.T, addr string) {
	t.Helper()
	var list struct {
		Scenarios []dash.ScenarioInfo `json:"scenarios"`
		Available bool                `json:"available"`
	}
	if err := admin.Call(context.Background(), addr, "GET", "/api/scenarios", nil, &list); err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, s := range list.Scenarios {
		live[s.Name] = s.Live
	}
	if !list.Available || !live["rr-slow"] || live["balls-bins"] || len(list.Scenarios) < 10 {
		t.Errorf("scenarios: available %v, %+v", list.Available, list.Scenarios)
	}
	for body, want := range map[string]string{`{"name":"balls-bins"}`: "too many", `{"name":"nope"}`: "no scenario", `{"nam":1}`: "bad JSON"} {
		err := admin.Call(context.Background(), addr, "POST", "/api/scenario", json.RawMessage(body), nil)
		if se, ok := err.(*admin.StatusError); !ok || se.Code != 400 || !strings.Contains(se.Msg, want) {
			t.Errorf("POST /api/scenario %s: %v, want 400 mentioning %q", body, err, want)
		}
	}
}

// checkPage fetches the embedded dashboard: it must not load anything from
// another host.
func checkPage(t *testing.T, addr string) {
	t.Helper()
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) < 100 {
			t.Errorf("GET %s: %d, %d bytes", path, resp.StatusCode, len(body))
		}
		for _, ext := range []string{"https://", "//fonts.", "//cdn"} {
			if path != "/app.js" && strings.Contains(string(body), ext) {
				t.Errorf("%s refers to %q: the dashboard must work offline", path, ext)
			}
		}
	}
}

// upToAttach starts a lab up whose processes share a token, and returns
// its address, the options of a dashboard that presents that token, and
// the processes' service-discovery targets, for the test to attach to.
func upToAttach(t *testing.T) (string, AttachOptions, []control.SDTarget) {
	t.Helper()
	token := admin.NewToken()
	upAddr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) { o.Token = token })
	var sd []control.SDTarget
	if err := admin.Call(context.Background(), upAddr, "GET", "/api/sd", nil, &sd); err != nil {
		t.Fatal(err)
	}
	return upAddr, AttachOptions{Options: Options{Log: zap.NewNop(), Logs: io.Discard, Token: token}, Listen: "127.0.0.1:0"}, sd
}

// startAttach runs lab dashboard's Attach with o until the test ends and
// returns its context and the controller's address.
func startAttach(t *testing.T, o AttachOptions) (context.Context, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	lastControllerAddr.Store("")
	go func() { done <- Attach(ctx, o) }()
	t.Cleanup(func() { cancel(); <-done })
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	return ctx, waitController(t, wctx)
}

// lab dashboard attaches to processes it did not start: it reads them and
// forwards drills, but refuses to add servers or switch scenarios.
func TestAttachToRunningLab(t *testing.T) {
	upAddr, o, sd := upToAttach(t)
	for _, e := range sd {
		ep := attach.Endpoint{Name: e.Labels["name"], Admin: e.Targets[0]}
		switch e.Labels["process"] {
		case "lb":
			o.LBs = append(o.LBs, ep)
		case "backend":
			o.Backends = append(o.Backends, ep)
		default:
			o.Loadgen = ep.Admin
		}
	}
	ctx, addr := startAttach(t, o)
	s := waitSnapshot(t, addr, 5*time.Second, "readings", func(s dash.Snapshot) bool { return len(s.Series.T) >= 2 })
	if s.Mode != "attach" || len(s.Servers) != 3 || s.Features.AddServer || s.Features.Scenarios {
		t.Errorf("attached snapshot: mode %q, %d servers, features %+v", s.Mode, len(s.Servers), s.Features)
	}
	for path, body := range map[string]string{"/api/chaos": `{"action":"add-server"}`, "/api/scenario": `{"name":"rr-slow"}`} {
		err := admin.Call(ctx, addr, "POST", path, json.RawMessage(body), nil)
		if se, ok := err.(*admin.StatusError); !ok || se.Code != 400 {
			t.Errorf("POST %s %s in attach mode: %v, want 400", path, body, err)
		}
	}
	if err := admin.Call(ctx, addr, "POST", "/api/chaos", json.RawMessage(`{"action":"slow","target":"s2","speed":0.5}`), nil); err != nil {
		t.Fatalf("a drill through the attached dashboard: %v", err)
	}
	waitSnapshot(t, upAddr, 3*time.Second, "s2 slowed", func(s dash.Snapshot) bool {
		return len(s.Servers) == 3 && s.Servers[1].Backend != nil && s.Servers[1].Backend.Speed == 0.5
	})
}
