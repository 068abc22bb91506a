package balance

import (
	"math"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

const distPicks = 100000

// shares runs distPicks picks with unchanging loads and returns each member's share.
func shares(t *testing.T, a Algorithm, v *testView) []float64 {
	t.Helper()
	counts := make([]float64, v.Len())
	for seq := uint64(0); seq < distPicks; seq++ {
		j := a.Pick(ms(1000), Request{Seq: seq, Key: seq}, v)
		if j < 0 {
			t.Fatalf("%s picked -1", a.Name())
		}
		counts[j]++
	}
	for j := range counts {
		counts[j] /= distPicks
	}
	return counts
}

func checkShares(t *testing.T, name string, got, want []float64, tol float64) {
	t.Helper()
	for j := range got {
		if math.Abs(got[j]-want[j]) > tol {
			t.Errorf("%s: share of %d = %.4f, want %.4f ± %g (all %.4f)", name, j, got[j], want[j], tol, got)
		}
	}
}

func uniform(n int, down ...int) []float64 {
	w := make([]float64, n)
	for j := range w {
		w[j] = 1 / float64(n-len(down))
	}
	for _, j := range down {
		w[j] = 0
	}
	return w
}

func TestEqualLoadShares(t *testing.T) {
	for _, name := range []string{"round-robin", "random", "least-outstanding", "least-latency",
		"p2c", "p2c-latency-load", "p2c-peak-ewma", "p2c-stale"} {
		a, v := build(t, name, 5), newView(5, load.Local)
		checkShares(t, name, shares(t, a, v), uniform(5), 0.01)
	}
	a := mustNew(t, Config{Name: "least-outstanding", RotatingStart: true})
	a.Update(names(5))
	checkShares(t, "least-outstanding rotating", shares(t, a, newView(5, load.Local)), uniform(5), 0.0001)
}

func TestSharesWithDownMembers(t *testing.T) {
	for _, name := range []string{"round-robin", "random", "least-outstanding", "p2c", "p2c-stale"} {
		a, v := build(t, name, 8), newView(8, load.Local)
		v.down[2], v.down[5], v.down[6] = true, true, true
		checkShares(t, name, shares(t, a, v), uniform(8, 2, 5, 6), 0.01)
	}
}

func TestRoundRobinExact(t *testing.T) {
	a, v := build(t, "round-robin", 5), newView(5, load.Local)
	checkShares(t, "round-robin", shares(t, a, v), uniform(5), 0)
}

func TestWeightedRoundRobinShares(t *testing.T) {
	a := mustNew(t, Config{Name: "weighted-round-robin"})
	a.Update([]Server{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}, {"e", 0}, {"f", -3}})
	v := newView(6, load.Local)
	want := []float64{1.0 / 12, 2.0 / 12, 3.0 / 12, 4.0 / 12, 1.0 / 12, 1.0 / 12}
	checkShares(t, "weighted-round-robin", shares(t, a, v), want, 0.001)

	v.down[3] = true // the others keep their proportions
	want = []float64{1.0 / 8, 2.0 / 8, 3.0 / 8, 0, 1.0 / 8, 1.0 / 8}
	checkShares(t, "weighted-round-robin, d down", shares(t, a, v), want, 0.001)
}

func TestWeightedRoundRobinSmooth(t *testing.T) {
	a := mustNew(t, Config{Name: "weighted-round-robin"})
	a.Update([]Server{{"a", 5}, {"b", 1}, {"c", 1}})
	v, got := newView(3, load.Local), ""
	for seq := uint64(0); seq < 14; seq++ {
		got += string(rune('a' + a.Pick(0, Request{Seq: seq}, v)))
	}
	if want := "aabacaaaabacaa"; got != want {
		t.Fatalf("sequence %s, want nginx's %s", got, want)
	}
}

func TestLeastOutstandingPicksMinimum(t *testing.T) {
	for _, rotating := range []bool{false, true} {
		a := mustNew(t, Config{Name: "least-outstanding", RotatingStart: rotating})
		a.Update(names(5))
		v := newView(5, load.Local)
		for j, o := range []int{3, 1, 4, 1, 0} {
			for k := 0; k < o; k++ {
				v.tb.Sent(0, j)
			}
		}
		v.down[4] = true
		counts := [5]int{}
		for seq := uint64(0); seq < 1000; seq++ {
			counts[a.Pick(0, Request{Seq: seq}, v)]++
		}
		if counts[1]+counts[3] != 1000 || counts[1] < 400 || counts[3] < 400 {
			t.Errorf("rotating=%v: counts %v, want only 1 and 3, evenly", rotating, counts)
		}
	}
}

func TestLeastLatencyPrefersFastAndUnsampled(t *testing.T) {
	a, v := build(t, "least-latency", 3), newView(3, load.Local)
	v.tb.Done(ms(10), 0, 20e6)
	v.tb.Done(ms(10), 1, 5e6)
	if j := a.Pick(ms(11), Request{Seq: 1}, v); j != 2 {
		t.Fatalf("picked %d, want the unsampled 2", j)
	}
	v.tb.Done(ms(12), 2, 30e6)
	if j := a.Pick(ms(13), Request{Seq: 2}, v); j != 1 {
		t.Fatalf("picked %d, want the fastest 1", j)
	}
}
