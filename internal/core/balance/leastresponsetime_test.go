package balance

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// Every pick is the argmin of latency x (outstanding + 1) over all eligible
// members, checked against a brute-force scan on random states.
func TestLeastResponseTimeIsFullScan(t *testing.T) {
	const n = 9
	a := build(t, "least-response-time", n)
	for round := uint64(0); round < 300; round++ {
		v := newView(n, load.Local)
		for j := 0; j < n; j++ {
			v.down[j] = rng.Bounded(rng.Hash(round, uint64(j), 1), 4) == 0
			for range rng.Bounded(rng.Hash(round, uint64(j), 2), 5) {
				v.tb.Sent(0, j)
			}
			v.tb.Done(ms(1), j, time.Duration(1+rng.Bounded(rng.Hash(round, uint64(j), 3), 4))*time.Millisecond)
		}
		best := math.Inf(1)
		for j := 0; j < n; j++ {
			if !v.down[j] {
				best = math.Min(best, latencyLoadCost(ms(2), &v.tb.Stats[j]))
			}
		}
		j := a.Pick(ms(2), Request{Seq: round}, v)
		if v.eligible() == 0 {
			if j != -1 {
				t.Fatalf("round %d: picked %d with none eligible", round, j)
			}
			continue
		}
		if v.down[j] || latencyLoadCost(ms(2), &v.tb.Stats[j]) != best {
			t.Fatalf("round %d: picked %d at cost %g, the least is %g", round, j, latencyLoadCost(ms(2), &v.tb.Stats[j]), best)
		}
	}
}

// Ties are split evenly: members 0 and 2 have the same latency x load
// (10 ms x 2 and 20 ms x 1), 1 and 3 cost more.
func TestLeastResponseTimeTies(t *testing.T) {
	a, v := build(t, "least-response-time", 4), newView(4, load.Local)
	for j, lat := range []time.Duration{10, 30, 20, 40} {
		v.tb.Done(ms(1), j, lat*time.Millisecond)
	}
	v.tb.Sent(ms(1), 0)
	checkShares(t, "least-response-time ties", shares(t, a, v), []float64{0.5, 0, 0.5, 0}, 0.01)
}

// Unlike least-latency it does not herd on fresh counts: sending raises the
// picked member's cost at once, so equal members take turns.
func TestLeastResponseTimeSpreadsOnLocalCounts(t *testing.T) {
	a, v := build(t, "least-response-time", 4), newView(4, load.Local)
	for j := range 4 {
		v.tb.Done(ms(1), j, 10*time.Millisecond)
	}
	var counts [4]int
	for seq := uint64(0); seq < 400; seq++ {
		j := a.Pick(ms(2), Request{Seq: seq}, v)
		v.tb.Sent(ms(2), j)
		counts[j]++
	}
	if counts != [4]int{100, 100, 100, 100} {
		t.Fatalf("400 picks without answers went %v, want 100 each", counts)
	}
}
