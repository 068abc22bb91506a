package watch

import (
	"testing"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
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
