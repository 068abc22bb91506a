package rng

import (
	"fmt"
	"math"
	"time"
)

// Dist is a service-time (work) distribution. Sample draws one value from s.
type Dist interface {
	Sample(s *Source) time.Duration
	Mean() time.Duration
	String() string
}

// Constant always returns its value.
type Constant struct{ Value time.Duration }

func (c Constant) Sample(*Source) time.Duration { return c.Value }
func (c Constant) Mean() time.Duration          { return c.Value }
func (c Constant) String() string               { return "constant " + c.Value.String() }

// Exponential has the given mean (coefficient of variation 1).
type Exponential struct{ Avg time.Duration }

func (e Exponential) Sample(s *Source) time.Duration {
	return time.Duration(s.Exp() * float64(e.Avg))
}
func (e Exponential) Mean() time.Duration { return e.Avg }
func (e Exponential) String() string      { return "exponential mean " + e.Avg.String() }

// Lognormal has the given mean and coefficient of variation (stddev/mean):
// sigma² = ln(1 + cv²), mu = ln(mean) - sigma²/2.
type Lognormal struct {
	Avg       time.Duration
	CV        float64
	mu, sigma float64
}

// NewLognormal returns a lognormal with mean avg and coefficient of variation cv.
func NewLognormal(avg time.Duration, cv float64) Lognormal {
	s2 := math.Log(1 + cv*cv)
	return Lognormal{Avg: avg, CV: cv, mu: math.Log(float64(avg)) - s2/2, sigma: math.Sqrt(s2)}
}

func (l Lognormal) Sample(s *Source) time.Duration {
	return time.Duration(math.Exp(l.mu + l.sigma*s.Norm()))
}
func (l Lognormal) Mean() time.Duration { return l.Avg }
func (l Lognormal) String() string {
	return fmt.Sprintf("lognormal mean %v cv %g", l.Avg, l.CV)
}

// Mixture is a discrete mixture of constant values with probabilities
// (e.g. 70% 4 ms, 25% 10 ms, 4.5% 25 ms, 0.5% 100 ms).
type Mixture struct {
	Values []time.Duration
	cum    []float64 // cumulative probabilities, last = 1
}

// NewMixture returns the mixture; probs must be positive and finite, and are
// normalised.
func NewMixture(values []time.Duration, probs []float64) (Mixture, error) {
	if len(values) == 0 || len(values) != len(probs) {
		return Mixture{}, fmt.Errorf("mixture needs as many probabilities as values (got %d and %d)", len(probs), len(values))
	}
	total := 0.0
	for i, p := range probs {
		if !(p > 0) || math.IsInf(p, 1) {
			return Mixture{}, fmt.Errorf("mixture probability %d is %g, must be > 0 and finite", i+1, p)
		}
		total += p
	}
	m := Mixture{Values: append([]time.Duration(nil), values...), cum: make([]float64, len(probs))}
	acc := 0.0
	for i, p := range probs {
		acc += p / total
		m.cum[i] = acc
	}
	m.cum[len(m.cum)-1] = 1
	return m, nil
}

func (m Mixture) Sample(s *Source) time.Duration {
	u := s.Float64()
	for i, c := range m.cum {
		if u < c {
			return m.Values[i]
		}
	}
	return m.Values[len(m.Values)-1]
}

func (m Mixture) Mean() time.Duration {
	mean, prev := 0.0, 0.0
	for i, c := range m.cum {
		mean += (c - prev) * float64(m.Values[i])
		prev = c
	}
	return time.Duration(mean)
}

func (m Mixture) String() string { return fmt.Sprintf("mixture of %d values", len(m.Values)) }
