package policy

import "github.com/lblab/lblab/internal/core/balance"

// Where an idle server announces itself (join-the-idle-queue,
// balance.Idler), on both clocks: the lab's balancers.jiq samples among the
// balancers the announcement may reach. In a lab with zones and a locality
// layer those are the tier's balancers of the server's own zone (when it
// has any; all of them otherwise), so an idle server joins the idle
// queues of the balancers that pick in its zone first, and an
// announcement does not cross a zone that the layer keeps picks out of.
// Without a layer, or without zones, every balancer may get it, as before
// zones existed.

// AnnounceTo appends to dst the balancers (tier indices, of n) that the
// announcement numbered number, from a server in zone, samples: one, or
// join shortest's d of them. local says a locality layer is on. z may be
// nil (no zones).
func AnnounceTo(join balance.JIQ, seed, number uint64, n int, z *Zones, zone int32, local bool, dst []int) []int {
	var reach []int32
	if z != nil && local && int(zone) < len(z.local) {
		reach = z.local[zone] // ascending: drop any past the tier's n
		for len(reach) > 0 && int(reach[len(reach)-1]) >= n {
			reach = reach[:len(reach)-1]
		}
	}
	if len(reach) == 0 {
		return join.Sample(seed, number, n, dst)
	}
	start := len(dst)
	dst = join.Sample(seed, number, len(reach), dst)
	for i := start; i < len(dst); i++ {
		dst[i] = int(reach[dst[i]])
	}
	return dst
}
