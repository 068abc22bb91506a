package watch

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// Compare all with seeds ranks rr-slow's settings as lab sim --seeds 4
// does: by mean p99 over seeds 1 to 4, each figure with lab sim's
// interval and verdict: round robin and random, blind to s2's queue,
// last and not told apart, the others told apart from them. Every row carries its p99 series
// for the small multiples, that of seed 1.
func TestCompareAllOverSeeds(t *testing.T) {
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	base := startWatch(t, "rr-slow", true)
	var out struct {
		Seeds   []uint64   `json:"seeds"`
		Ranking []SeedsRow `json:"ranking"`
	}
	if code := call(t, "POST", base+"/api/compare", `{"seeds":4}`, &out); code != 200 {
		t.Fatalf("compare all over 4 seeds: %d", code)
	}
	// lab sim --seeds 4: every setting on seeds 1 to 4, combined.
	var reps []*report.Report
	seeds := []uint64{1, 2, 3, 4}
	for _, seed := range seeds {
		sl := l.Clone()
		sl.Seed = seed
		rep, err := sim.Compare(sl, l.Compare, sim.Options{Series: seed == 1})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	want, err := report.CombineSeeds(seeds, reps)
	if err != nil {
		t.Fatal(err)
	}
	ranked := report.Ranked(want.Seeds.Settings, want.SeedsFigure())
	if len(out.Ranking) != len(ranked) || len(out.Seeds) != 4 {
		t.Fatalf("%d rows on seeds %v, want %d on 4 seeds", len(out.Ranking), out.Seeds, len(ranked))
	}
	for i, r := range out.Ranking {
		w := ranked[i]
		p := w.Figures["p99"]
		if r.Name != w.Name || r.P99.Mean != p.Mean || r.P99.Lo != p.Lo || r.P99.Hi != p.Hi || !(p.Lo < p.Mean && p.Mean < p.Hi) {
			t.Errorf("row %d: %s p99 %+v, lab sim --seeds: %s %+v", i+1, r.Name, r.P99, w.Name, p)
		}
		if (r.VsNext == nil) != (i == len(out.Ranking)-1) {
			t.Errorf("row %d: verdict %+v (the last row has none)", i+1, r.VsNext)
		}
		if r.Series == nil || len(r.Series.T) != len(reps[0].Runs[0].Series) {
			t.Errorf("row %d: series %+v, want seed 1's %d bins", i+1, r.Series, len(reps[0].Runs[0].Series))
		}
	}
	// The story lab sim --seeds 4 tells: least-latency, which herds and
	// fails most of its requests, last, below every setting that serves
	// (the report's ranking rule), told apart on goodput; before it the two
	// static algorithms, not told apart from each other; each load-aware
	// one told apart from the next.
	n := len(out.Ranking)
	rr, rnd, herd, third := out.Ranking[n-3], out.Ranking[n-2], out.Ranking[n-1], out.Ranking[n-4]
	if rr.Name != "round-robin" || !rr.Watched || rnd.Name != "random" || rr.VsNext.Distinguishable {
		t.Errorf("rr-slow over 4 seeds ends %s (watched %v), %s: %+v; want round-robin then random, not told apart",
			rr.Name, rr.Watched, rnd.Name, rr.VsNext)
	}
	if herd.Name != "least-latency" || rnd.VsNext.Figure != "goodput" || !rnd.VsNext.Distinguishable || rnd.VsNext.Wins != 4 {
		t.Errorf("rr-slow over 4 seeds ends %s, random against it %+v; want least-latency, told apart on goodput on 4 seeds", herd.Name, rnd.VsNext)
	}
	if !third.VsNext.Distinguishable || third.VsNext.Next != "round-robin" || third.VsNext.Wins != 4 || third.VsNext.Figure != "p99" {
		t.Errorf("%s against round-robin: %+v, want told apart on p99 on 4 of 4 seeds", third.Name, third.VsNext)
	}
	for _, body := range []string{`{"seeds":1}`, `{"seeds":31}`, `{"seeds":-2}`, `{"seeds":"3"}`} {
		if code := call(t, "POST", base+"/api/compare", body, nil); code != 400 {
			t.Errorf("compare all %s: %d, want 400", body, code)
		}
	}
}

// Compare all is lab sim's table of the lab as given, whichever setting is
// watched: each compare setting is applied to the lab as given, not on
// top of the watched one's set:. Its rows are the JSON report's runs (lab
// sim --json), figure for figure: watching breaker (breakers on), the
// no-breaker row still fails hundreds of requests. So when the setting is
// named (lab watch breaker --setting breaker), when a posted lab's first
// setting has a set:, and after the fleet is rebuilt.
func TestCompareAllAppliesEachSettingToTheLabAsGiven(t *testing.T) {
	l, err := scenarios.Lab("breaker")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Lab: l, Scenario: "breaker", Setting: "breaker", Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	text, err := scenarios.Get("breaker")
	if err != nil {
		t.Fatal(err)
	}
	// the same lab, the setting with breakers on first: POST /api/lab plays it
	swapped := strings.Replace(string(text), "  - {name: no-breaker}\n", "", 1)
	swapped = strings.Replace(swapped, "events:", "  - {name: no-breaker}\nevents:", 1)
	if first := mustLab(t, swapped).Compare[0]; first.Name != "breaker" {
		t.Fatalf("the swapped lab's first setting is %s", first.Name)
	}
	body, _ := json.Marshal(labIn{File: "swapped.yaml", YAML: swapped})
	for _, step := range []struct{ what, method, path, body string }{
		{"lab watch breaker --setting breaker", "", "", ""},
		{"a posted lab whose first setting is breaker", "POST", "/api/lab", string(body)},
		{"its fleet rebuilt", "POST", "/api/fleet", `{"count":5}`},
	} {
		if step.method != "" {
			if code, out := inMemory(t, srv, step.method, step.path, step.body); code != 200 {
				t.Fatalf("%s: %d %s", step.what, code, out)
			}
		}
		code, out := inMemory(t, srv, "POST", "/api/compare", "{}")
		var cmp struct{ Ranking []CompareRow }
		if err := json.Unmarshal([]byte(out), &cmp); code != 200 || err != nil {
			t.Fatalf("%s: compare all: %d %.300s", step.what, code, out)
		}
		code, out = inMemory(t, srv, "GET", "/api/report.json", "")
		var rep report.Report
		if err := json.Unmarshal([]byte(out), &rep); code != 200 || err != nil || len(rep.Runs) != 2 {
			t.Fatalf("%s: the JSON report: %d %.300s", step.what, code, out)
		}
		rows := map[string]CompareRow{}
		for _, r := range cmp.Ranking {
			rows[r.Name] = r
		}
		for _, run := range rep.Runs {
			r := rows[run.Name]
			if r.Failed != run.Failed || r.P99Ms != run.Latency.P99 || r.Watched != (run.Name == "breaker") {
				t.Errorf("%s: Compare all's %s row: failed %d, p99 %g ms, watched %v; lab sim's: failed %d, p99 %g ms",
					step.what, run.Name, r.Failed, r.P99Ms, r.Watched, run.Failed, run.Latency.P99)
			}
		}
		if f := rows["no-breaker"].Failed; f < 100 {
			t.Errorf("%s: the no-breaker row failed %d requests: the watched breakers are on in it", step.what, f)
		}
	}
}

func mustLab(t *testing.T, text string) *labfile.Lab {
	t.Helper()
	l, err := labyaml.Parse("lab.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Compare all of a client-side lab without a compare list runs every
// algorithm a client can run: the tier-only ones (prequal's probes) are
// left out, not a 400 for the whole table.
func TestCompareAllClientSideLeavesOutTierOnly(t *testing.T) {
	l := mustLab(t, "name: cs\nduration: 2s\nclients: {rate: 100, count: 4, algorithm: p2c}\nservers:\n  - {count: 3}\n")
	srv, err := New(Options{Lab: l, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	code, out := inMemory(t, srv, "POST", "/api/compare", "{}")
	var cmp struct{ Ranking []CompareRow }
	if err := json.Unmarshal([]byte(out), &cmp); code != 200 || err != nil {
		t.Fatalf("compare all of a client-side lab: %d %.300s", code, out)
	}
	var want []string
	for _, a := range policy.Algorithms() {
		if !balance.CapsOf(a).TierOnly() {
			want = append(want, a)
		}
	}
	if len(want) == len(policy.Algorithms()) {
		t.Fatal("no algorithm is tier-only: the test checks nothing")
	}
	var got []string
	for _, r := range cmp.Ranking {
		got = append(got, r.Name)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("compare all ran %v, want every algorithm a client can run: %v", got, want)
	}
}
