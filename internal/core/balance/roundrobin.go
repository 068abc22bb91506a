package balance

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// roundRobin hands requests to the members in index order, skipping the
// ineligible ones: after picking j it starts the next scan at j+1 (mod n).
// Invariant: with all members eligible, any n consecutive picks hit each
// member exactly once. The starting point after each Update is drawn from
// (Seed, Salt), as gRPC's round_robin randomises it, so several balancers do
// not all start on the first server together.
//
// Not safe for concurrent use; the driver serializes calls.
type roundRobin struct {
	seed, salt uint64
	next       int
}

func newRoundRobin(c Config) Algorithm { return &roundRobin{seed: c.Seed, salt: c.Salt} }

func (r *roundRobin) Name() string { return "round-robin" }

func (r *roundRobin) Update(servers []Server) {
	r.next = 0
	if n := len(servers); n > 0 {
		r.next = rng.Bounded(rng.Hash(r.seed, 0, r.salt^saltStart), n)
	}
}

func (r *roundRobin) Pick(_ clock.Instant, _ Request, v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	start := r.next % n
	for i := 0; i < n; i++ {
		j := start + i
		if j >= n {
			j -= n
		}
		if v.Ok(j) {
			r.next = j + 1
			return j
		}
	}
	return -1
}
