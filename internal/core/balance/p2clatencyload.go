package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// newP2CLatencyLoad is p2c (see p2c.go) with cost
//
//	latency × (Outstanding + 1)
//
// where latency is the time-decayed EWMA response time in ns: an estimate of
// how long a new request would wait behind the ones already sent, in the
// spirit of Finagle's and Linkerd's latency-aware balancers. As in Finagle, a
// member with no latency estimate costs 0 while idle (so it gets tried) but
// unsampledPenalty + Outstanding while it has requests outstanding, so the
// balancer does not pile onto a member it knows nothing about.
func newP2CLatencyLoad(c Config) Algorithm {
	return newP2CWith(c, "p2c-latency-load", latencyLoadCost)
}

// unsampledPenalty (ns, ~11.6 days) ranks a busy member with no latency
// estimate behind any measured one; it is small enough that adding an
// outstanding count to it stays exact in a float64.
const unsampledPenalty = 1e15

func latencyLoadCost(_ clock.Instant, s *load.Stat) float64 {
	return latencyTimesLoad(s.Latency.Value(), s.Outstanding)
}

func latencyTimesLoad(latency float64, outstanding int) float64 {
	if latency <= 0 && outstanding > 0 {
		return unsampledPenalty + float64(outstanding)
	}
	return latency * float64(outstanding+1)
}
