package stats

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

// exactQuantile is the nearest-rank quantile of sorted values.
func exactQuantile(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func TestHistogramQuantiles(t *testing.T) {
	dists := []rng.Dist{
		rng.Exponential{Avg: 10 * time.Millisecond},
		rng.NewLognormal(20*time.Millisecond, 1.5),
	}
	for _, d := range dists {
		src := rng.Split(1, d.String())
		const n = 1_000_000
		h := NewHistogram()
		values := make([]time.Duration, n)
		for i := range values {
			values[i] = d.Sample(src)
			h.Record(values[i])
		}
		slices.Sort(values)
		if h.Count() != n {
			t.Fatalf("%v: Count = %d, want %d", d, h.Count(), n)
		}
		for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
			want, got := exactQuantile(values, q), h.Quantile(q)
			if math.Abs(float64(got-want)) > 0.01*float64(want) {
				t.Errorf("%v: p%g = %v, exact %v (more than 1%% off)", d, q*100, got, want)
			}
		}
		sum := 0.0
		for _, v := range values {
			sum += float64(v)
		}
		if mean := time.Duration(sum / n); math.Abs(float64(h.Mean()-mean)) > 1 {
			t.Errorf("%v: Mean = %v, exact %v", d, h.Mean(), mean)
		}
		if h.Min() != values[0] {
			t.Errorf("%v: Min = %v, exact %v", d, h.Min(), values[0])
		}
		if h.Max() != values[n-1] {
			t.Errorf("%v: Max = %v, exact %v", d, h.Max(), values[n-1])
		}
	}
}

func TestHistogramEmptyAndClamp(t *testing.T) {
	h := NewHistogram()
	if h.Count() != 0 || h.Quantile(0.5) != 0 || h.Mean() != 0 || h.Min() != 0 || h.Max() != 0 {
		t.Fatal("empty histogram is not all zero")
	}
	h.Record(0)             // below 1 µs: counted as 1 µs
	h.Record(2 * time.Hour) // above 1 hour: counted as 1 hour
	if h.Count() != 2 {
		t.Fatalf("clamped values dropped: Count = %d", h.Count())
	}
	if q := h.Quantile(0); q != time.Microsecond {
		t.Errorf("p0 = %v, want 1µs", q)
	}
	if q := h.Quantile(1); q < 59*time.Minute || q > 61*time.Minute {
		t.Errorf("p100 = %v, want about 1h", q)
	}
}

func TestHistogramMerge(t *testing.T) {
	a, b, all := NewHistogram(), NewHistogram(), NewHistogram()
	src := rng.New(2)
	for i := range 100_000 {
		v := rng.Exponential{Avg: time.Millisecond}.Sample(src)
		if i%3 == 0 {
			v *= 50 // b gets a slower population
			b.Record(v)
		} else {
			a.Record(v)
		}
		all.Record(v)
	}
	a.Merge(b)
	if a.Count() != all.Count() || a.Max() != all.Max() || a.Min() != all.Min() {
		t.Fatalf("merged count/min/max %d/%v/%v, want %d/%v/%v", a.Count(), a.Min(), a.Max(), all.Count(), all.Min(), all.Max())
	}
	empty := NewHistogram()
	empty.Merge(a)
	if empty.Min() != all.Min() {
		t.Errorf("an empty histogram merged: Min %v, want %v", empty.Min(), all.Min())
	}
	if math.Abs(float64(a.Mean()-all.Mean())) > 1 {
		t.Fatalf("merged mean %v, want %v", a.Mean(), all.Mean())
	}
	for _, q := range []float64{0.1, 0.5, 0.9, 0.99, 0.999} {
		if a.Quantile(q) != all.Quantile(q) {
			t.Errorf("merged p%g = %v, want %v", q*100, a.Quantile(q), all.Quantile(q))
		}
	}
	if b.Count() != 100_000/3+1 {
		t.Errorf("Merge changed its argument: Count %d", b.Count())
	}
}

func TestHistogramReset(t *testing.T) {
	h := NewHistogram()
	for i := range 1000 {
		h.Record(time.Duration(i+1) * time.Millisecond)
	}
	h.Reset()
	if h.Count() != 0 || h.Quantile(0.99) != 0 || h.Mean() != 0 || h.Max() != 0 {
		t.Fatalf("after Reset: count %d p99 %v mean %v max %v", h.Count(), h.Quantile(0.99), h.Mean(), h.Max())
	}
	h.Record(5 * time.Millisecond)
	if h.Count() != 1 || h.Mean() != 5*time.Millisecond || h.Max() != 5*time.Millisecond || h.Min() != 5*time.Millisecond {
		t.Fatalf("after Reset and one value: count %d mean %v max %v", h.Count(), h.Mean(), h.Max())
	}
	if q := h.Quantile(0.5); math.Abs(float64(q-5*time.Millisecond)) > 0.001*float64(5*time.Millisecond) {
		t.Fatalf("after Reset and one value: p50 %v", q)
	}
}

func BenchmarkHistogramRecord(b *testing.B) {
	h := NewHistogram()
	src := rng.New(1)
	vals := make([]time.Duration, 4096)
	for i := range vals {
		vals[i] = rng.Exponential{Avg: 10 * time.Millisecond}.Sample(src)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(vals[i&4095])
	}
}
