package balance

import (
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

// Slow start reaches every weighted and load-aware algorithm through the
// View's Ramp: weighted round robin multiplies the weight by it, the
// cost-based algorithms divide the cost by it.

func TestRampScalesWeightedRoundRobin(t *testing.T) {
	a := mustNew(t, Config{Name: "weighted-round-robin"})
	a.Update([]Server{{"a", 1}, {"b", 2}, {"c", 3}, {"d", 4}})
	v := newView(4, load.Local)
	v.ramp = []float64{1, 1, 0.5, 0.25}
	// effective weights 1, 2, 1.5, 1: shares w x r / sum.
	want := []float64{1 / 5.5, 2 / 5.5, 1.5 / 5.5, 1 / 5.5}
	checkShares(t, "weighted-round-robin ramped", shares(t, a, v), want, 0.001)
}

// With fixed, different costs p2c's member of rank r (0 = cheapest) among n
// wins exactly when it is drawn with a dearer one: share (n-1-r)/C(n,2). A
// ramp of 0.1 on the idle member makes it the dearest: (0+1)/0.1 = 10 > 4+1.
func TestRampReordersP2C(t *testing.T) {
	for _, name := range []string{"p2c", "p2c-latency-load", "p2c-peak-ewma", "least-response-time"} {
		a, v := build(t, name, 5), newView(5, load.Local)
		for j := range 5 {
			for range j {
				v.tb.Sent(0, j)
			}
			v.tb.Done(ms(1), j, 10e6) // equal latencies: cost order is the outstanding order
			v.tb.Sent(0, j)           // (Done took one back)
		}
		v.ramp = []float64{0.1, 1, 1, 1, 1}
		want := []float64{0, 0.4, 0.3, 0.2, 0.1}
		if name == "least-response-time" {
			want = []float64{0, 1, 0, 0, 0} // a full scan takes the cheapest every time
		}
		checkShares(t, name+" ramped", shares(t, a, v), want, 0.01)
	}
}

func TestRampLeastOutstanding(t *testing.T) {
	for _, rotating := range []bool{false, true} {
		a := mustNew(t, Config{Name: "least-outstanding", RotatingStart: rotating})
		a.Update(names(3))
		v := newView(3, load.Local)
		v.tb.Sent(0, 1)
		v.tb.Sent(0, 2)
		v.tb.Sent(0, 2)
		// costs (o+1)/r: 0 -> 1/0.4 = 2.5, 1 -> 2, 2 -> 3.
		v.ramp = []float64{0.4, 1, 1}
		checkShares(t, "least-outstanding ramped", shares(t, a, v), []float64{0, 1, 0}, 0)
		v.ramp[0] = 0.6 // 1/0.6 = 1.67 < 2
		checkShares(t, "least-outstanding ramp 0.6", shares(t, a, v), []float64{1, 0, 0}, 0)
	}
}

func TestRampP2CStale(t *testing.T) {
	a, v := build(t, "p2c-stale", 2), newView(2, load.Shared)
	v.tb.Report(0, load.Report{At: ms(1000), Valid: true, Queued: 0, InService: 0})
	v.tb.Report(1, load.Report{At: ms(1000), Valid: true, Queued: 2, InService: 0})
	v.ramp = []float64{0.25, 1} // (0+1)/0.25 = 4 > 3
	checkShares(t, "p2c-stale ramped", sharesAt(t, a, v, ms(1000)), []float64{0, 1}, 0)
	v.ramp = nil
	checkShares(t, "p2c-stale", sharesAt(t, a, v, ms(1000)), []float64{1, 0}, 0)
}

// Algorithms that weigh neither servers nor loads ignore the ramp.
func TestRampIgnoredByUnweighted(t *testing.T) {
	for _, name := range []string{"round-robin", "random", "ring-hash", "maglev"} {
		a, v := build(t, name, 4), newView(4, load.Local)
		plain := shares(t, a, v)
		b, w := build(t, name, 4), newView(4, load.Local)
		w.ramp = []float64{0.1, 0.5, 1, 0.2}
		checkShares(t, name+" ramped", shares(t, b, w), plain, 0)
	}
}
