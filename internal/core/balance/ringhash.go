package balance

import (
	"cmp"
	"slices"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// ringHash is consistent hashing with virtual nodes (Karger et al., STOC
// 1997, "Consistent hashing and random trees"). Each server puts VNodes
// points on a 64-bit ring at rng.Hash(StringHash(Name), v, c), v < VNodes; a
// key is hashed onto the ring and owned by the first point clockwise (at or
// after it, wrapping). A pick walks on clockwise past points of ineligible
// members.
//
// Invariant: the points depend on the server names only, not on the member
// order, the seed or other servers, so adding a server moves only the keys
// its own points capture, about 1/N of them, and every balancer agrees on
// the owners. With 100 points per server the shares are within ~±10% of 1/N.
// The worst-case pick (almost all members ineligible) walks the whole ring.
//
// Not safe for concurrent use; the driver serializes calls.
type ringHash struct {
	vnodes int
	ring   []ringPoint
}

// ringPoint is one virtual node: its place on the ring and its server index.
type ringPoint struct {
	hash   uint64
	server int
}

func newRingHash(c Config) Algorithm { return &ringHash{vnodes: c.VNodes} }

func (r *ringHash) Name() string { return "ring-hash" }

func (r *ringHash) Update(servers []Server) { r.ring = buildRing(servers, r.vnodes) }

func (r *ringHash) Owner(key uint64) int { return ringOwner(r.ring, key) }

func (r *ringHash) Pick(_ clock.Instant, req Request, v View) int {
	if len(r.ring) == 0 {
		return -1
	}
	n, start := v.Len(), ringSearch(r.ring, keyHash(req.Key))
	for step := range r.ring {
		j := r.ring[(start+step)%len(r.ring)].server
		if j < n && v.Ok(j) {
			return j
		}
	}
	return -1
}

// buildRing returns the sorted points of all servers (ties by index, so the
// ring is the same however often it is rebuilt).
func buildRing(servers []Server, vnodes int) []ringPoint {
	ring := make([]ringPoint, 0, len(servers)*vnodes)
	for j, s := range servers {
		base := rng.StringHash(s.Name)
		for v := 0; v < vnodes; v++ {
			ring = append(ring, ringPoint{hash: rng.Hash(base, uint64(v), saltVNode), server: j})
		}
	}
	slices.SortFunc(ring, func(a, b ringPoint) int {
		return cmp.Or(cmp.Compare(a.hash, b.hash), cmp.Compare(a.server, b.server))
	})
	return ring
}

// keyHash spreads an affinity key over 64 bits (keys may be small integers).
func keyHash(key uint64) uint64 { return rng.Hash(key, 0, saltKey) }

// ringSearch returns the index of the first point with hash >= h, or 0 (the
// wrap) when h is past the last point. The ring must not be empty.
func ringSearch(ring []ringPoint, h uint64) int {
	lo, hi := 0, len(ring)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ring[mid].hash < h {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(ring) {
		return 0
	}
	return lo
}

func ringOwner(ring []ringPoint, key uint64) int {
	if len(ring) == 0 {
		return -1
	}
	return ring[ringSearch(ring, keyHash(key))].server
}
