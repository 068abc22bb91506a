package hedge

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

const ms = time.Millisecond

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Config
		on   bool
	}{
		{"", Config{}, false},
		{"off", Config{}, false},
		{" off ", Config{}, false},
		{"50ms", Config{Delay: 50 * ms}, true},
		{"1.5s", Config{Delay: 1500 * ms}, true},
		{"p95", Config{Quantile: 0.95}, true},
		{"p50", Config{Quantile: 0.5}, true},
		{"p99.9", Config{Quantile: 99.9 / 100}, true},
		{"P99", Config{Quantile: 0.99}, true},
	} {
		cfg, on, err := Parse(tc.in)
		if err != nil || on != tc.on || cfg != tc.want {
			t.Errorf("Parse(%q) = %+v, %v, %v; want %+v, %v, nil", tc.in, cfg, on, err, tc.want, tc.on)
		}
		if on {
			if _, err := New(cfg); err != nil {
				t.Errorf("New(Parse(%q)): %v", tc.in, err)
			}
		}
	}
	for _, in := range []string{"p", "p0", "p100", "p-5", "pxx", "0ms", "-5ms", "50", "fast", "p95ms", "pNaN"} {
		cfg, on, err := Parse(in)
		if err == nil || on || cfg != (Config{}) {
			t.Errorf("Parse(%q) = %+v, %v, %v; want an error", in, cfg, on, err)
		} else if !strings.Contains(err.Error(), in) {
			t.Errorf("Parse(%q) error %q does not quote the input", in, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{Config{}, "Delay"},
		{Config{Delay: -ms}, "Delay"},
		{Config{Delay: ms, Quantile: 0.9}, "not both"},
		{Config{Quantile: 1}, "Quantile"},
		{Config{Quantile: -0.5}, "Quantile"},
		{Config{Quantile: math.NaN()}, "Quantile"},
		{Config{Quantile: 0.9, Window: -1}, "Window"},
		{Config{Quantile: 0.9, Window: MaxWindow + 1}, "Window"},
		{Config{Quantile: 0.9, Window: 10, MinSamples: 11}, "MinSamples"},
		{Config{Quantile: 0.9, MinSamples: -1}, "MinSamples"},
	} {
		h, err := New(tc.cfg)
		if err == nil || h != nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("New(%+v) = %v, %v; want an error naming %s", tc.cfg, h, err, tc.field)
		}
	}
}

func TestDefaults(t *testing.T) {
	h, err := New(Config{Quantile: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Config(); c.Window != DefaultWindow || c.MinSamples != DefaultMinSamples {
		t.Fatalf("defaults = %+v", c)
	}
	h, err = New(Config{Quantile: 0.95, Window: 8})
	if err != nil {
		t.Fatal(err)
	}
	if c := h.Config(); c.MinSamples != 8 {
		t.Fatalf("MinSamples with an 8-sample window = %d, want 8", c.MinSamples)
	}
}

func TestFixed(t *testing.T) {
	h, err := New(Config{Delay: 50 * ms})
	if err != nil {
		t.Fatal(err)
	}
	if d, ok := h.Delay(); !ok || d != 50*ms {
		t.Fatalf("Delay = %v, %v; want 50ms, true", d, ok)
	}
	for range 100 {
		h.Observe(time.Second)
	}
	if d, ok := h.Delay(); !ok || d != 50*ms {
		t.Fatalf("after observations Delay = %v, %v; want 50ms, true", d, ok)
	}
}

func TestMinSamples(t *testing.T) {
	h, err := New(Config{Quantile: 0.5, Window: 100, MinSamples: 20})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 19 {
		h.Observe(time.Duration(i+1) * ms)
		if d, ok := h.Delay(); ok {
			t.Fatalf("hedge delay %v known after %d samples", d, i+1)
		}
	}
	h.Observe(20 * ms)
	if d, ok := h.Delay(); !ok || d != 10*ms {
		t.Fatalf("after 20 samples Delay = %v, %v; want 10ms (nearest-rank median of 1..20 ms)", d, ok)
	}
}

func TestNearestRank(t *testing.T) {
	h, _ := New(Config{Quantile: 0.95, Window: 1000, MinSamples: 1000})
	for i := range 1000 { // 1..1000 ms, shuffled by a fixed stride
		h.Observe(time.Duration((i*337)%1000+1) * ms)
	}
	if d, _ := h.Delay(); d != 950*ms {
		t.Fatalf("p95 of 1..1000 ms = %v, want 950ms", d)
	}
}

// TestTracksShift feeds lognormal latencies whose scale jumps from 10 ms to
// 40 ms: within one window plus the recompute lag, the hedge delay follows
// the new p95, and it stays within 5% of the exact window quantile.
func TestTracksShift(t *testing.T) {
	const window = 1000
	h, err := New(Config{Quantile: 0.95, Window: window})
	if err != nil {
		t.Fatal(err)
	}
	src := rng.Split(3, "hedge")
	var recent []time.Duration
	check := func(phase string) {
		exact := slices.Clone(recent[len(recent)-window:])
		slices.Sort(exact)
		want := exact[int(math.Ceil(0.95*window))-1]
		got, ok := h.Delay()
		if !ok || math.Abs(float64(got-want)) > 0.05*float64(want) {
			t.Fatalf("%s: Delay = %v, %v; exact window p95 %v", phase, got, ok, want)
		}
	}
	for _, mean := range []time.Duration{10 * ms, 40 * ms} {
		d := rng.NewLognormal(mean, 1)
		for range 5 * window {
			x := d.Sample(src)
			recent = append(recent, x)
			h.Observe(x)
		}
		check(mean.String())
	}
	if d, _ := h.Delay(); d < 80*ms || d > 140*ms {
		t.Fatalf("after the shift p95 = %v, want about 4x the earlier one (~110ms)", d)
	}
}

func TestDeterministic(t *testing.T) {
	run := func() []time.Duration {
		h, _ := New(Config{Quantile: 0.99, Window: 200})
		src := rng.New(9)
		var out []time.Duration
		for range 2000 {
			h.Observe(rng.Exponential{Avg: 5 * ms}.Sample(src))
			d, _ := h.Delay()
			out = append(out, d)
		}
		return out
	}
	if !slices.Equal(run(), run()) {
		t.Fatal("same samples, different delays")
	}
}

func BenchmarkObserve(b *testing.B) {
	h, _ := New(Config{Quantile: 0.95})
	src := rng.New(1)
	b.ReportAllocs()
	for b.Loop() {
		h.Observe(time.Duration(src.Uint64() % uint64(100*ms)))
	}
}
