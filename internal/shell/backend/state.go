package backend

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/shell/state"
)

// State is state.Backend.
type State = state.Backend

// QueueState is state.Queue.
type QueueState = state.Queue

// LimiterState is state.Limiter.
type LimiterState = state.Limiter

// Counters is state.Counters.
type Counters = state.Counters

// Load is state.Load.
type Load = state.Load

// State returns the backend's state now.
func (b *Backend) State() State {
	var st State
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		st = b.stateLocked(now)
		return out
	})
	return st
}

func (b *Backend) stateLocked(now clock.Instant) State {
	s := b.core.Snapshot(now)
	st := State{
		Name: s.Name, Addr: b.addrs.data, Admin: b.addrs.admin, Up: s.Up, Listening: b.addrs.open,
		Paused: s.Paused, Fail: s.Failing, Speed: s.Speed, ConfiguredSpeed: b.spec.Speed,
		Errors: s.ErrorShare, ConfiguredErrors: b.spec.Errors, Workers: s.Workers, Busy: s.Busy,
		Queued: s.Queued, Queue: b.queueState(), MaxOutstanding: b.spec.MaxOutstanding,
		QueueTimeoutMs: msFloat(b.spec.QueueTimeout), Limiter: b.limiterState(s.Limit),
		HopMs: msFloat(b.cfg.Hop), JitterMs: msFloat(b.cfg.Jitter), CancelOnClose: b.cfg.CancelOnClose,
		Counters:            state.CountersOf(s),
		Idle:                b.idleState(),
		AtUnixNs:            b.unixNano(now),
		AcceptedConnections: b.accepted.Load(),
	}
	b.kinds = b.core.QueuedKinds(b.kinds)
	st.QueuedKinds = make([]string, len(b.kinds))
	for i, k := range b.kinds {
		st.QueuedKinds[i] = k.String()
	}
	return st
}

func (b *Backend) queueState() QueueState {
	q := QueueState{Capacity: b.queue.capacity, Discipline: "fifo", DropExpired: b.queue.dropExpired}
	if b.queue.lifo {
		q.Discipline = "lifo"
	}
	return q
}

func (b *Backend) limiterState(current int) LimiterState {
	l := b.limiter
	if l.Kind == "" {
		return LimiterState{Kind: "none"}
	}
	return LimiterState{Kind: l.Kind, Initial: l.Initial, Min: l.Min, Max: l.Max, Limit: current}
}

// load returns the load report now.
func (b *Backend) load() Load {
	var l Load
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		out = b.core.Advance(now, out) // the load as of now, not as of the last event
		l.Report = b.core.Report(now)
		l.Up, l.AtUnixNs = b.addrs.open, b.unixNano(now)
		return out
	})
	return l
}
