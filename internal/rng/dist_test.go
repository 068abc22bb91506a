package rng

import (
	"math"
	"strings"
	"testing"
	"time"
)

const ms = time.Millisecond

// moments returns the sample mean and coefficient of variation of n draws.
func moments(d Dist, src *Source, n int) (mean, cv float64) {
	sum, sum2 := 0.0, 0.0
	for range n {
		x := float64(d.Sample(src))
		sum += x
		sum2 += x * x
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(sum2/float64(n)-mean*mean) / mean
}

func TestDistMeans(t *testing.T) {
	mix, err := NewMixture([]time.Duration{4 * ms, 10 * ms, 25 * ms, 100 * ms}, []float64{70, 25, 4.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		d      Dist
		tol    float64
		wantCV float64 // -1: not checked
	}{
		{Constant{Value: 7 * ms}, 0, 0},
		{Exponential{Avg: 10 * ms}, 0.01, 1},
		{NewLognormal(60*ms, 1), 0.01, 1},
		{NewLognormal(20*ms, 0.5), 0.01, 0.5},
		{NewLognormal(20*ms, 0), 0, 0},
		{mix, 0.02, -1},
	} {
		const n = 200_000
		mean, cv := moments(tc.d, Split(1, tc.d.String()), n)
		want := float64(tc.d.Mean())
		if math.Abs(mean-want) > tc.tol*want+1 {
			t.Errorf("%v: sample mean %v, Mean() %v (tolerance %g%%)", tc.d, time.Duration(mean), tc.d.Mean(), tc.tol*100)
		}
		if tc.wantCV >= 0 && math.Abs(cv-tc.wantCV) > 0.03*tc.wantCV+1e-6 {
			t.Errorf("%v: sample CV %.4f, want %g ± 3%%", tc.d, cv, tc.wantCV)
		}
	}
}

func TestMixtureMean(t *testing.T) {
	m, err := NewMixture([]time.Duration{4 * ms, 10 * ms, 25 * ms, 100 * ms}, []float64{0.7, 0.25, 0.045, 0.005})
	if err != nil {
		t.Fatal(err)
	}
	// 0.7×4 + 0.25×10 + 0.045×25 + 0.005×100 = 6.925 ms
	if got := m.Mean(); math.Abs(float64(got-6925*time.Microsecond)) > 1 {
		t.Fatalf("Mean = %v, want 6.925ms", got)
	}
}

func TestMixtureProbabilities(t *testing.T) {
	values := []time.Duration{4 * ms, 10 * ms, 25 * ms, 100 * ms}
	probs := []float64{70, 25, 4.5, 0.5} // normalised by NewMixture
	m, err := NewMixture(values, probs)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[time.Duration]int{}
	src := New(8)
	const n = 200_000
	for range n {
		counts[m.Sample(src)]++
	}
	for i, v := range values {
		want := probs[i] / 100
		got := float64(counts[v]) / n
		// within 4 standard errors of the binomial share
		if se := math.Sqrt(want * (1 - want) / n); math.Abs(got-want) > 4*se {
			t.Errorf("value %v: share %.5f, want %.5f", v, got, want)
		}
	}
	if len(counts) != len(values) {
		t.Errorf("drew values outside the mixture: %v", counts)
	}
	values[0] = time.Hour // NewMixture copied the values
	if m.Values[0] != 4*ms {
		t.Error("mixture aliases the caller's slice")
	}
}

func TestMixtureErrors(t *testing.T) {
	for _, tc := range []struct {
		values []time.Duration
		probs  []float64
		want   string
	}{
		{nil, nil, "as many"},
		{[]time.Duration{ms}, nil, "as many"},
		{[]time.Duration{ms, 2 * ms}, []float64{1}, "as many"},
		{[]time.Duration{ms, 2 * ms}, []float64{1, 0}, "probability 2"},
		{[]time.Duration{ms, 2 * ms}, []float64{-1, 1}, "probability 1"},
		{[]time.Duration{ms}, []float64{math.NaN()}, "probability 1"},
		{[]time.Duration{ms, 2 * ms}, []float64{1, math.Inf(1)}, "probability 2"}, // Inf/Inf would be NaN
	} {
		if _, err := NewMixture(tc.values, tc.probs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewMixture(%v, %v) error %v, want one mentioning %q", tc.values, tc.probs, err, tc.want)
		}
	}
}

func TestDistStrings(t *testing.T) {
	for _, d := range []Dist{Constant{Value: ms}, Exponential{Avg: ms}, NewLognormal(ms, 2)} {
		if d.String() == "" {
			t.Errorf("%T has an empty String", d)
		}
	}
}
