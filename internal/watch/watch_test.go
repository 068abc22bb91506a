package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// startWatch serves scenario name (its first compare setting) on
// 127.0.0.1:0 until the test ends and returns the base URL.
func startWatch(t *testing.T, name string, paused bool) string {
	t.Helper()
	l, setting := scenarioLab(t, name)
	return startWatchLab(t, l, name, setting, paused)
}

// scenarioLab is built-in scenario name as its file gives it, and the
// name of the setting it plays first (New applies it).
func scenarioLab(t *testing.T, name string) (*labfile.Lab, string) {
	t.Helper()
	l, err := scenarios.Lab(name)
	if err != nil {
		t.Fatal(err)
	}
	return l, FirstSetting(l).Name
}

// startWatchLab serves l (scenario name, played as setting) on
// 127.0.0.1:0 until the test ends and returns the base URL.
func startWatchLab(t *testing.T, l *labfile.Lab, name, setting string, paused bool) string {
	t.Helper()
	srv, err := New(Options{Lab: l, Scenario: name, Setting: setting, Paused: paused})
	if err != nil {
		t.Fatal(err)
	}
	return serveTest(t, srv)
}

// serveTest serves srv on 127.0.0.1:0 until the test ends and returns the
// base URL.
func serveTest(t *testing.T, srv *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func call(t *testing.T, method, url string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, data)
		}
	}
	return resp.StatusCode
}

// waitPaused polls until playback is paused (or the run ended).
func waitPaused(t *testing.T, base string, limit time.Duration) dash.Playback {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		var p dash.Playback
		call(t, "GET", base+"/api/playback", nil, &p)
		if p.Paused || p.Ended {
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("playback still running after %v: %+v", limit, p)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// shown is what the page draws from a snapshot: everything but the
// playback state and the wall time of publishing.
type shown struct {
	T        float64         `json:"t_s"`
	Window   json.RawMessage `json:"window"`
	Series   json.RawMessage `json:"series"`
	Servers  json.RawMessage `json:"servers"`
	Clients  json.RawMessage `json:"clients"`
	Bals     json.RawMessage `json:"balancers"`
	Settings json.RawMessage `json:"settings"`
	Log      json.RawMessage `json:"log"`
	Virtual  bool            `json:"virtual"`
	Mode     string          `json:"mode"`
}

// playTo plays base to virtual at at speed, pausing once at pauseAt on
// the way when it is > 0 (then resting a moment before playing on).
func playTo(t *testing.T, base string, speed, at, pauseAt float64) shown {
	t.Helper()
	call(t, "POST", base+"/api/playback", map[string]any{"restart": true, "paused": true}, nil)
	if pauseAt > 0 {
		call(t, "POST", base+"/api/playback", map[string]any{"speed": speed, "pause_at_s": pauseAt, "paused": false}, nil)
		if p := waitPaused(t, base, time.Minute); p.T != pauseAt {
			t.Fatalf("paused at %v, want %v", p.T, pauseAt)
		}
		time.Sleep(300 * time.Millisecond)
	}
	call(t, "POST", base+"/api/playback", map[string]any{"speed": speed, "pause_at_s": at, "paused": false}, nil)
	if p := waitPaused(t, base, time.Minute); p.T != at {
		t.Fatalf("paused at %v, want %v", p.T, at)
	}
	var s shown
	if code := call(t, "GET", base+"/api/snapshot", nil, &s); code != 200 {
		t.Fatalf("GET /api/snapshot: %d", code)
	}
	return s
}

// simSeries is lab sim's series of lab (its first compare setting) as
// the dashboard's series columns for the bins up to at: rates per second,
// t at each bin's end, percentiles null in a bin without successes.
func simSeries(t *testing.T, l *labfile.Lab, at float64) map[string][]any {
	t.Helper()
	rep, err := sim.Compare(l, l.Compare[:1], sim.Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	var bins []report.Bin
	for _, b := range rep.Runs[0].Series {
		if b.T+0.25 <= at+1e-9 {
			bins = append(bins, b)
		}
	}
	if n := len(bins) - dash.SeriesBins; n > 0 {
		bins = bins[n:]
	}
	r3 := func(v float64) any { return math.Round(v*1000) / 1000 }
	per := func(n uint64) any { return r3(float64(n) / 0.25) }
	q := func(b report.Bin, v float64) any {
		if b.Succeeded == 0 {
			return nil
		}
		return r3(v)
	}
	out := map[string][]any{}
	for _, b := range bins {
		for k, v := range map[string]any{"t": r3(b.T + 0.25), "offered": per(b.Offered), "attempts": per(b.Attempts),
			"goodput": per(b.Succeeded), "timeouts": per(b.Timeouts), "rejected": per(b.Rejected),
			"retries": per(b.Retries), "failed": per(b.Failed), "p50": q(b, b.P50), "p95": q(b, b.P95), "p99": q(b, b.P99)} {
			out[k] = append(out[k], v)
		}
		for i, n := range b.InServer {
			key := fmt.Sprintf("in_server_%d", i)
			out[key] = append(out[key], float64(n))
		}
	}
	return out
}

func pageSeries(t *testing.T, raw json.RawMessage) map[string][]any {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string][]any{}
	for _, k := range []string{"t", "offered", "attempts", "goodput", "timeouts", "rejected", "retries", "failed", "p50", "p95", "p99"} {
		out[k], _ = s[k].([]any)
	}
	for i, col := range s["in_server"].([]any) {
		out[fmt.Sprintf("in_server_%d", i)] = col.([]any)
	}
	return out
}

// The numbers at virtual 10 s are the same at 5x with a pause on the way
// and at 200x, and they are lab sim's bins.
func TestWatchNumbersDoNotDependOnSpeedOrPauses(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	slow := playTo(t, base, 5, 10, 4)
	fast := playTo(t, base, 200, 10, 0)
	if !slow.Virtual || slow.Mode != "watch" {
		t.Errorf("the snapshot is not marked virtual: virtual=%v mode=%q", slow.Virtual, slow.Mode)
	}
	if !reflect.DeepEqual(slow, fast) {
		t.Errorf("at 10 s, 5x with a pause shows another page than 200x:\n 5x  %s\n 200x %s", slow.Window, fast.Window)
	}
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	want, got := simSeries(t, l, 10), pageSeries(t, slow.Series)
	if len(want["t"]) != 40 {
		t.Fatalf("lab sim has %d bins up to 10 s, want 40", len(want["t"]))
	}
	for k, w := range want {
		if !reflect.DeepEqual(got[k], w) {
			t.Errorf("series %s differs from lab sim's:\n page %v\n sim  %v", k, got[k], w)
		}
	}
	// The counters are the last 8 bins summed.
	var win dash.Window
	if err := json.Unmarshal(slow.Window, &win); err != nil {
		t.Fatal(err)
	}
	var offered float64
	for _, v := range want["offered"][len(want["offered"])-8:] {
		offered += v.(float64) * 0.25
	}
	if float64(win.Offered) != offered || win.Seconds != 2 {
		t.Errorf("window: %d offered over %v s, want lab sim's %v over 2 s", win.Offered, win.Seconds, offered)
	}
}

// Three drills taken at paused virtual instants join the script there;
// the saved lab file, under lab sim, gives the numbers the page showed.
func TestWatchDrillsSavedReproduceUnderSim(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	drills := []struct {
		at   float64
		body string
	}{
		{2, `{"action":"kill","target":"s3"}`},
		{6.5, `{"action":"algorithm","algorithm":"p2c"}`},
		{9, `{"action":"restart","target":"s3"}`},
	}
	for _, d := range drills {
		call(t, "POST", base+"/api/playback", map[string]any{"speed": 1000, "pause_at_s": d.at, "paused": false}, nil)
		waitPaused(t, base, time.Minute)
		var out map[string]any
		if code := call(t, "POST", base+"/api/chaos", d.body, &out); code != 200 {
			t.Fatalf("drill %s at %v: %d %v", d.body, d.at, code, out)
		}
		if out["at_s"] != d.at {
			t.Errorf("drill %s taken at %v, want %v", d.body, out["at_s"], d.at)
		}
	}
	for body, want := range map[string]int{
		`{"action":"kill","target":"s9"}`:             400,
		`{"action":"explode"}`:                        400,
		`{"action":"kill","bogus":1}`:                 400,
		`{"action":"slow","target":"s1"}`:             400, // no speed
		`not json`:                                    400,
		`{"action":"kill","target":"s1","for":"30s"}`: 400, // its undo would come after the end
	} {
		var out map[string]any
		if code := call(t, "POST", base+"/api/chaos", body, &out); code != want || out["error"] == nil {
			t.Errorf("POST /api/chaos %s: %d %v, want %d with an error", body, code, out, want)
		}
	}
	call(t, "POST", base+"/api/playback", map[string]any{"max": true, "paused": false}, nil)
	end := waitPaused(t, base, time.Minute)
	if !end.Ended {
		t.Fatal("the run did not end")
	}
	var page shown
	call(t, "GET", base+"/api/snapshot", nil, &page)
	saved := savedLab(t, base)
	var script []string
	for _, ev := range saved.Events {
		script = append(script, fmt.Sprintf("%v %s", ev.At, ev))
	}
	if got, want := strings.Join(script, "; "), "2s kill s3; 5s slow s2 speed=0.25; 6.5s algorithm algorithm=p2c; 9s restart s3"; got != want {
		t.Errorf("saved script: %s\nwant %s", got, want)
	}
	if len(saved.Compare) != 0 {
		t.Errorf("the saved lab has compare entries: lab sim would run them instead")
	}
	saved.Compare = []labfile.Setting{{Name: "watched"}}
	want := simSeries(t, saved, 1e9)
	for k, w := range want {
		if got := pageSeries(t, page.Series)[k]; !reflect.DeepEqual(got, w) {
			t.Errorf("series %s at the end differs from lab sim's on the saved lab:\n page %v\n sim  %v", k, got, w)
		}
	}
	plain, _, _ := dash.ScenarioSetting("rr-slow")
	plain.Compare = []labfile.Setting{{Name: "plain"}}
	if reflect.DeepEqual(simSeries(t, plain, 1e9), want) {
		t.Error("the drills changed nothing")
	}
}

func TestWatchPlaybackAPIRefusesBadInput(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	for body, want := range map[string]string{
		`{"speed":0.01}`:     "speed: must be from 0.1 to 1000",
		`{"speed":5000}`:     "speed: must be from 0.1 to 1000",
		`{"seek_s":-1}`:      "seek_s: must be from 0 to 50",
		`{"pause_at_s":1e9}`: "pause_at_s: must be from 0 to 50",
		`{"spede":2}`:        `unknown field "spede"`,
		`{"paused":"yes"}`:   "bad JSON body",
		`[1,2]`:              "bad JSON body",
	} {
		var out map[string]any
		code := call(t, "POST", base+"/api/playback", body, &out)
		if msg, _ := out["error"].(string); code != 400 || !strings.Contains(msg, want) {
			t.Errorf("POST /api/playback %s: %d %v, want 400 saying %q", body, code, out, want)
		}
	}
	var p dash.Playback
	call(t, "POST", base+"/api/playback", `{"step":true}`, &p)
	call(t, "POST", base+"/api/playback", `{"step":true}`, &p)
	if !p.Paused || p.T != 0.5 {
		t.Errorf("two steps from 0: %+v, want paused at 0.5 s", p)
	}
	call(t, "POST", base+"/api/playback", `{"seek_s":7.3}`, &p)
	if p.T != 7.3 {
		t.Errorf("seek to 7.3 s: at %v", p.T)
	}
}

// Every built-in scenario plays and makes a snapshot with a card per
// server; an added server gets its card and its place in every balancer's
// view.
func TestWatchEveryScenarioSnapshots(t *testing.T) {
	for _, name := range scenarios.Names() {
		l, setting := scenarioLab(t, name)
		s, err := New(Options{Lab: l, Scenario: name, Setting: setting})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.sess.AdvanceTo(seconds(3)); err != nil {
			t.Fatal(err)
		}
		if name == "rr-slow" {
			ev := labfile.Event{Action: labfile.ActionAddServer}
			if err := dash.ValidateDrill(s.sess.Lab(), &ev); err != nil {
				t.Fatal(err)
			}
			if _, err := s.sess.Drill(ev); err != nil {
				t.Fatal(err)
			}
			if err := s.sess.AdvanceTo(seconds(4)); err != nil {
				t.Fatal(err)
			}
		}
		snap := s.build()
		want := len(l.ExpandServers())
		if name == "rr-slow" {
			want++
		}
		if len(snap.Servers) != want {
			t.Errorf("%s: %d server cards, want %d", name, len(snap.Servers), want)
		}
		for _, b := range snap.Balancers {
			if b.Settings == nil {
				t.Errorf("%s: %s has no settings", name, b.Name)
			}
		}
		for _, sv := range snap.Servers {
			if sv.Backend == nil || len(snap.Balancers) > 0 && len(sv.Views) != len(snap.Balancers) {
				t.Errorf("%s: server %s has state %v and %d balancer views for %d balancers", name, sv.Name, sv.Backend != nil, len(sv.Views), len(snap.Balancers))
			}
		}
		if bins := int(time.Duration(s.sess.Now()) / report.BinWidth); len(snap.Series.T) != bins {
			t.Errorf("%s: %d bins at %v, want %d", name, len(snap.Series.T), time.Duration(s.sess.Now()), bins)
		}
		if _, err := json.Marshal(snapshot{Snapshot: snap, Virtual: true}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// Restart drops the drills and keeps the lab's compare settings for
// Compare all, which ranks the six of rr-slow with the watched one marked.
func TestWatchRestartKeepsTheCompareSettings(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	call(t, "POST", base+"/api/playback", `{"seek_s":2}`, nil)
	if code := call(t, "POST", base+"/api/chaos", `{"action":"kill","target":"s1"}`, nil); code != 200 {
		t.Fatalf("drill: %d", code)
	}
	var p dash.Playback
	call(t, "POST", base+"/api/playback", `{"restart":true}`, &p)
	if p.T != 0 || len(p.Drills) != 0 {
		t.Errorf("after restart: %+v, want 0 s and no drills", p)
	}
	var out struct {
		Ranking []CompareRow `json:"ranking"`
	}
	if code := call(t, "POST", base+"/api/compare", `{}`, &out); code != 200 || len(out.Ranking) != 6 {
		t.Fatalf("compare all after restart: %d, %d settings, want rr-slow's 6", code, len(out.Ranking))
	}
	watched := 0
	for _, r := range out.Ranking {
		if r.Watched {
			watched++
			if r.Name != "round-robin" {
				t.Errorf("%s is marked watched", r.Name)
			}
		}
	}
	if watched != 1 {
		t.Errorf("%d settings marked watched, want round-robin alone", watched)
	}
	if code := call(t, "POST", base+"/api/compare", `{"settings":["p2c"]}`, nil); code != 400 {
		t.Errorf("compare with an unknown field: %d, want 400", code)
	}
}

// step_event pauses at the instant of the event log's next line: in
// breaker (breakers on) s2 fails at 5 s, then the breakers open on it.
func TestWatchStepsToTheNextLogLine(t *testing.T) {
	l, _ := scenarioLab(t, "breaker")
	base := startWatchLab(t, l, "breaker", "breaker", true)
	var p dash.Playback
	var snap struct {
		Log []report.LogLine `json:"log"`
	}
	call(t, "POST", base+"/api/playback", `{"step_event":true}`, &p)
	call(t, "GET", base+"/api/snapshot", nil, &snap)
	if p.T != 5 || !p.Paused || len(snap.Log) != 1 || snap.Log[0].Text != "fail s2" {
		t.Fatalf("first step to an event: at %v (paused %v), log %v; want 5 s and fail s2", p.T, p.Paused, snap.Log)
	}
	call(t, "POST", base+"/api/playback", `{"step_event":true}`, &p)
	call(t, "GET", base+"/api/snapshot", nil, &snap)
	last := snap.Log[len(snap.Log)-1]
	if p.T <= 5 || p.T != last.T || !strings.HasPrefix(last.Text, "breaker s2: closed -> open") {
		t.Errorf("second step: at %v, log ends %v; want the first breaker opening on s2, at its instant", p.T, last)
	}
}

// The demo's story, under sim: round robin queues on the slow s4 (a high
// tail until 10 s), least-outstanding drains it (a low tail before the
// crash), s2's crash at 18 s fails requests until it restarts at 24 s, and
// none fail after.
func TestDemoStory(t *testing.T) {
	l, err := DemoLab()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(l, sim.Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	p99, failed := func(from, to float64) float64 {
		m := 0.0
		for _, b := range res.Run.Series {
			if b.T >= from && b.T < to {
				m = math.Max(m, b.P99)
			}
		}
		return m
	}, func(from, to float64) (n uint64) {
		for _, b := range res.Run.Series {
			if b.T >= from && b.T < to {
				n += b.Failed
			}
		}
		return n
	}
	// s4 is slow under either (its own p99 is ~115 ms at 40% speed); round
	// robin adds its queue on top: 259 ms against 141 ms with seed 1.
	if rr, lo := p99(6, 10), p99(15, 18); rr < 1.5*lo {
		t.Errorf("round robin's tail (worst bin p99 %.0f ms, 6-10 s) should be well above least-outstanding's (%.0f ms, 15-18 s)", rr, lo)
	}
	if n := failed(0, 18); n != 0 {
		t.Errorf("%d requests failed before the crash", n)
	}
	if n := failed(18, 24); n < 50 {
		t.Errorf("only %d requests failed while s2 was down", n)
	}
	if n := failed(25, 30); n != 0 {
		t.Errorf("%d requests failed after s2 came back", n)
	}
}

// The demo loops while nobody touches it, and the first POST stops the
// loop: the run then ends and stays ended.
func TestDemoLoopsUntilTouched(t *testing.T) {
	l, err := DemoLab()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Lab: l, Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.max = true
	for i := 0; srv.loops < 2; i++ {
		srv.playLocked(time.Now())
		if i > 10000 {
			t.Fatal("the demo does not loop")
		}
	}
	if !srv.playbackLocked().Demo || srv.sess.Ended() {
		t.Fatalf("looping demo: %+v", srv.playbackLocked())
	}
	rec := httptest.NewRecorder()
	srv.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/api/playback", strings.NewReader(`{}`)))
	if rec.Code != 200 || srv.demo {
		t.Fatalf("a touch: %d, demo still %v", rec.Code, srv.demo)
	}
	loops := srv.loops
	for i := 0; !srv.sess.Ended(); i++ {
		srv.playLocked(time.Now())
		if i > 10000 {
			t.Fatal("the run does not end")
		}
	}
	srv.playLocked(time.Now())
	if srv.loops != loops || !srv.sess.Ended() {
		t.Errorf("after the touch the demo looped again (%d loops, was %d)", srv.loops, loops)
	}
}

// savedLab is the page's save lab file (GET /api/lab.yaml), parsed.
func savedLab(t *testing.T, base string) *labfile.Lab {
	t.Helper()
	resp, err := http.Get(base + "/api/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	saved, err := labyaml.Parse("saved.yaml", data)
	if err != nil {
		t.Fatalf("the saved lab does not parse: %v\n%s", err, data)
	}
	return saved
}
