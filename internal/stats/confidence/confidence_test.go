package confidence

import (
	"math"
	"testing"

	"github.com/lblab/lblab/internal/rng"
	"gonum.org/v1/gonum/stat/distuv"
)

// Quantiles against a printed table of Student's t (two-sided 95%: the
// 0.975 quantile) and the normal limit.
func TestTQuantileTable(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {2, 4.303}, {4, 2.776}, {9, 2.262}, {29, 2.045}, {100, 1.984}, {100000, 1.960}} {
		if got := TQuantile(0.975, c.df); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("t(0.975, %d) = %.4f, want %.3f", c.df, got, c.want)
		}
	}
}

// A known answer: the mean of a normal sample. Over 1,000 samples of five
// values each, the 95% interval covers the true mean about 95% of the time
// (the binomial standard error of the share is 0.7%, so [93%, 97%] is three
// of them either side). Five values make the test sharp: the normal
// quantile 1.96 in place of t(0.975, 4) = 2.78 would cover only about 88%.
func TestMeanIntervalCoversTrueMean(t *testing.T) {
	const trials, n, mu, sigma = 1000, 5, 40.0, 7.0
	src := rng.New(2024)
	covered, narrower := 0, 0
	xs := make([]float64, n)
	for range trials {
		for i := range xs {
			xs[i] = mu + sigma*src.Norm()
		}
		iv := Mean(xs, Level)
		if iv.Lo <= mu && mu <= iv.Hi {
			covered++
		}
		z := 1.96 * iv.SD / math.Sqrt(n)
		if iv.Mean-z <= mu && mu <= iv.Mean+z {
			narrower++
		}
	}
	share := float64(covered) / trials
	if share < 0.93 || share > 0.97 {
		t.Errorf("the 95%% interval covered the true mean in %.1f%% of %d trials", 100*share, trials)
	}
	if z := float64(narrower) / trials; z > 0.91 {
		t.Errorf("the normal-quantile interval covered %.1f%%: the test cannot tell t from z", 100*z)
	}
}

func TestMeanSmallSamples(t *testing.T) {
	if iv := Mean(nil, Level); iv.N != 0 || iv.Mean != 0 || iv.Excludes(1) {
		t.Errorf("empty: %+v", iv)
	}
	iv := Mean([]float64{3}, Level)
	if iv.N != 1 || iv.Mean != 3 || iv.Lo != 3 || iv.Hi != 3 || iv.Excludes(0) {
		t.Errorf("one value: %+v (an interval of one value excludes nothing)", iv)
	}
	iv = Mean([]float64{2, 2, 2}, Level)
	if iv.Lo != 2 || iv.Hi != 2 || iv.SD != 0 || !iv.Excludes(2.5) {
		t.Errorf("constant values: %+v", iv)
	}
	// 1, 2, 3: mean 2, s = 1, half width t(0.975, 2) / sqrt(3) = 4.303 / 1.732.
	iv = Mean([]float64{1, 2, 3}, Level)
	if math.Abs(iv.HalfWidth()-4.3027/math.Sqrt(3)) > 1e-3 || iv.Mean != 2 || iv.SD != 1 {
		t.Errorf("1, 2, 3: %+v, half width %.4f", iv, iv.HalfWidth())
	}
}

// Two settings on the same seeds share each seed's luck: a difference much
// smaller than the spread between seeds is invisible to two separate
// intervals (they overlap) but plain in the paired one.
func TestPairedSeesThroughSharedNoise(t *testing.T) {
	src := rng.New(7)
	var a, b []float64
	for range 30 {
		luck := 100 * src.Norm() // the seed's own stream: shared
		a = append(a, 500+luck+src.Norm())
		b = append(b, 510+luck+src.Norm())
	}
	p := Compare(a, b, Level)
	if !p.Distinct() || p.Diff.Hi >= 0 || p.Less != 30 || p.More != 0 || p.N != 30 {
		t.Errorf("paired: %+v", p)
	}
	if Mean(a, Level).Disjoint(Mean(b, Level)) {
		t.Error("separate intervals should overlap: the shared noise is 10 times the difference")
	}
	if d := p.Diff.Mean; math.Abs(d+10) > 1 {
		t.Errorf("mean difference %.2f, want about -10", d)
	}
}

// With no real difference the paired interval covers zero about 95% of the
// time, and Distinct says so.
func TestPairedFalsePositiveRate(t *testing.T) {
	src := rng.New(11)
	distinct := 0
	const trials = 1000
	for range trials {
		var a, b []float64
		for range 8 {
			luck := 50 * src.Norm()
			a = append(a, luck+src.Norm())
			b = append(b, luck+src.Norm())
		}
		if Compare(a, b, Level).Distinct() {
			distinct++
		}
	}
	if share := float64(distinct) / trials; share < 0.03 || share > 0.07 {
		t.Errorf("no difference, yet called distinct in %.1f%% of trials (want about 5%%)", 100*share)
	}
}

func TestDisjoint(t *testing.T) {
	a := Interval{N: 5, Lo: 1, Hi: 2}
	b := Interval{N: 5, Lo: 2.5, Hi: 3}
	c := Interval{N: 5, Lo: 1.5, Hi: 2.6}
	if !a.Disjoint(b) || !b.Disjoint(a) || a.Disjoint(c) || c.Disjoint(b) {
		t.Error("disjointness is wrong")
	}
	if (Interval{N: 1, Lo: 9, Hi: 9}).Disjoint(a) {
		t.Error("a one-value interval is disjoint from nothing")
	}
}

// The quantile against gonum's (an inverse of the regularized incomplete
// beta function, a method of its own), over the degrees of freedom a
// report meets (seeds - 1) and the tails, to 1e-9 relative.
func TestTQuantileAgainstGonum(t *testing.T) {
	dfs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 15, 19, 20, 29, 30, 31, 49, 50, 99, 100, 199, 500, 999, 1000, 5000, 100000}
	ps := []float64{0.0005, 0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.75, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9995}
	for _, df := range dfs {
		for _, p := range ps {
			want := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(p)
			got := TQuantile(p, df)
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("TQuantile(%g, %d) = %.15g, gonum %.15g (diff %.3g)", p, df, got, want, got-want)
			}
		}
	}
	for _, c := range []struct {
		p  float64
		df int
	}{{1.5, 3}, {-0.1, 3}, {0.5, 0}, {math.NaN(), 4}} {
		if got := TQuantile(c.p, c.df); !math.IsNaN(got) {
			t.Errorf("TQuantile(%g, %d) = %g, want NaN", c.p, c.df, got)
		}
	}
	if TQuantile(1, 3) != math.Inf(1) || TQuantile(0, 3) != math.Inf(-1) {
		t.Error("the quantiles of 0 and 1 are -Inf and +Inf")
	}
}
