package balance

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/stats"
)

func TestDrawDistinct(t *testing.T) {
	for _, n := range []int{2, 3, 5, 16, 1000} {
		for _, k := range []int{1, 2, 3} {
			v := newView(n, load.Local)
			for j := range v.down {
				v.down[j] = j%3 == 2 && j > 0
			}
			want := min(k, v.eligible())
			for seq := uint64(0); seq < 3000; seq++ {
				var buf [MaxChoices]int
				got := drawDistinct(v, 9, seq, 4, buf[:k])
				if got != want {
					t.Fatalf("n=%d k=%d: drew %d, want %d", n, k, got, want)
				}
				for i := 0; i < got; i++ {
					if v.down[buf[i]] || contains(buf[:i], buf[i]) {
						t.Fatalf("n=%d k=%d: draw %v repeats or is down", n, k, buf[:got])
					}
				}
			}
		}
	}
}

// TestDrawDistinctPairsUniform checks that every unordered pair of 4 members
// is drawn equally often (1/6 each).
func TestDrawDistinctPairsUniform(t *testing.T) {
	v := newView(4, load.Local)
	var counts [4][4]float64
	for seq := uint64(0); seq < distPicks; seq++ {
		var buf [2]int
		drawDistinct(v, 1, seq, 2, buf[:])
		counts[min(buf[0], buf[1])][max(buf[0], buf[1])]++
	}
	for a := 0; a < 4; a++ {
		for b := a + 1; b < 4; b++ {
			if share := counts[a][b] / distPicks; math.Abs(share-1.0/6) > 0.01 {
				t.Errorf("pair %d,%d drawn %.4f of the time, want 1/6", a, b, share)
			}
		}
	}
}

func TestP2CPicksLessLoadedOfTwo(t *testing.T) {
	const n = 6
	a, v := build(t, "p2c", n), newView(n, load.Local)
	for j := 0; j < n; j++ {
		for k := 0; k < j; k++ {
			v.tb.Sent(0, j) // member j has j outstanding
		}
	}
	counts := make([]float64, n)
	for seq := uint64(0); seq < distPicks; seq++ {
		var buf [2]int
		drawDistinct(v, 42, seq, 7, buf[:])
		j := a.Pick(0, Request{Seq: seq}, v)
		if j != min(buf[0], buf[1]) {
			t.Fatalf("seq %d: drew %v, picked %d", seq, buf, j)
		}
		counts[j]++
	}
	// The less loaded of two uniform distinct members: P(j) = 2(n-1-j) / (n(n-1)).
	for j := range counts {
		want := 2 * float64(n-1-j) / (n * (n - 1))
		if share := counts[j] / distPicks; math.Abs(share-want) > 0.01 {
			t.Errorf("member %d share %.4f, want %.4f", j, share, want)
		}
	}
}

func TestP2CCosts(t *testing.T) {
	s := load.Stat{Latency: stats.NewEWMA(time.Second), Peak: stats.NewPeakEWMA(time.Second)}
	if c := latencyLoadCost(0, &s); c != 0 {
		t.Errorf("idle unsampled cost %g, want 0", c)
	}
	s.Outstanding = 2
	if c := latencyLoadCost(0, &s); c != unsampledPenalty+2 {
		t.Errorf("busy unsampled cost %g, want the penalty", c)
	}
	s.Latency.Observe(0, 4e6)
	s.Peak.Observe(0, 4e6)
	if c := latencyLoadCost(0, &s); c != 12e6 {
		t.Errorf("latency x load = %g, want 12e6", c)
	}
	if c := peakLoadCost(clock.Instant(time.Second), &s); math.Abs(c-12e6/math.E) > 1 {
		t.Errorf("peak cost after one tau = %g, want %g", c, 12e6/math.E)
	}
}

func TestP2CStaleFresh(t *testing.T) {
	const n = 5
	a, v := build(t, "p2c-stale", n), newView(n, load.Shared)
	now := ms(5000)
	for j := 0; j < n; j++ {
		v.tb.Report(j, load.Report{At: now, Valid: true, Queued: n - 1 - j, InService: 0}) // member n-1 least queued
	}
	v.tb.Report(3, load.Report{At: now, Valid: true, Queued: 0, InService: 2}) // ties with 4 on Queued, more in service
	for seq := uint64(0); seq < 20000; seq++ {
		var buf [2]int
		drawDistinct(v, 42, seq, 7, buf[:])
		want := buf[0]
		if lessLoaded(v, buf[1], buf[0]) {
			want = buf[1]
		}
		if j := a.Pick(now, Request{Seq: seq}, v); j != want {
			t.Fatalf("seq %d: drew %v, picked %d, want %d", seq, buf, j, want)
		}
		if j := a.Pick(now, Request{Seq: seq}, v); j == 0 {
			t.Fatalf("seq %d: picked the most loaded member", seq)
		}
	}
}

func TestP2CStaleVeryStaleIsUniform(t *testing.T) {
	a, v := build(t, "p2c-stale", 5), newView(5, load.Shared)
	for j := 0; j < 5; j++ {
		v.tb.Report(j, load.Report{At: 0, Valid: true, Queued: 10 * j, InService: j})
	}
	v.down[4] = true
	checkShares(t, "p2c-stale 10 s stale", sharesAt(t, a, v, ms(10000)), uniform(5, 4), 0.01)
	b, w := build(t, "p2c-stale", 5), newView(5, load.Shared) // no reports at all
	checkShares(t, "p2c-stale unreported", sharesAt(t, b, w, ms(1)), uniform(5), 0.01)
}

// TestP2CStaleInterpolates: at 100 ms staleness a random pick happens 10% of
// the time, so the worse of two members gets 5% of the picks.
func TestP2CStaleInterpolates(t *testing.T) {
	a, v := build(t, "p2c-stale", 2), newView(2, load.Shared)
	v.tb.Report(0, load.Report{At: ms(1000), Valid: true, Queued: 0, InService: 0})
	v.tb.Report(1, load.Report{At: ms(1000), Valid: true, Queued: 10, InService: 0})
	got := sharesAt(t, a, v, ms(1100))
	if math.Abs(got[1]-0.05) > 0.01 {
		t.Errorf("worse member share %.4f, want 0.05", got[1])
	}
}

func TestP2CStaleOptimisticIncrement(t *testing.T) {
	a, v := build(t, "p2c-stale", 2), newView(2, load.Local)
	v.tb.Report(0, load.Report{At: 0, Valid: true, Queued: 0, InService: 0})
	v.tb.Report(1, load.Report{At: 0, Valid: true, Queued: 0, InService: 1})
	var picks [2]int
	for seq := uint64(0); seq < 10; seq++ {
		j := a.Pick(0, Request{Seq: seq}, v)
		v.tb.Sent(0, j)
		picks[j]++
	}
	if picks != [2]int{5, 5} {
		t.Fatalf("picks %v: optimistic increments should alternate the members", picks)
	}
}

func sharesAt(t *testing.T, a Algorithm, v *testView, now clock.Instant) []float64 {
	t.Helper()
	counts := make([]float64, v.Len())
	for seq := uint64(0); seq < distPicks; seq++ {
		counts[a.Pick(now, Request{Seq: seq}, v)]++
	}
	for j := range counts {
		counts[j] /= distPicks
	}
	return counts
}
