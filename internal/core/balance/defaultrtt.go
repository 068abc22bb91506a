package balance

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// withDefaultRTT is Config.DefaultRTT: a latency cost (p2c-latency-load,
// p2c-peak-ewma) that scores a member no answer has come back from yet as
// if its latency were rtt, rtt × (Outstanding + 1), where Finagle's rule
// (latencyTimesLoad) makes it cost 0 while idle and a huge penalty while
// busy. A high estimate keeps traffic off a new server until the others
// cost more than it, which can be never: tower's peak-EWMA balancer had a
// fixed estimate of 1 s and sent nothing to a new endpoint until an
// existing one's estimate passed a second (tower-rs/tower pull request
// 134, which made the estimate a setting and decays it over time). lblab's
// does not decay: the member keeps it until its first answer.
func withDefaultRTT(cost costFunc, rtt time.Duration) costFunc {
	return func(now clock.Instant, s *load.Stat) float64 {
		if !s.Latency.Set() {
			return float64(rtt) * float64(s.Outstanding+1)
		}
		return cost(now, s)
	}
}
