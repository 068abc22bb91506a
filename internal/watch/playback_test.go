package watch

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/report"
)

// A time-boxed set answers with the undo it schedules: the settings as
// they were before the drill (rr-slow's balancers.timeout, 0s), not the
// drill's own (100ms), and the log line of the undo, when it applies,
// says the same.
func TestTimeBoxedSetAnswersItsUndo(t *testing.T) {
	srv := watching(t, "rr-slow")
	before, err := srv.sess.Settings().Get("balancers.timeout")
	if err != nil {
		t.Fatal(err)
	}
	inMemory(t, srv, "POST", "/api/playback", `{"seek_s":1}`)
	code, out := inMemory(t, srv, "POST", "/api/chaos", `{"action":"set","set":{"balancers.timeout":"100ms"},"for":"2s"}`)
	var ans struct{ Undo string }
	if err := json.Unmarshal([]byte(out), &ans); code != 200 || err != nil {
		t.Fatalf("a time-boxed set: %d %s", code, out)
	}
	if want := "set balancers.timeout=" + before; ans.Undo != want || before == "100ms" {
		t.Errorf("the answer's undo is %q, want %q (the timeout before the drill)", ans.Undo, want)
	}
	inMemory(t, srv, "POST", "/api/playback", `{"seek_s":4}`)
	_, out = inMemory(t, srv, "GET", "/api/snapshot", "")
	var snap struct{ Log []report.LogLine }
	if err := json.Unmarshal([]byte(out), &snap); err != nil {
		t.Fatal(err)
	}
	applied := ""
	for _, l := range snap.Log {
		if l.T == 3 && strings.HasPrefix(l.Text, "set ") {
			applied = l.Text
		}
	}
	if !strings.HasPrefix(applied, ans.Undo+" (end of ") {
		t.Errorf("the undo applied at 3 s is %q; the answer said %q", applied, ans.Undo)
	}
}

// pause_at_s before the instant playback is at (after a seek_s of the same
// request) is refused with a 400 JSON error, and nothing of the request
// applies; at the instant itself or after, it is taken.
func TestPauseAtBeforeNowIsRefused(t *testing.T) {
	srv := watching(t, "rr-slow")
	inMemory(t, srv, "POST", "/api/playback", `{"seek_s":2}`)
	for _, body := range []string{`{"pause_at_s":1.5}`, `{"seek_s":5,"pause_at_s":3}`, `{"speed":4,"pause_at_s":0}`} {
		code, out := inMemory(t, srv, "POST", "/api/playback", body)
		var e struct {
			Error string
			Code  int
		}
		if err := json.Unmarshal([]byte(out), &e); code != 400 || err != nil || e.Code != 400 || !strings.Contains(e.Error, "pause_at_s") {
			t.Errorf("%s at 2 s: %d %s, want 400 naming pause_at_s", body, code, out)
		}
	}
	var p dash.Playback
	_, out := inMemory(t, srv, "GET", "/api/playback", "")
	if err := json.Unmarshal([]byte(out), &p); err != nil || p.T != 2 || p.PauseAtS != nil || p.Speed != 1 {
		t.Fatalf("after the refusals: %s; want t 2 s, no pause_at_s, speed 1 (nothing applied)", out)
	}
	for _, c := range []struct {
		body string
		t    float64
		at   float64
	}{{`{"seek_s":1,"pause_at_s":1.5}`, 1, 1.5}, {`{"pause_at_s":1}`, 1, 1}} {
		code, out := inMemory(t, srv, "POST", "/api/playback", c.body)
		var p dash.Playback
		if err := json.Unmarshal([]byte(out), &p); code != 200 || err != nil || p.T != c.t || p.PauseAtS == nil || *p.PauseAtS != c.at {
			t.Errorf("%s: %d %s, want 200 at %g s pausing at %g s", c.body, code, out, c.t, c.at)
		}
	}
}

// Picking a scenario (or running a lab from Your lab) plays it from 0,
// even when playback was paused: the page says it is running, and it runs.
// The answer carries the playback state.
func TestPickingAScenarioPlaysIt(t *testing.T) {
	text, err := json.Marshal(labIn{File: "mine.yaml", YAML: "name: mine\nduration: 5s\nservers: [{count: 2}]\n"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, body string }{{"/api/scenario", `{"name":"herd"}`}, {"/api/lab", string(text)}} {
		srv := watching(t, "rr-slow") // paused at 0
		code, out := inMemory(t, srv, "POST", c.path, c.body)
		var ans struct{ Playback *dash.Playback }
		if err := json.Unmarshal([]byte(out), &ans); code != 200 || err != nil || ans.Playback == nil || ans.Playback.Paused || ans.Playback.T != 0 {
			t.Fatalf("POST %s while paused: %d %s; want 200, playing from 0", c.path, code, out)
		}
		srv.Tick(time.Now().Add(time.Second))
		var p dash.Playback
		_, out = inMemory(t, srv, "GET", "/api/playback", "")
		if err := json.Unmarshal([]byte(out), &p); err != nil || p.Paused || p.T < 0.5 {
			t.Errorf("POST %s while paused, a second later: %s; want it played on", c.path, out)
		}
	}
}

// lab watch shows what a probing balancer believes: each server's probe
// answer in prequal's pool (requests in flight, latency, age, hot or
// cold), as the lb's GET /admin/state does, and the probes each server
// answered, as the backend's does; p2c's snapshot has neither.
func TestSnapshotShowsThePrequalPool(t *testing.T) {
	for _, algo := range []string{"prequal", "p2c"} {
		l := mustLab(t, "name: pq\nduration: 5s\nclients: {rate: 300}\nbalancers: {algorithm: "+algo+"}\nservers:\n  - {count: 20}\n")
		srv, err := New(Options{Lab: l, Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		inMemory(t, srv, "POST", "/api/playback", `{"seek_s":2}`)
		_, out := inMemory(t, srv, "GET", "/api/snapshot", "")
		var snap struct {
			Servers []struct {
				Name    string
				Backend struct {
					Counters struct{ Probes uint64 }
				}
				Views []struct {
					Probe *struct {
						RIF       int     `json:"rif"`
						LatencyMs float64 `json:"latency_ms"`
						AgeMs     float64 `json:"age_ms"`
					}
				} `json:"balancers"`
			}
		}
		if err := json.Unmarshal([]byte(out), &snap); err != nil || len(snap.Servers) != 20 {
			t.Fatalf("%s: the snapshot: %v %.300s", algo, err, out)
		}
		probed, answered := 0, uint64(0)
		for _, b := range snap.Servers {
			answered += b.Backend.Counters.Probes
			if len(b.Views) != 1 {
				t.Fatalf("%s: %s has %d balancer views", algo, b.Name, len(b.Views))
			}
			if p := b.Views[0].Probe; p != nil {
				probed++
				if p.RIF < 0 || p.LatencyMs < 0 || p.AgeMs < 0 || p.AgeMs > 1000 {
					t.Errorf("%s: %s's probe answer %+v", algo, b.Name, *p)
				}
			}
		}
		if want := algo == "prequal"; (probed > 0) != want || (answered > 0) != want {
			t.Errorf("%s: %d servers with a probe answer in the snapshot, %d probes the servers answered", algo, probed, answered)
		}
	}
}

// lab watch shows a jiq balancer's idle queue as the lb's GET /admin/state
// does: the servers in it, head first, the announcements it took and its
// picks from it; a p2c balancer has none.
func TestSnapshotShowsTheIdleQueue(t *testing.T) {
	for _, algo := range []string{"jiq", "p2c"} {
		l := mustLab(t, "name: iq\nduration: 5s\nclients: {rate: 100}\nbalancers: {algorithm: "+algo+", count: 2}\nservers:\n  - {count: 10}\n")
		srv, err := New(Options{Lab: l, Paused: true})
		if err != nil {
			t.Fatal(err)
		}
		inMemory(t, srv, "POST", "/api/playback", `{"seek_s":2}`)
		_, out := inMemory(t, srv, "GET", "/api/snapshot", "")
		var snap struct {
			Balancers []struct {
				Name  string
				Picks uint64
				Idle  *struct {
					Received  uint64   `json:"received"`
					FromQueue uint64   `json:"from_idle"`
					Queue     []string `json:"queue"`
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &snap); err != nil || len(snap.Balancers) != 2 {
			t.Fatalf("%s: the snapshot: %v %.300s", algo, err, out)
		}
		for _, b := range snap.Balancers {
			q := b.Idle
			if algo != "jiq" {
				if q != nil {
					t.Errorf("%s: %s shows an idle queue %+v", algo, b.Name, *q)
				}
				continue
			}
			// at 100/s over 10 servers of 1 worker most are idle most of
			// the time: the queue holds some, and most picks found one
			if q == nil || q.Received == 0 || q.FromQueue == 0 || q.FromQueue > b.Picks || len(q.Queue) == 0 || len(q.Queue) > 10 {
				t.Fatalf("%s: %s's idle queue %+v (picks %d)", algo, b.Name, q, b.Picks)
			}
			seen := map[string]bool{}
			for _, name := range q.Queue {
				if !strings.HasPrefix(name, "s") || seen[name] {
					t.Errorf("%s: %s's idle queue %v: a server twice or not a server", algo, b.Name, q.Queue)
				}
				seen[name] = true
			}
		}
	}
}
