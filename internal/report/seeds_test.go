package report

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
)

// seedReport is a compare of settings a and b on one seed.
func seedReport(seed uint64, a, b float64) *Report {
	return &Report{Mode: "sim", Lab: "t", Seed: seed, DurationS: 10, Runs: []Run{
		{Name: "a", Algorithm: "p2c", Requests: 100, Goodput: 1, Latency: Latency{P99: a},
			Servers: []Server{{Name: "s1", Share: 0.5}, {Name: "s2", Share: 0.5}}},
		{Name: "b", Algorithm: "round-robin", Requests: 100, Goodput: 0.9, Rejected: 10, Latency: Latency{P99: b},
			Servers: []Server{{Name: "s1", Share: 0.4}, {Name: "s2", Share: 0.6}}},
	}}
}

func TestCombineSeeds(t *testing.T) {
	seeds := []uint64{1, 2, 3, 4}
	reps := []*Report{seedReport(1, 100, 150), seedReport(2, 120, 140), seedReport(3, 90, 160), seedReport(4, 110, 150)}
	r, err := CombineSeeds(seeds, reps)
	if err != nil {
		t.Fatal(err)
	}
	if r.Seed != 1 || &r.Runs[0] != &reps[0].Runs[0] || r.Seeds.Method != "student-t" || r.Seeds.Confidence != 0.95 {
		t.Fatalf("seed %d, method %q: the report is not the first seed's with seeds added", r.Seed, r.Seeds.Method)
	}
	a := r.Seeds.Settings[0].Figures["p99"]
	// 100, 120, 90, 110: mean 105, s = 12.91, t(0.975, 3) = 3.182.
	if a.Mean != 105 || math.Abs(a.Hi-105-3.1824*12.9099/2) > 0.01 || len(a.PerSeed) != 4 {
		t.Errorf("a's p99 %+v", a)
	}
	if sh := r.Seeds.Settings[1].Servers[1]; sh.Name != "s2" || math.Abs(sh.Share.Mean-0.6) > 1e-12 {
		t.Errorf("b's share of s2 %+v", sh)
	}
	if len(r.Seeds.Ranking) != 1 {
		t.Fatalf("%d verdicts", len(r.Seeds.Ranking))
	}
	v := r.Seeds.Ranking[0]
	if v.Better != "a" || v.Worse != "b" || v.Wins != 4 || v.Losses != 0 || !v.Distinguishable || !v.Disjoint ||
		v.Diff.Mean != -45 || v.Diff.PerSeed != nil {
		t.Errorf("verdict %+v", v)
	}
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lab t (sim, 4 seeds: 1-4, 10s)", "a's p99 < b's", "(4/4 seeds lower; diff -45.0ms [",
		"-30%; 95% CIs disjoint)", "105ms ±", "503s", "share of attempts per server (mean of 4 seeds)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	if strings.Contains(buf.String(), "retries") {
		t.Errorf("a count column that is zero everywhere is shown:\n%s", buf.String())
	}
}

// Two settings whose order flips from seed to seed are not told apart.
func TestVerdictNotDistinguishable(t *testing.T) {
	reps := []*Report{seedReport(1, 100, 104), seedReport(2, 120, 111), seedReport(3, 95, 99), seedReport(4, 130, 126)}
	r, err := CombineSeeds([]uint64{1, 2, 3, 4}, reps)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Seeds.Ranking[0]
	if v.Distinguishable || v.Disjoint || v.Wins+v.Losses != 4 {
		t.Errorf("verdict %+v", v)
	}
	var buf bytes.Buffer
	WriteVerdicts(&buf, r.Seeds.Ranking)
	if !strings.Contains(buf.String(), "p99 ~ ") || !strings.Contains(buf.String(), "not distinguishable") {
		t.Errorf("verdict line:\n%s", buf.String())
	}
}

func TestCombineSeedsRefusesMismatches(t *testing.T) {
	other := seedReport(2, 1, 2)
	other.Runs[1].Name = "c"
	for name, reps := range map[string][]*Report{
		"count": {seedReport(1, 1, 2)},
		"names": {seedReport(1, 1, 2), other},
		"runs":  {seedReport(1, 1, 2), {Runs: []Run{{Name: "a"}}}},
	} {
		if _, err := CombineSeeds([]uint64{1, 2}, reps); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestSeedList(t *testing.T) {
	for want, seeds := range map[string][]uint64{
		"1-30":     {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30},
		"7, 9, 11": {7, 9, 11}, "1-3, 9": {1, 2, 3, 9}, "5, 1-2": {5, 1, 2}, "4": {4},
	} {
		if got := SeedList(seeds); got != want {
			t.Errorf("%v: %q, want %q", seeds, got, want)
		}
	}
}

// point is a sweep point of line at x with mean p99.
func point(line string, x, p99 float64) SweepPoint {
	return SweepPoint{Values: []string{strconv.FormatFloat(x, 'g', -1, 64)}, X: x, Line: line,
		Summary: Summary{Name: line, Figures: map[string]Figure{"p99": {Mean: p99}}}}
}

func TestFindKnees(t *testing.T) {
	s := &Sweep{Axes: []SweepAxis{{Path: "clients.rate"}}, Knee: KneeRule{Factor: 10}, Points: []SweepPoint{
		point("stick", 1, 10), point("stick", 2, 12), point("stick", 3, 90), point("stick", 4, 150), point("stick", 5, 60),
		point("flat", 1, 10), point("flat", 2, 11), point("flat", 3, 12),
		point("late", 3, 99), point("late", 1, 10), point("late", 2, 50), // out of order: sorted by x
	}}
	s.FindKnees()
	want := map[string]Knee{
		"stick": {BoundMS: 100, Found: true, X: 3, P99: 90},               // 150 at x=4 crosses; 60 later does not count
		"flat":  {BoundMS: 100, Found: true, Beyond: true, X: 3, P99: 12}, // never crosses
		"late":  {BoundMS: 100, Found: true, Beyond: true, X: 3, P99: 99},
	}
	if len(s.Knees) != 3 {
		t.Fatalf("%d knees", len(s.Knees))
	}
	for _, k := range s.Knees {
		w := want[k.Line]
		if k.BoundMS != w.BoundMS || k.Found != w.Found || k.Beyond != w.Beyond || k.X != w.X || k.P99 != w.P99 {
			t.Errorf("%s: %+v, want %+v", k.Line, k, w)
		}
	}
	s.Knee = KneeRule{BoundMS: 5} // a fixed bound under every point
	s.FindKnees()
	for _, k := range s.Knees {
		if k.Found || k.BoundMS != 5 {
			t.Errorf("%s: %+v, want no knee", k.Line, k)
		}
	}
	s.Axes[0].Unit = "text"
	s.FindKnees()
	if s.Knees != nil {
		t.Errorf("knees on a text axis: %+v", s.Knees)
	}
}
