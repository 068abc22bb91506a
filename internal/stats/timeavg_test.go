package stats

import (
	"cmp"
	"slices"
	"testing"

	"github.com/lblab/lblab/internal/clock"
)

func TestTimeAverageStep(t *testing.T) {
	var ta TimeAverage
	if ta.Mean(sec) != 0 {
		t.Fatal("empty time average not 0")
	}
	ta.Set(0, 0)
	ta.Set(1*sec, 2) // 2 in [1 s, 3 s)
	ta.Set(3*sec, 0)
	if got := ta.Mean(4 * sec); !near(got, 1, 1e-12) {
		t.Fatalf("mean of the step over 4 s = %g, want 1", got)
	}
	if got := ta.Mean(3 * sec); !near(got, 4.0/3, 1e-12) {
		t.Fatalf("mean over 3 s = %g, want 4/3 (0 for 1 s, 2 for 2 s)", got)
	}
	ta.Add(4*sec, 3)
	ta.Add(6*sec, -1) // 3 in [4 s, 6 s), then 2
	if ta.Value() != 2 {
		t.Fatalf("Value = %g, want 2", ta.Value())
	}
	// area = 4 + 6 + 2×2 = 14 over 8 s
	if got := ta.Mean(8 * sec); !near(got, 14.0/8, 1e-12) {
		t.Fatalf("mean over 8 s = %g, want 1.75", got)
	}
}

func TestTimeAverageLittle(t *testing.T) {
	// Requests arriving every 100 ms and staying 250 ms: L = λW = 10 × 0.25.
	var ta TimeAverage
	ta.Set(0, 0)
	const gap, stay = clock.Instant(100e6), clock.Instant(250e6)
	type ev struct {
		at clock.Instant
		dv float64
	}
	var evs []ev
	for i := range clock.Instant(1000) {
		evs = append(evs, ev{i * gap, 1}, ev{i*gap + stay, -1})
	}
	slices.SortStableFunc(evs, func(a, b ev) int { return cmp.Compare(a.at, b.at) })
	for _, e := range evs {
		ta.Add(e.at, e.dv)
	}
	if got := ta.Mean(1000 * gap); !near(got, 2.5, 0.01) {
		t.Fatalf("time-average number in system %g, want 2.5", got)
	}
}
