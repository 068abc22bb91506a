//go:build !js

package dash_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/watch"
	"github.com/lblab/lblab/scenarios"
)

// The routes both clocks serve are the one table's (dash.SharedRoutes):
// the live controller's API and lab watch's each hold every shared route,
// marked as the table's, with its doc line, and no route of their own at
// a shared path. Over HTTP both answer those paths with the table's typed
// answers (decoded strictly: no field the type lacks), the same drill and
// scenario the same way, and the same bad bodies with the same 4xx JSON,
// byte for byte.
func TestBothClocksServeTheSharedRoutes(t *testing.T) {
	const scenario = "rr-slow"
	live, virtual := liveController(t, scenario), virtualServer(t, scenario)
	shared := dash.SharedRoutes(virtual.srv)
	for _, side := range []struct {
		name  string
		table []dash.Route
	}{{"the live controller", live.c.Routes()}, {"lab watch", virtual.srv.Routes()}} {
		checkTable(t, side.name, side.table, shared)
	}

	bases := map[string]string{"the live controller": live.base, "lab watch": virtual.base}
	get := func(path string, v any) {
		t.Helper()
		for name, base := range bases {
			code, _, body := request(t, "GET", base+path, "")
			if code != 200 {
				t.Errorf("%s: GET %s: %d %s", name, path, code, body)
				continue
			}
			if err := strict(body, v); err != nil {
				t.Errorf("%s: GET %s: %v: %s", name, path, err, body)
			}
		}
	}
	var health dash.Health
	get(dash.HealthPath, &health)
	if !health.OK {
		t.Errorf("GET %s: %+v, want ok", dash.HealthPath, health)
	}
	lists := map[string]dash.ScenarioList{}
	for name, base := range bases {
		var l dash.ScenarioList
		_, _, body := request(t, "GET", base+dash.ScenariosPath, "")
		if err := strict(body, &l); err != nil {
			t.Fatalf("%s: GET %s: %v: %s", name, dash.ScenariosPath, err, body)
		}
		lists[name] = l
	}
	names := func(l dash.ScenarioList) []string {
		var out []string
		for _, s := range l.Scenarios {
			out = append(out, s.Name)
		}
		return out
	}
	for name, l := range lists {
		if !slices.Equal(names(l), scenarios.Names()) || l.Current != scenario || !l.Available {
			t.Errorf("%s: GET %s: %v, current %q, available %v; want every built-in scenario, %s current, switching available",
				name, dash.ScenariosPath, names(l), l.Current, l.Available, scenario)
		}
	}
	for name, base := range bases {
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			code, h, body := request(t, "GET", base+dash.SnapshotPath, "")
			if code == 503 && time.Now().Before(deadline) {
				continue // the controller's first reading
			}
			var snap struct{ Lab string }
			if err := json.Unmarshal([]byte(body), &snap); code != 200 || err != nil || h.Get("Cache-Control") != "no-cache" {
				t.Errorf("%s: GET %s: %d %v %q", name, dash.SnapshotPath, code, err, h)
			}
			break
		}
	}

	for name, a := range answers[dash.Applied](t, bases, dash.ChaosPath, `{"action":"slow","target":"s3","speed":0.5,"for":"10s"}`) {
		if !a.OK || a.Applied != "slow s3 speed=0.5 for=10s" || a.Undo != "restore s3" || a.UndoInS != 10 {
			t.Errorf("%s: POST %s: %+v, want slow s3 applied and restore s3 in 10 s", name, dash.ChaosPath, a)
		}
	}
	herd, setting, err := dash.ScenarioSetting("herd")
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range answers[dash.Started](t, bases, dash.ScenarioPath, `{"name":"herd"}`) {
		if !s.OK || s.Scenario != "herd" || s.Setting != setting || s.Narration != herd.Narration {
			t.Errorf("%s: POST %s: %+v, want herd started with its setting %q and its narration", name, dash.ScenarioPath, s, setting)
		}
	}
	if live.switched != "herd" {
		t.Errorf("the live controller switched to %q, want herd", live.switched)
	}

	// What a route refuses, both refuse alike: the body's decoding and the
	// checks of the drill and of the scenario's name are written once.
	for _, c := range []struct {
		path, body string
		code       int
	}{
		{dash.ChaosPath, `{"action":"kill","bogus":1}`, 400},
		{dash.ChaosPath, `not json`, 400},
		{dash.ChaosPath, ``, 400},
		{dash.ChaosPath, `{"action":"kill","target":"s2"}{}`, 400},
		{dash.ChaosPath, `{"action":"slow","target":"s2","speed":-1}`, 400},
		{dash.ChaosPath, `{"action":"slow","target":"s99","speed":0.5}`, 400},
		{dash.ChaosPath, `{"action":"gc","target":"s2","pause":"300ms","for":"30s"}`, 400},
		{dash.ChaosPath, `{"target":"` + strings.Repeat("x", 3<<20) + `"}`, 413},
		{dash.ScenarioPath, `{"name":"herd","speed":2}`, 400},
		{dash.ScenarioPath, `[1]`, 400},
		{dash.ScenarioPath, `{"name":"no-such-scenario"}`, 400},
	} {
		what := fmt.Sprintf("POST %s %.50s", c.path, c.body)
		answers := map[string]string{}
		for name, base := range bases {
			code, h, body := request(t, "POST", base+c.path, c.body)
			var refusal dash.Refusal
			if err := strict(body, &refusal); code != c.code || err != nil || refusal.Code != c.code || refusal.Error == "" ||
				h.Get("Content-Type") != "application/json" {
				t.Errorf("%s: %s: %d %q %s, want %d and {\"code\": %d, \"error\": ...}", name, what, code, h.Get("Content-Type"), body, c.code, c.code)
			}
			answers[name] = body
		}
		if answers["the live controller"] != answers["lab watch"] {
			t.Errorf("%s: the clocks refuse it differently:\n live:  %s watch: %s", what, answers["the live controller"], answers["lab watch"])
		}
	}
}

// answers posts body to path on each server of bases and decodes each
// 200 answer strictly into a T.
func answers[T any](t *testing.T, bases map[string]string, path, body string) map[string]T {
	t.Helper()
	out := map[string]T{}
	for name, base := range bases {
		code, _, answer := request(t, "POST", base+path, body)
		var v T
		if err := strict(answer, &v); code != 200 || err != nil {
			t.Errorf("%s: POST %s %s: %d %v: %s", name, path, body, code, err, answer)
			continue
		}
		out[name] = v
	}
	return out
}

// checkTable checks a server's route table against the shared one: every
// shared route, in order, marked Shared, with its doc line; no other route
// at a shared path; every route with a doc line.
func checkTable(t *testing.T, name string, table, shared []dash.Route) {
	t.Helper()
	sharedPaths := map[string]bool{}
	for _, r := range shared {
		sharedPaths[r.Path] = true
	}
	var got []string
	for _, r := range table {
		what := r.Method + " " + r.Path
		if r.Doc == "" || r.H == nil {
			t.Errorf("%s: %s has no doc line or no handler", name, what)
		}
		switch {
		case r.Shared():
			got = append(got, what+": "+r.Doc)
		case sharedPaths[r.Path]:
			t.Errorf("%s: %s is its own route at a path of the shared table", name, what)
		}
	}
	var want []string
	for _, r := range shared {
		want = append(want, r.Method+" "+r.Path+": "+r.Doc)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s serves the shared routes\n%s\nwant the table's\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// strict decodes body into v refusing a field v's type does not have.
func strict(body string, v any) error {
	d := json.NewDecoder(strings.NewReader(body))
	d.DisallowUnknownFields()
	return d.Decode(v)
}

func request(t *testing.T, method, url, body string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(data)
}

type virtual struct {
	srv  *watch.Server
	base string
}

// virtualServer is lab watch's server playing built-in scenario name,
// paused at 0, its Handler over HTTP.
func virtualServer(t *testing.T, name string) virtual {
	t.Helper()
	l, err := scenarios.Lab(name)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := watch.New(watch.Options{Lab: l, Scenario: name, Setting: watch.FirstSetting(l).Name, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Tick(time.Now()) // publishes the first snapshot
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	return virtual{srv: srv, base: hs.URL}
}

type live struct {
	c        *control.Controller
	base     string
	switched string // the scenario Options.Switch was handed
}

// liveController is a live controller (lab up's mode) showing a run of
// built-in scenario name that starts no process (fakeRun), its scenario
// switch recorded. Its Options.Admit is nil: every scenario is live.
func liveController(t *testing.T, name string) *live {
	t.Helper()
	lab, _, err := control.ScenarioLab(name)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &live{}
	l.c = control.New(ctx, ln, control.Options{Mode: "up", Log: zap.NewNop(),
		Switch: func(lab *labfile.Lab, name, _ string) error {
			l.switched = name
			l.c.SetRun(&fakeRun{lab: lab, scenario: name})
			return nil
		}})
	t.Cleanup(func() { cancel(); l.c.Close() })
	l.c.SetRun(&fakeRun{lab: lab, scenario: name})
	l.base = "http://" + l.c.Addr()
	return l
}

// fakeRun is a live run without processes: a drill fires by being
// recorded, its undo the lab's (labfile.Undo).
type fakeRun struct {
	lab      *labfile.Lab
	scenario string
}

func (r *fakeRun) Snapshot(context.Context, *dash.Deriver, string) *dash.Snapshot {
	return &dash.Snapshot{Lab: r.lab.Name, Scenario: r.scenario}
}
func (r *fakeRun) Processes() ([]*proc.Proc, *proc.Proc) { return nil, nil }
func (r *fakeRun) Log() []report.LogLine                 { return nil }
func (r *fakeRun) Lab() *labfile.Lab                     { return r.lab.Clone() }
func (r *fakeRun) Scenario() string                      { return r.scenario }
func (r *fakeRun) Features(string) dash.Features {
	return dash.Features{AddServer: true, Scenarios: true}
}
func (r *fakeRun) Attached() bool { return false }
func (r *fakeRun) Stop()          {}
func (r *fakeRun) Fire(_ context.Context, ev labfile.Event) (labfile.Event, error) {
	if ev.For == 0 {
		return labfile.Event{}, nil
	}
	return labfile.Undo(r.lab, ev)
}
