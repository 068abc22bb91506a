package watch

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
)

// A long request's progress is in the snapshots while it runs: Compare
// all (one seed and several) and the JSON report each publish their work,
// from 0 up to 1 and never back, as Options.Busy hears (the page's wasm
// module hands those snapshots on), playback standing where it was; the
// next snapshot after the answer shows no work. Before the request no
// snapshot shows any.
func TestLongRequestsShowTheirProgress(t *testing.T) {
	l, setting := scenarioLab(t, "rr-slow")
	var srv *Server
	var err error
	var seen []dash.Playback
	read := func() dash.Playback {
		_, data := srv.Latest()
		var snap struct{ Playback dash.Playback }
		if err := json.Unmarshal(data, &snap); err != nil {
			t.Fatal(err)
		}
		return snap.Playback
	}
	srv, err = New(Options{Lab: l, Scenario: "rr-slow", Setting: setting, Paused: true, Busy: func() { seen = append(seen, read()) }})
	if err != nil {
		t.Fatal(err)
	}
	srv.every = 0 // every step of the runs published
	srv.Tick(time.Now())
	if p := read(); p.Work != nil {
		t.Fatalf("before any request the snapshot shows work %+v", *p.Work)
	}
	for _, tc := range []struct{ what, method, path, body string }{
		{"compare all", "POST", "/api/compare", `{}`},
		{"compare all", "POST", "/api/compare", `{"seeds": 2}`},
		{"JSON report", "GET", "/api/report.json", ""},
	} {
		seen = nil
		before := read()
		if code, body := inMemory(t, srv, tc.method, tc.path, tc.body); code != 200 {
			t.Fatalf("%s %s %s: %d %s", tc.method, tc.path, tc.body, code, body)
		}
		if len(seen) < 10 {
			t.Fatalf("%s %s: %d snapshots showed its progress, want it shown on the way", tc.path, tc.body, len(seen))
		}
		for i, p := range seen {
			if p.Work == nil || p.Work.What != tc.what || p.Work.Done < 0 || p.Work.Done > 1 || i > 0 && p.Work.Done < seen[i-1].Work.Done {
				t.Fatalf("%s %s: snapshot %d of the request shows work %+v after %+v: want %q from 0 to 1, never back", tc.path, tc.body, i, p.Work, seen[max(i-1, 0)].Work, tc.what)
			}
			if p.T != before.T || !p.Paused {
				t.Fatalf("%s %s: playback moved during the request: at %g s, paused %v (was at %g s, paused)", tc.path, tc.body, p.T, p.Paused, before.T)
			}
		}
		if first, last := seen[0].Work.Done, seen[len(seen)-1].Work.Done; first != 0 || last != 1 {
			t.Errorf("%s %s: work went from %g to %g, want 0 to 1", tc.path, tc.body, first, last)
		}
		srv.Tick(time.Now())
		if p := read(); p.Work != nil {
			t.Errorf("%s %s: the snapshot after the answer still shows work %+v", tc.path, tc.body, *p.Work)
		}
	}
}
