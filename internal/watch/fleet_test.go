package watch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// The fleet form rebuilds rr-slow's five servers as eight of three
// workers with queues of 20 and constant work: the snapshot shows them,
// the run starts again from 0 without the drills, the saved lab holds the
// new fleet, and lab sim on it gives the series the page shows at 4 s.
// Bad values are refused with the field named, and nothing changes.
func TestWatchFleetRebuild(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	call(t, "POST", base+"/api/playback", `{"seek_s":2}`, nil)
	if code := call(t, "POST", base+"/api/chaos", `{"action":"kill","target":"s1"}`, nil); code != 200 {
		t.Fatalf("drill: %d", code)
	}
	type server struct {
		Name    string
		Backend struct {
			Workers int
			Queue   struct{ Capacity int }
		}
	}
	servers := func() []server {
		var snap struct{ Servers []server }
		call(t, "GET", base+"/api/snapshot", nil, &snap)
		return snap.Servers
	}
	for body, field := range map[string]string{
		`{"count":0}`:               "count",
		`{"count":65}`:              "count",
		`{"workers":0}`:             "workers",
		`{"queue":-1}`:              "capacity",
		`{"distribution":"weird"}`:  "distribution",
		`{"count":3,"colour":"re"}`: "colour",
	} {
		var out struct{ Error string }
		if code := call(t, "POST", base+"/api/fleet", body, &out); code != 400 || !containsFold(out.Error, field) {
			t.Errorf("POST /api/fleet %s: %d %q, want 400 naming %s", body, code, out.Error, field)
		}
	}
	if n := len(servers()); n != 5 {
		t.Fatalf("after refused rebuilds %d servers, want rr-slow's 5", n)
	}
	var out map[string]any
	if code := call(t, "POST", base+"/api/fleet", `{"count":8,"workers":3,"queue":20,"distribution":"constant"}`, &out); code != 200 {
		t.Fatalf("rebuild: %d %v", code, out)
	}
	got := servers()
	if len(got) != 8 {
		t.Fatalf("%d servers after the rebuild, want 8", len(got))
	}
	for _, s := range got {
		if s.Backend.Workers != 3 || s.Backend.Queue.Capacity != 20 {
			t.Errorf("%s: %d workers, queue %d; want 3 and 20", s.Name, s.Backend.Workers, s.Backend.Queue.Capacity)
		}
	}
	var p dash.Playback
	call(t, "GET", base+"/api/playback", nil, &p)
	if p.T != 0 || len(p.Drills) != 0 {
		t.Errorf("after the rebuild: %v s, drills %v; want 0 and none", p.T, p.Drills)
	}
	call(t, "POST", base+"/api/playback", `{"seek_s":4}`, nil)
	var page shown
	call(t, "GET", base+"/api/snapshot", nil, &page)
	saved := savedLab(t, base)
	if g := saved.Servers; len(g) != 1 || g[0].Count != 8 || g[0].Workers != 3 || g[0].Queue.Capacity != 20 || saved.Clients.Work.Kind != "constant" {
		t.Errorf("the saved lab's fleet: %+v, work %q", g, saved.Clients.Work.Kind)
	}
	if saved.Narration != "" || len(saved.Captions) != 0 {
		t.Errorf("the rebuilt lab keeps words about rr-slow's five servers: %q, %v", saved.Narration, saved.Captions)
	}
	saved.Compare = []labfile.Setting{{Name: "watched"}}
	for k, w := range simSeries(t, saved, 4) {
		if g := pageSeries(t, page.Series)[k]; !reflect.DeepEqual(g, w) {
			t.Errorf("series %s at 4 s differs from lab sim's on the saved lab", k)
		}
	}
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// After the fleet form, the lab playing is the rebuilt one: the JSON
// report is lab sim's of it (eight servers of three workers, every
// compare setting, the seed) and edit-the-lab-playing's file is its text,
// which lab sim reads to the same report; not rr-slow's file as it was
// before the rebuild.
func TestFleetRebuildIsTheLabReported(t *testing.T) {
	srv := watching(t, "rr-slow")
	if code, out := inMemory(t, srv, "POST", "/api/fleet", `{"count":8,"workers":3}`); code != 200 {
		t.Fatalf("POST /api/fleet: %d %s", code, out)
	}
	var src struct {
		File, YAML string
		Seed       uint64
	}
	_, out := inMemory(t, srv, "GET", "/api/source", "")
	if err := json.Unmarshal([]byte(out), &src); err != nil {
		t.Fatal(err)
	}
	l, err := labyaml.Parse(src.File, []byte(src.YAML))
	if err != nil {
		t.Fatalf("GET /api/source after the rebuild: %v\n%.300s", err, src.YAML)
	}
	if n, g := len(l.ExpandServers()), l.Servers[0]; n != 8 || g.Workers != 3 || len(l.Compare) < 2 || l.Seed != src.Seed {
		t.Fatalf("the source after the rebuild: %d servers of %d workers, %d compare settings, seed %d (source says %d); want 8 of 3, rr-slow's compare list",
			n, g.Workers, len(l.Compare), l.Seed, src.Seed)
	}
	want, err := SimReport(l)
	if err != nil {
		t.Fatal(err)
	}
	if code, got := inMemory(t, srv, "GET", "/api/report.json", ""); code != 200 || got != string(want) {
		t.Fatalf("GET /api/report.json after the rebuild: %d, %d bytes; want lab sim's of the rebuilt lab, %d bytes", code, len(got), len(want))
	}
}
