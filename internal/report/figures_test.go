package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/policy"
)

func TestGoodput(t *testing.T) {
	for _, c := range []struct {
		started, succeeded, ended uint64
		want                      float64
		ok                        bool
	}{
		{10, 9, 10, 0.9, true},
		{10, 3, 4, 0.75, true}, // by the requests that ended, not those started
		{0, 2, 4, 0.5, true},   // a bin whose requests started before it
		{5, 0, 0, 0, true},     // stuck: started, none ended
		{0, 0, 0, 0, false},    // nothing asked
	} {
		g, ok := Goodput(c.started, c.succeeded, c.ended)
		if g != c.want || ok != c.ok {
			t.Errorf("Goodput(%d, %d, %d) = %v, %v; want %v, %v", c.started, c.succeeded, c.ended, g, ok, c.want, c.ok)
		}
	}
	w := Window{Offered: 0, Succeeded: 0, Ended: 0}
	if w.Goodput() != 1 || (Window{Offered: 3}).Goodput() != 0 || (Bin{Offered: 4, Succeeded: 1, Failed: 1}).Goodput() != 0.5 {
		t.Error("a window: nothing asked has goodput 1, stuck 0, else succeeded / ended")
	}
}

// A run's goodput is the share of its ended requests that succeeded: a
// request still pending when the recorder fills a run is not a failure.
func TestRunGoodputCountsEndedRequests(t *testing.T) {
	rec := NewRecorder(false)
	for i := range 4 {
		rec.Offered(clock.Instant(i))
	}
	for i, o := range []policy.Outcome{policy.Succeeded, policy.Succeeded, policy.Failed} {
		rec.Finish(clock.Instant(10+i), &policy.Call{Outcome: o})
	}
	var run Run
	rec.Fill(&run, 20)
	if run.Goodput != 2.0/3 || run.Requests != 4 {
		t.Errorf("goodput %v of %d requests: want 2/3 (one request is still pending)", run.Goodput, run.Requests)
	}
}

// figureRuns are two runs in which every figure has a value of its own.
func figureRuns() []Run {
	mk := func(name string, k float64) Run {
		u := func(v float64) uint64 { return uint64(v * k) }
		return Run{Name: name, Algorithm: name, Requests: u(1000), Succeeded: u(950), Failed: u(50), Goodput: 0.95,
			Attempts: u(1100), AttemptsPerRequest: 1.1, Timeouts: u(30), Rejected: u(11), Errors: u(9),
			Retries: u(70), Hedges: u(30), Wasted: u(20), Events: 12345,
			Latency: Latency{P50: 10 * k, P95: 40 * k, P99: 120 * k, P999: 300 * k, Mean: 15 * k, Max: 1500 * k},
			Servers: []Server{{Name: "s1", Sent: u(600), Share: 0.6, CacheHitRatio: 0.5},
				{Name: "s2", Sent: u(400), Share: 0.4, CacheHitRatio: 0.25}},
			Probes: NewProbes(u(3000), u(2990), u(1000)), Announcements: NewAnnouncements(u(900), u(1000), u(1100), u(770)),
			CrossZone: NewCrossZone(u(300), u(350), u(1000), u(1100))}
	}
	return []Run{mk("a", 1), mk("b", 2)}
}

// headerAndRows finds the table whose header starts with first and returns
// its header's words and its rows' words, up to the next blank line.
func headerAndRows(t *testing.T, text, first string) ([]string, [][]string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] != first {
			continue
		}
		var rows [][]string
		for _, r := range lines[i+1:] {
			if strings.TrimSpace(r) == "" {
				break
			}
			rows = append(rows, strings.Fields(r))
		}
		return f, rows
	}
	t.Fatalf("no table headed %q in\n%s", first, text)
	return nil, nil
}

// Every figure with a column is printed, with its unit's format, and the
// table prints no column that is not a figure's.
func TestFiguresInTextReport(t *testing.T) {
	rep := &Report{Mode: "sim", Lab: "figures", Seed: 1, DurationS: 10, Runs: figureRuns()}
	var b bytes.Buffer
	if err := rep.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	head, rows := headerAndRows(t, b.String(), "setting")
	var want []string
	for _, f := range Figures {
		if f.Head != "" {
			want = append(want, f.Head)
		}
	}
	if !slices.Equal(head[1:], want) {
		t.Fatalf("columns %q, want the figures' %q", head[1:], want)
	}
	if len(rows) != len(rep.Runs) {
		t.Fatalf("%d rows for %d runs", len(rows), len(rep.Runs))
	}
	for _, row := range rows {
		run := rep.Find(row[0])
		if run == nil || len(row) != len(head) {
			t.Fatalf("row %q", row)
		}
		for i, h := range head[1:] {
			f := Figures[slices.IndexFunc(Figures, func(f FigureSpec) bool { return f.Head == h })]
			if got, want := row[i+1], f.Unit.Text(f.Of(run)); got != want {
				t.Errorf("%s's %s: %q, want %q", run.Name, f.Name, got, want)
			}
		}
	}
	// The figures without a column print in tables of their own.
	hit := mustFigure("cache_hit_ratio")
	for _, run := range rep.Runs {
		if !strings.Contains(b.String(), run.Name+"  "+hit.Unit.Text(hit.Of(&run))) {
			t.Errorf("%s's cache hit ratio %s is not printed:\n%s", run.Name, hit.Unit.Text(hit.Of(&run)), b.String())
		}
	}
	_, probeRows := headerAndRows(t, b.String()[strings.Index(b.String(), "\nprobes "):], "setting")
	probes := mustFigure("probes_per_request")
	for _, row := range probeRows {
		run := rep.Find(row[0])
		if run == nil || len(row) != 4 || row[1] != fmt.Sprint(run.Probes.Sent) || row[2] != fmt.Sprint(run.Probes.Answered) ||
			row[3] != probes.Unit.Text(probes.Of(run)) {
			t.Errorf("probes row %q, want %s's %+v", row, row[0], run.Probes)
		}
	}
	if len(probeRows) != len(rep.Runs) {
		t.Errorf("the probes table has %d rows for %d runs", len(probeRows), len(rep.Runs))
	}
	_, idleRows := headerAndRows(t, b.String()[strings.Index(b.String(), "\nidle announcements "):], "setting")
	perReq, share := mustFigure("announcements_per_request"), mustFigure("idle_share")
	for _, row := range idleRows {
		run := rep.Find(row[0])
		if run == nil || len(row) != 5 || row[1] != fmt.Sprint(run.Announcements.Sent) || row[2] != perReq.Unit.Text(perReq.Of(run)) ||
			row[3] != fmt.Sprint(run.Announcements.Picks) || row[4] != share.Unit.Text(share.Of(run)) {
			t.Errorf("idle announcements row %q, want %s's %+v", row, row[0], run.Announcements)
		}
	}
	if len(idleRows) != len(rep.Runs) {
		t.Errorf("the idle announcements table has %d rows for %d runs", len(idleRows), len(rep.Runs))
	}

	// Over seeds: the columns are the same figures', counts only when
	// they are not zero everywhere.
	second := figureRuns()
	for i := range second {
		second[i].Hedges = 0
	}
	seeded, err := CombineSeeds([]uint64{1, 2}, []*Report{rep, {Runs: second}})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := seeded.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	head, _ = headerAndRows(t, b.String(), "setting")
	if !slices.Equal(head[1:], want) {
		t.Errorf("seeds table columns %q, want %q", head[1:], want)
	}
	for _, rs := range [][]Run{rep.Runs, second} {
		for i := range rs {
			rs[i].Hedges = 0
		}
	}
	seeded, _ = CombineSeeds([]uint64{1, 2}, []*Report{rep, {Runs: second}})
	b.Reset()
	_ = seeded.WriteTable(&b)
	if head, _ = headerAndRows(t, b.String(), "setting"); slices.Contains(head, "hedges") || len(head) != len(want) {
		t.Errorf("seeds table without hedges: columns %q", head[1:])
	}
}

// lookup follows a dotted path through decoded JSON.
func lookup(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = obj[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// Every figure with a JSON field is in a run's JSON with its value; every
// number of a run's JSON at its top and in latency_ms is a figure (the
// objects beside them, outcomes, little, servers, connections, ..., are
// tables of their own, docs/report.md); the seeds' figures are the table's.
func TestFiguresInJSON(t *testing.T) {
	notFigures := map[string]string{
		"duration_s": "how long an interrupted run ran",
		"sim_events": "the simulator's events",
	}
	run := figureRuns()[0]
	run.Interrupted, run.DurationS = true, 8
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	paths := map[string]bool{}
	for _, f := range Figures {
		if f.JSON == "" {
			continue
		}
		paths[f.JSON] = true
		v, ok := lookup(m, f.JSON)
		if n, isNum := v.(float64); !ok || !isNum || n != f.Of(&run) {
			t.Errorf("figure %s: the JSON's %s is %v, want %v", f.Name, f.JSON, v, f.Of(&run))
		}
	}
	check := func(prefix string, obj map[string]any) {
		for k, v := range obj {
			if _, isNum := v.(float64); isNum && !paths[prefix+k] && notFigures[prefix+k] == "" {
				t.Errorf("a run's JSON has the number %s%s, which is no figure of Figures", prefix, k)
			}
		}
	}
	check("", m)
	check("latency_ms.", m["latency_ms"].(map[string]any))

	seeded, err := CombineSeeds([]uint64{1, 2}, []*Report{{Runs: figureRuns()}, {Runs: figureRuns()}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range Figures {
		if f.Seeds {
			names = append(names, f.Name)
		}
	}
	for _, s := range seeded.Seeds.Settings {
		var keys []string
		for k := range s.Figures {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		want := slices.Sorted(slices.Values(names))
		if !slices.Equal(keys, want) {
			t.Errorf("%s's figures over seeds %q, want %q", s.Name, keys, want)
		}
		for _, f := range seedFigures() {
			if got := s.Figures[f.Name].PerSeed[0]; got != f.Of(seeded.Find(s.Name)) {
				t.Errorf("%s's %s over seeds starts %v, want %v", s.Name, f.Name, got, f.Of(seeded.Find(s.Name)))
			}
		}
	}
	sw := &Sweep{Seeds: []uint64{1, 2}, Axes: []SweepAxis{{Path: "clients.rate"}},
		Points: []SweepPoint{{Values: []string{"50"}, Line: "a", Summary: seeded.Seeds.Settings[0]}}}
	var b bytes.Buffer
	if err := sw.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"clients.rate", "line", "setting", "seeds"}
	for _, n := range names {
		want = append(want, n, n+"_lo", n+"_hi")
	}
	if !slices.Equal(recs[0], want) {
		t.Errorf("sweep CSV columns %q, want %q", recs[0], want)
	}
}

// docs/report.md's figure table lists every figure of Figures, in order,
// as declared.
func TestFiguresDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/report.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	from := strings.Index(text, "\n## Figures\n")
	if from < 0 {
		t.Fatal("docs/report.md has no ## Figures section")
	}
	text = text[from+1:]
	text = text[:strings.Index(text[1:], "\n## ")+1]
	var rows [][]string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "| `") {
			cells := strings.Split(strings.Trim(l, "|"), "|")
			for i := range cells {
				cells[i] = strings.Trim(strings.TrimSpace(cells[i]), "`")
			}
			rows = append(rows, cells)
		}
	}
	if len(rows) != len(Figures) {
		t.Errorf("docs/report.md lists %d figures, Figures has %d", len(rows), len(Figures))
	}
	for i, f := range Figures {
		seeds := ""
		if f.Seeds {
			seeds = "yes"
		}
		want := []string{f.Name, string(f.Unit), f.Head, f.JSON, f.Dashboard, f.Series, f.Label, seeds, f.Doc}
		if i >= len(rows) || !slices.Equal(rows[i], want) {
			var got []string
			if i < len(rows) {
				got = rows[i]
			}
			t.Errorf("docs/report.md's figure %d is %q, Figures declares %q", i+1, got, want)
		}
	}
}

// Every headline a lab file may name is a figure of the table (but
// max_queue, a server's), and the report ranks by it the way Headlines say
// (p99 lowest first, goodput highest first).
func TestHeadlinesAreFigures(t *testing.T) {
	runs := figureRuns() // b has the higher latencies; give it the better goodput
	runs[1].Goodput = 0.99
	first := map[Headline]string{HeadlineP99: "a", HeadlineGoodput: "b"}
	for _, h := range Headlines {
		if h == HeadlineMaxQueue {
			continue
		}
		if _, ok := FigureOf(string(h)); !ok {
			t.Errorf("headline %s is no figure of Figures", h)
		}
		rep := &Report{Runs: runs, Headline: h}
		if best := rep.Ranked()[0]; best.Name != first[h] {
			t.Errorf("ranked by %s: %s first, want %q", h, best.Name, first[h])
		}
	}
}
