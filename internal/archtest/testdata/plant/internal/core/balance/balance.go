// Package balance imports load over an allowed edge: no violation.
package balance

import "example.com/plant/internal/core/load"

// Pick returns the index of the least loaded server.
func Pick(s []load.Stat) int {
	best := 0
	for i := range s {
		if s[i].N < s[best].N {
			best = i
		}
	}
	return best
}
