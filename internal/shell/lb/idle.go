package lb

import (
	"fmt"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Join-the-idle-queue, live (balance.Idler: jiq): the backends announce
// themselves idle to the lb's admin API (POST /admin/idle, from
// internal/shell/backend's idle.go, after the hop), and the lb hands each
// announcement to the pipeline under its lock (policy.Balancer.Idle), as
// the simulator's announcement events do; a backend that joins the
// shortest of several idle queues asks for its length first (GET
// /admin/idle-queue). Nothing is asked on a request's path.

// idleCount is what the lb counts of the announcements.
type idleCount struct {
	received atomic.Uint64
}

// postIdle takes a backend's announcement that it is idle: {"server":
// NAME}. An unknown name is a 400; an announcement to an algorithm
// without an idle queue is taken and dropped (the backend announces
// whatever the lb's algorithm is now).
func (l *LB) postIdle(ctx *fasthttp.RequestCtx) {
	var in wire.IdleAnnouncement
	if !wire.DecodeJSON(ctx, &in) {
		return
	}
	l.mu.Lock()
	i, ok := l.byName[in.Server]
	if ok {
		l.bal.Idle(l.nowLocked(), i)
	}
	l.mu.Unlock()
	if !ok {
		wire.Invalid(ctx, "server", fmt.Sprintf("server: no backend %q in this balancer", in.Server))
		return
	}
	l.idle.received.Add(1)
	wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]string{"server": in.Server})
}

// getIdleQueue answers the idle queue: its length and the backends in it,
// head first.
func (l *LB) getIdleQueue(ctx *fasthttp.RequestCtx) {
	l.mu.Lock()
	q := l.idleQueueLocked()
	l.mu.Unlock()
	wire.WriteJSON(ctx, fasthttp.StatusOK, state.IdleQueue{Length: len(q), Queue: q})
}

// idleQueueLocked is the idle queue's backends, head first. Caller holds
// mu.
func (l *LB) idleQueueLocked() []string {
	l.idleBuf = l.bal.IdleQueue(l.idleBuf[:0])
	q := make([]string, 0, len(l.idleBuf))
	for _, i := range l.idleBuf {
		q = append(q, l.backends[i].Name)
	}
	return q
}

// idleState is the state's "idle" when the algorithm keeps an idle queue
// or announcements came. Caller holds mu.
func (l *LB) idleState() *state.LBIdle {
	received := l.idle.received.Load()
	if !l.bal.Idling() && received == 0 {
		return nil
	}
	return &state.LBIdle{Received: received, FromQueue: l.bal.IdlePicks(), Queue: l.idleQueueLocked()}
}
