package limit

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func newGradient2(t *testing.T, cfg Gradient2Config) *Gradient2 {
	t.Helper()
	g, err := NewGradient2(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// feed sends n samples of the given rtt and returns the limit after them.
func feed(g *Gradient2, n int, rtt time.Duration, queued bool) int {
	var now clock.Instant
	for i := 0; i < n; i++ {
		now = now.Add(time.Millisecond)
		g.OnSample(now, rtt, g.Limit(), false, queued)
	}
	return g.Limit()
}

func TestGradient2FallsAndRecovers(t *testing.T) {
	g := newGradient2(t, Gradient2Config{Initial: 20, Min: 4, Max: 100})
	// At the baseline the gradient is 1: the limit grows by about
	// 0.2 x sqrt(limit) per sample.
	grown := feed(g, 10, 10*time.Millisecond, false)
	if grown <= 20 {
		t.Fatalf("limit at the baseline after 10 samples = %d, want > 20", grown)
	}
	// Queued responses four times the baseline: gradient clamps at 0.5,
	// the limit falls towards Min.
	fallen := feed(g, 50, 40*time.Millisecond, true)
	if fallen >= grown/2 {
		t.Fatalf("limit after slow queued responses = %d, want < %d", fallen, grown/2)
	}
	if base := time.Duration(g.baseline.v); base != 10*time.Millisecond {
		t.Fatalf("baseline = %v, want 10ms: queued samples must not move it", base)
	}
	// Fast again: it recovers.
	recovered := feed(g, 100, 10*time.Millisecond, true)
	if recovered <= fallen+20 {
		t.Fatalf("limit after recovery = %d, want > %d", recovered, fallen+20)
	}
}

func TestGradient2ToleratesModestQueueing(t *testing.T) {
	g := newGradient2(t, Gradient2Config{Initial: 20})
	feed(g, 1, 10*time.Millisecond, false)
	// 14 ms is within 1.5 x the 10 ms baseline: gradient 1, the limit grows.
	before := g.Limit()
	if after := feed(g, 20, 14*time.Millisecond, true); after <= before {
		t.Fatalf("limit at 1.4 x baseline went from %d to %d, want growth", before, after)
	}
}

func TestGradient2OneStep(t *testing.T) {
	g := newGradient2(t, Gradient2Config{Initial: 16, Max: 1000, ShortWindow: 1})
	g.OnSample(0, 10*time.Millisecond, 16, false, false)
	// gradient 1: new = 16 + 4 = 20; limit = 16 x 0.8 + 20 x 0.2 = 16.8
	if math.Abs(g.est-16.8) > 1e-9 || g.Limit() != 16 {
		t.Fatalf("estimate = %g (Limit %d), want 16.8 (16)", g.est, g.Limit())
	}
	g.OnSample(0, 60*time.Millisecond, 16, false, true)
	// short 60 ms, baseline 10 ms: gradient max(1.5/6, 0.5) = 0.5
	want := 16.8*0.8 + (16.8*0.5+math.Sqrt(16.8))*0.2
	if math.Abs(g.est-want) > 1e-9 {
		t.Fatalf("estimate = %g, want %g", g.est, want)
	}
}

func TestGradient2HoldsWithoutBaseline(t *testing.T) {
	g := newGradient2(t, Gradient2Config{Initial: 30})
	if got := feed(g, 50, 100*time.Millisecond, true); got != 30 {
		t.Fatalf("limit with no unqueued sample = %d, want 30 (held)", got)
	}
}

func TestGradient2Clamps(t *testing.T) {
	g := newGradient2(t, Gradient2Config{Initial: 10, Min: 5, Max: 12})
	if got := feed(g, 100, time.Millisecond, false); got != 12 {
		t.Fatalf("limit = %d, want Max 12", got)
	}
	if got := feed(g, 200, time.Second, true); got != 5 {
		t.Fatalf("limit = %d, want Min 5", got)
	}
	if g.Name() != "gradient2" {
		t.Fatal(g.Name())
	}
}

func TestGradient2ConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Gradient2Config
		want string
	}{
		{Gradient2Config{Min: 10, Max: 5}, "gradient2 Max = 5, must be >= Min (10)"},
		{Gradient2Config{Smoothing: 1.5}, "Smoothing = 1.5, must be in (0, 1]"},
		{Gradient2Config{Smoothing: math.NaN()}, "Smoothing = NaN"},
		{Gradient2Config{ShortWindow: -3}, "ShortWindow = -3, must be >= 1"},
		{Gradient2Config{Tolerance: 0.5}, "Tolerance = 0.5, must be finite and >= 1"},
		{Gradient2Config{Tolerance: math.Inf(1)}, "Tolerance = +Inf"},
	} {
		_, err := NewGradient2(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewGradient2(%+v) = %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}
