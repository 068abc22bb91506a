package policy

import (
	"strings"

	"github.com/lblab/lblab/internal/core/balance"
)

// Algorithms lists the balancing algorithms by name (balance.Names, the one
// list; this is a copy the caller may keep).
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
