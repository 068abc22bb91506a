package backend

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
)

// State is GET /admin/state: the core's snapshot plus the settings in force.
type State struct {
	Name             string   `json:"name"`
	Addr             string   `json:"addr"`  // data listener
	Admin            string   `json:"admin"` // admin listener
	Up               bool     `json:"up"`
	Listening        bool     `json:"listening"` // the data listener is open (false after a kill)
	Paused           bool     `json:"paused"`    // in a GC pause
	Fail             bool     `json:"fail"`
	Speed            float64  `json:"speed"`
	ConfiguredSpeed  float64  `json:"configured_speed"` // what restore goes back to
	Errors           float64  `json:"errors"`           // share of fast 500s
	ConfiguredErrors float64  `json:"configured_errors"`
	Workers          int      `json:"workers"`
	Busy             int      `json:"busy"`
	Queued           int      `json:"queued"`
	QueuedKinds      []string `json:"queued_kinds"` // oldest first
	// QueuedAbandoned marks, in QueuedKinds' order, the queued attempts
	// whose client no longer waits for them (it gave up, or another
	// attempt answered). A backend cannot know; the simulator (lab watch)
	// can, and only it sets this.
	QueuedAbandoned []bool       `json:"queued_abandoned,omitempty"`
	Queue           QueueState   `json:"queue"`
	MaxOutstanding  int          `json:"max_outstanding"`  // 0 = no limit
	QueueTimeoutMs  float64      `json:"queue_timeout_ms"` // 0 = none
	Limiter         LimiterState `json:"limiter"`
	HopMs           float64      `json:"hop_ms"`
	JitterMs        float64      `json:"jitter_ms"`
	CancelOnClose   bool         `json:"cancel_on_close"`
	Counters        Counters     `json:"counters"`
	// Connections accepted on the data listener since start (TCP, before
	// any TLS handshake): what the clients or balancers opened to it.
	AcceptedConnections uint64 `json:"accepted_connections"`
	AtUnixNs            int64  `json:"at_unix_ns"`
}

// QueueState is the queue's capacity (0 = unbounded) and discipline.
type QueueState struct {
	Capacity    int    `json:"capacity"`
	Discipline  string `json:"discipline"` // fifo | lifo
	DropExpired bool   `json:"drop_expired"`
}

// LimiterState is the concurrency limiter: its kind and bounds as set, and
// the limit it has reached (0 when there is none).
type LimiterState struct {
	Kind    string `json:"kind"` // none | aimd | gradient2
	Initial int    `json:"initial,omitempty"`
	Min     int    `json:"min,omitempty"`
	Max     int    `json:"max,omitempty"`
	Limit   int    `json:"limit"`
}

// Counters are totals since the process started.
type Counters struct {
	Arrived      uint64 `json:"arrived"`
	Completed    uint64 `json:"completed"`
	Errors       uint64 `json:"errors"`
	Rejected     uint64 `json:"rejected"`
	Dropped      uint64 `json:"dropped"`
	Lost         uint64 `json:"lost"`
	CacheHits    uint64 `json:"cache_hits"`
	CacheLookups uint64 `json:"cache_lookups"`
	MaxQueue     int    `json:"max_queue"`
	Faults       uint64 `json:"faults"` // answered with the status a request's fault asked for
}

// Load is GET /load, the report balancers poll for shared load.
type Load struct {
	Up        bool  `json:"up"`
	Queued    int   `json:"queued"`
	InService int   `json:"in_service"`
	AtUnixNs  int64 `json:"at_unix_ns"`
}

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
		Counters: Counters{
			Arrived: s.Arrived, Completed: s.Completed, Errors: s.Errors, Rejected: s.Rejected,
			Dropped: s.Dropped, Lost: s.Lost, CacheHits: s.CacheHits, CacheLookups: s.CacheLookups,
			MaxQueue: s.MaxQueue, Faults: s.Faults,
		},
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
		l.Queued, l.InService = b.core.Load()
		l.Up, l.AtUnixNs = b.addrs.open, b.unixNano(now)
		return out
	})
	return l
}
