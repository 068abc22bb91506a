package balance

import (
	"math"

	"github.com/lblab/lblab/internal/clock"
)

// ringHashBounded is consistent hashing with bounded loads (Mirrokni, Thorup,
// Zadimoghaddam, SODA 2018; used by HAProxy and Envoy). It uses the ring of
// ring-hash (same points, same key hash) and gives every eligible member the
// capacity
//
//	c = ceil((1 + Epsilon) × (T + 1) / m)
//
// where m is the number of eligible members and T their total Outstanding
// (the request being placed is the +1); ineligible members (breaker open,
// ejected, unhealthy) neither count in m nor take part of T, since the load
// has to be carried by the others. A pick walks clockwise from the key past
// members that are ineligible or have Outstanding >= c and takes the first
// one under it.
//
// Invariant: since c > T/m, some eligible member is under capacity, so the
// pick never puts a member over c: the bound holds whatever is ejected. Were
// no eligible member under it (a View whose answers change during the pick),
// the pick answers -1 (no server) rather than break the bound. A key stays on
// its owner while the owner has room and moves at most to the next members on
// the ring, so affinity degrades gracefully under load. Each pick is O(n) for
// T plus the walk.
//
// Not safe for concurrent use; the driver serializes calls.
type ringHashBounded struct {
	ringHash
	epsilon float64
}

func newRingHashBounded(c Config) Algorithm {
	return &ringHashBounded{ringHash: ringHash{vnodes: c.VNodes}, epsilon: c.Epsilon}
}

func (r *ringHashBounded) Name() string { return "ring-hash-bounded" }

func (r *ringHashBounded) Pick(_ clock.Instant, req Request, v View) int {
	n := v.Len()
	if len(r.ring) == 0 || n == 0 {
		return -1
	}
	limit, ok := r.capacity(v)
	if !ok {
		return -1
	}
	start := ringSearch(r.ring, keyHash(req.Key))
	for step := range r.ring {
		j := r.ring[(start+step)%len(r.ring)].server
		if j < n && v.Ok(j) && stat(v, j).Outstanding < limit {
			return j
		}
	}
	return -1
}

// capacity returns ceil((1+eps)(T+1)/m) over the m eligible members of v,
// and false when none is eligible.
func (r *ringHashBounded) capacity(v View) (int, bool) {
	m, total := 0, 0
	for j := 0; j < v.Len(); j++ {
		if v.Ok(j) {
			m++
			total += max(stat(v, j).Outstanding, 0)
		}
	}
	if m == 0 {
		return 0, false
	}
	c := math.Ceil((1 + r.epsilon) * float64(total+1) / float64(m))
	if c > math.MaxInt32 {
		return math.MaxInt32, true
	}
	return int(c), true
}
