package balance

import "github.com/lblab/lblab/internal/rng"

// drawWithReplacement fills out with eligible members, each drawn uniformly
// among all the eligible ones and independently of the others, so two
// choices can be the same member. It is Config.Replacement, the draw of
// Envoy's least-request balancer before 1.29 (envoyproxy/envoy issues 11004
// and 14859, fixed by pull request 29873): with 2 members both choices are
// the same one half of the time, so the busier member is picked a quarter
// of the time, where distinct draws (drawDistinct) never pick it. It
// returns how many it drew: len(out), or 0 when no member is eligible. An
// aperture's window (aperture.go) draws distinct choices instead.
//
// Choice d draws rng.Hash(seed, seq, salt^drawConst(d, t)) at try t, as
// drawDistinct does, with maxTries redraws on an ineligible member and then
// a scan; so with every member eligible its first choice is drawDistinct's.
func drawWithReplacement(v View, seed, seq, salt uint64, out []int) int {
	n := v.Len()
	of := rng.HashOf(seed, seq)
	for d := range out {
		j := drawOne(v, n, of, salt, d, nil)
		if j < 0 {
			return 0
		}
		out[d] = j
	}
	return len(out)
}
