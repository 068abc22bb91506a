package balance

import "github.com/lblab/lblab/internal/clock"

// random picks uniformly among the eligible members: P(j) = 1/m for each of
// the m eligible members, from one draw rng.Hash(Seed, req.Seq, Salt^c),
// redrawn a bounded number of times while it lands on an ineligible member
// and then resolved by a scan, so the expected cost is O(1) while most members
// are eligible. It ignores load, so stale counts cannot make it herd.
//
// Not safe for concurrent use; the driver serializes calls.
type random struct{ seed, salt uint64 }

func newRandom(c Config) Algorithm { return &random{seed: c.Seed, salt: c.Salt} }

func (r *random) Name() string { return "random" }

func (r *random) Update([]Server) {}

func (r *random) Pick(_ clock.Instant, req Request, v View) int {
	var out [1]int
	if drawDistinct(v, r.seed, req.Seq, r.salt, out[:]) == 0 {
		return -1
	}
	return out[0]
}
