package policy

import "github.com/lblab/lblab/internal/clock"

// PickServer is a pick of server i chosen beforehand (a sticky client's
// server, docs/model.md "Connections"): the algorithm is skipped, not the
// rest of the pipeline. The ticket is invalid when i is not eligible at now
// (removed, out of this balancer's subset, unhealthy, ejected, breaker not
// ready) or its breaker does not admit the attempt; the caller then picks
// afresh.
func (b *Balancer) PickServer(now clock.Instant, i int) Ticket {
	b.advance(now)
	if i < 0 || i >= len(b.servers) || !b.present[i] || !b.subset[i] || !b.ok(now, i, -1) {
		return Ticket{}
	}
	return b.admit(now, i)
}
