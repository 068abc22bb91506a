// Package confidence says how sure a figure measured over several seeds is:
// the mean of the per-seed values with a Student's t confidence interval, and
// a paired comparison of two settings run on the same seeds.
//
// Each seed's run is one observation (its p99, its goodput, ...): the
// per-seed values are combined as a sample, never merged as if they were one
// histogram. Student's t is exact for normally distributed observations and,
// by the central limit theorem, close for the means of other distributions
// once there are a few tens of seeds (see any statistics text, e.g. Wasserman,
// "All of Statistics", ch. 6).
package confidence

import "math"

// Level is the confidence level every interval of the lab uses.
const Level = 0.95

// Method names the interval method in reports.
const Method = "student-t"

// Interval is a sample's mean with a two-sided confidence interval.
type Interval struct {
	N    int     // observations
	Mean float64 // sample mean
	SD   float64 // sample standard deviation (n-1 in the denominator); 0 when N < 2
	Lo   float64 // Mean - t(level, N-1) * SD / sqrt(N); Mean when N < 2
	Hi   float64 // Mean + t(level, N-1) * SD / sqrt(N)
}

// HalfWidth is half the interval's width.
func (iv Interval) HalfWidth() float64 { return (iv.Hi - iv.Lo) / 2 }

// Excludes reports whether x lies outside the interval. An interval of
// fewer than two observations excludes nothing: it says nothing.
func (iv Interval) Excludes(x float64) bool { return iv.N >= 2 && (x < iv.Lo || x > iv.Hi) }

// Disjoint reports whether two intervals do not overlap.
func (iv Interval) Disjoint(o Interval) bool {
	return iv.N >= 2 && o.N >= 2 && (iv.Hi < o.Lo || o.Hi < iv.Lo)
}

// Mean returns the mean of xs with its Student's t interval at level:
//
//	mean ± t_{(1+level)/2, n-1} · s / √n,   s² = Σ(x - mean)² / (n - 1).
//
// With fewer than two values the interval is the mean itself (N tells).
func Mean(xs []float64, level float64) Interval {
	n := len(xs)
	iv := Interval{N: n}
	if n == 0 {
		return iv
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	iv.Mean = sum / float64(n)
	iv.Lo, iv.Hi = iv.Mean, iv.Mean
	if n < 2 {
		return iv
	}
	var ss float64
	for _, x := range xs {
		d := x - iv.Mean
		ss += d * d
	}
	iv.SD = math.Sqrt(ss / float64(n-1))
	half := TQuantile((1+level)/2, n-1) * iv.SD / math.Sqrt(float64(n))
	iv.Lo, iv.Hi = iv.Mean-half, iv.Mean+half
	return iv
}

// Paired compares a and b observed on the same seeds (a[i] and b[i] come
// from seed i, so the seed's own luck, its request stream, is the same on
// both sides and cancels in the difference).
type Paired struct {
	N    int      // pairs
	Less int      // pairs with a < b
	More int      // pairs with a > b (the rest are ties)
	Diff Interval // of a[i] - b[i]: the paired t interval
}

// Compare returns the paired comparison of a and b, which must have the
// same length (the shorter one's length is used otherwise).
func Compare(a, b []float64, level float64) Paired {
	n := min(len(a), len(b))
	d := make([]float64, n)
	p := Paired{N: n}
	for i := range n {
		d[i] = a[i] - b[i]
		switch {
		case a[i] < b[i]:
			p.Less++
		case a[i] > b[i]:
			p.More++
		}
	}
	p.Diff = Mean(d, level)
	return p
}

// Distinct reports whether the paired interval of the differences excludes
// zero: the two settings differ at the interval's level.
func (p Paired) Distinct() bool { return p.Diff.Excludes(0) }
