package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// newP2CPeakEWMA is p2c (see p2c.go) with Finagle's peak EWMA cost
// (finagle-core PeakEwma, also tower's PeakEwma):
//
//	Peak.At(now) × (Outstanding + 1)
//
// where the peak average jumps to any sample above it at once and otherwise
// decays with time constant tau, and At decays it up to now as if no sample
// were pending, so a server that was slow once is retried after a while.
// As in Finagle, a member whose average is 0 costs 0 while idle and
// unsampledPenalty + Outstanding while it has requests outstanding.
func newP2CPeakEWMA(c Config) Algorithm {
	return newP2CWith(c, "p2c-peak-ewma", peakLoadCost)
}

func peakLoadCost(now clock.Instant, s *load.Stat) float64 {
	return latencyTimesLoad(s.Peak.At(now), s.Outstanding)
}
