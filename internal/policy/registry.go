package policy

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/limit"
)

// Algorithms lists the balancing algorithms by name, in the order of MODEL §3.
func Algorithms() []string { return append([]string(nil), balance.Names...) }

// DescribeAlgorithm returns a one-line description of an algorithm.
func DescribeAlgorithm(name string) string { return balance.Describe(name) }

// Feature is a balancer setting that works with the algorithms rather than
// being one.
type Feature struct{ Setting, About string }

// Features lists them, for `lab algorithms`.
func Features() []Feature {
	return []Feature{
		{"balancers.slow_start", "a server that joins or comes back ramps from a floor to its full weight (Envoy slow_start_config); weighted and load-aware algorithms"},
		{"balancers.outlier", "ejects a server after failures in a row or when its success rate or latency is an outlier among its peers (Envoy outlier detection)"},
		{"balancers.aperture, clients.aperture", "each balancer draws from its own window of a shared ring of servers (Finagle deterministic aperture); " + strings.Join(balance.ApertureAlgorithms, ", ")},
	}
}

// LimitSpec is what it takes to build a concurrency limiter.
type LimitSpec struct {
	Kind              string // aimd | gradient2
	Initial, Min, Max int
	MeanService       time.Duration // AIMD treats a response slower than 5x this as a drop
}

// limiters is the explicit registry of concurrency-limit constructors.
var limiters = map[string]func(LimitSpec) (limit.Limit, error){
	"aimd": func(s LimitSpec) (limit.Limit, error) {
		return limit.NewAIMD(limit.AIMDConfig{Initial: s.Initial, Min: s.Min, Max: s.Max,
			Backoff: 0.9, SlowRTT: 5 * s.MeanService})
	},
	"gradient2": func(s LimitSpec) (limit.Limit, error) {
		return limit.NewGradient2(limit.Gradient2Config{Initial: s.Initial, Min: s.Min, Max: s.Max,
			Smoothing: 0.2, ShortWindow: 10, Tolerance: 1.5})
	},
}

// Limiters lists the limiter kinds.
func Limiters() []string {
	names := make([]string, 0, len(limiters))
	for n := range limiters {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// NewLimit builds the limiter of spec.Kind; an empty kind means none (nil, nil).
func NewLimit(spec LimitSpec) (limit.Limit, error) {
	if spec.Kind == "" {
		return nil, nil
	}
	mk, ok := limiters[spec.Kind]
	if !ok {
		return nil, fmt.Errorf("limiter %q: unknown, allowed: %s", spec.Kind, strings.Join(Limiters(), ", "))
	}
	return mk(spec)
}
