package client

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
)

// Sticky picks (clients.sticky N, clients that balance themselves): an
// owner — the closed-loop user, else the client id — sends N requests in a
// row to the server it picked, as clients that keep a warm connection do.
// A run of N starts with a pick; each first attempt or retry of the owner
// then takes the stuck server while the run has picks left and the server
// is still eligible in the request's balancer; a failure (an error, a
// rejection or a timeout from the stuck server) ends the run, so the next
// attempt, often the retry, picks afresh. Hedges pick as always (another
// server) and leave the run alone.
//
// Sticking for good (a large N) is balancing per connection instead of per
// request, as an HTTP/2 or gRPC client does on its long-lived connection: a
// server added later gets nothing from the owners already stuck (reported
// in https://github.com/elixir-grpc/grpc/issues/355 and
// https://github.com/grpc/grpc/issues/12295). With StickyAge (clients.
// sticky_age) a run also ends once it is that old, give or take 10%, as a
// gRPC server's MAX_CONNECTION_AGE closes its connections and makes the
// clients pick again: the age of each run is StickyAge × (0.9 + 0.2u), u
// drawn from (seed, owner, the run's start), so runs that started together
// do not all end together.

// stick is one owner's run: the server it sticks to, the picks left and the
// instant it ends at (clock.Never without a StickyAge).
type stick struct {
	server int32
	left   int32
	until  clock.Instant
}

// saltAge draws a run's share of StickyAge.
const saltAge = 0x5a9e_0000_0000_0001

func (rt *Runtime[N]) stickOf(owner int32) *stick {
	if int(owner) >= len(rt.sticks) {
		rt.sticks = append(rt.sticks, make([]stick, int(owner)+1-len(rt.sticks))...)
	}
	return &rt.sticks[owner]
}

// stickyPick is owner's pick from b: its stuck server, or a fresh pick that
// starts a new run.
func (rt *Runtime[N]) stickyPick(now clock.Instant, b *policy.Balancer, req balance.Request, owner int32, exclude int) policy.Ticket {
	s := rt.stickOf(owner)
	if s.left > 0 && now < s.until && int(s.server) != exclude {
		if t := b.PickServer(now, int(s.server)); t.Valid {
			s.left--
			return t
		}
	}
	t := b.Pick(now, req, exclude)
	s.server, s.left, s.until = int32(t.Server), int32(rt.cfg.Sticky-1), clock.Never
	if age := rt.cfg.StickyAge; age > 0 {
		u := rng.HashFloat(rt.policy.Cfg.Seed, uint64(owner), saltAge^uint64(now))
		s.until = now.Add(time.Duration(float64(age) * (0.9 + 0.2*u)))
	}
	if !t.Valid {
		s.left = 0
	}
	return t
}

// unstick ends a's owner's run when a failed on the stuck server.
func (rt *Runtime[N]) unstick(a *Attempt[N], res policy.Result) {
	if rt.sticks == nil || a == nil || !a.Ticket.Valid || res == policy.OK || res == policy.Cancelled {
		return
	}
	if s := rt.stickOf(a.Owner); s.server == int32(a.Ticket.Server) {
		s.left = 0
	}
}
