package balance

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// argmin's pick is the r-th eligible member of least cost (r drawn from its
// random bits), whether it keeps the costs of its first pass (up to
// argminKept members) or asks the View again in its second (more); a kept
// pass asks each member's eligibility once per pick.
func TestArgminKeptAndAskedAgree(t *testing.T) {
	for _, n := range []int{1, 9, argminKept, argminKept + 1, 150} {
		for round := uint64(0); round < 200; round++ {
			v := newView(n, load.Local)
			for j := 0; j < n; j++ {
				v.down[j] = rng.Bounded(rng.Hash(round, uint64(j), 1), 4) == 0
				for range rng.Bounded(rng.Hash(round, uint64(j), 2), 3) { // few levels: many ties
					v.tb.Sent(0, j)
				}
				v.tb.Done(ms(1), j, time.Duration(1+rng.Bounded(rng.Hash(round, uint64(j), 3), 2))*time.Millisecond)
			}
			u := rng.Hash(round, 99, 4)
			// The reference: every eligible member's cost, the ties at the
			// least, the r-th of them.
			var tied []int
			best := 0.0
			for j := 0; j < n; j++ {
				if v.down[j] {
					continue
				}
				c := latencyLoadCost(ms(2), &v.tb.Stats[j])
				switch {
				case len(tied) == 0 || c < best:
					best, tied = c, []int{j}
				case c == best:
					tied = append(tied, j)
				}
			}
			want := -1
			if len(tied) > 0 {
				want = tied[rng.Bounded(u, len(tied))]
			}
			v.oks = 0
			if got := argmin(ms(2), v, latencyLoadCost, u); got != want {
				t.Fatalf("n=%d round %d: argmin %d, want %d (ties %v)", n, round, got, want, tied)
			}
			if n <= argminKept && v.oks != n {
				t.Fatalf("n=%d: %d eligibility calls for one pick, want one per member", n, v.oks)
			}
		}
	}
}
