package balance

import (
	"math"

	"github.com/lblab/lblab/internal/clock"
)

// ringHashBounded is consistent hashing with bounded loads (Mirrokni, Thorup,
// Zadimoghaddam, SODA 2018; used by HAProxy and Envoy). It uses the ring of
// ring-hash (same points, same key hash) and gives every member the capacity
//
//	c = ceil((1 + Epsilon) × (T + 1) / n)
//
// where T is the total Outstanding over the n members (the request being
// placed is the +1). A pick walks clockwise from the key past members that
// are ineligible or have Outstanding >= c and takes the first one under it.
//
// Invariant: since c > T/n, some member is under capacity; if an eligible one
// is, the pick is under capacity. Only when every eligible member is full does
// it fall back to the first eligible member clockwise. A key stays on its
// owner while the owner has room, and moves at most to the next members on the
// ring, so affinity degrades gracefully under load. Each pick is O(n) for T
// plus the walk.
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
	limit := r.capacity(v)
	start, fallback := ringSearch(r.ring, keyHash(req.Key)), -1
	for step := range r.ring {
		j := r.ring[(start+step)%len(r.ring)].server
		if j >= n || !v.Ok(j) {
			continue
		}
		if stat(v, j).Outstanding < limit {
			return j
		}
		if fallback < 0 {
			fallback = j
		}
	}
	return fallback
}

// capacity returns ceil((1+eps)(T+1)/n) for the members of v (n > 0).
func (r *ringHashBounded) capacity(v View) int {
	n, total := v.Len(), 0
	for j := 0; j < n; j++ {
		total += max(stat(v, j).Outstanding, 0)
	}
	c := math.Ceil((1 + r.epsilon) * float64(total+1) / float64(n))
	if c > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(c)
}
