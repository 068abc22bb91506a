// Package server is the emulated backend: workers, a FIFO or LIFO queue
// (bounded or not, with drop-expired, max outstanding and a queue timeout),
// speed, GC pauses, fast errors, an LRU key cache and an optional adaptive
// concurrency limit (internal/core/limit). It follows docs/model.md §2.
//
// The server is a sans-I/O state machine. The driver (the simulator in
// virtual time, the live backend on the wall clock) hands in every instant:
// it offers jobs with Arrive, asks NextDeadline for the next instant anything
// happens, and calls Advance then. Replies are appended to caller-owned
// slices, so a steady state allocates nothing. Every method first does all
// that fell due at or before its instant, so a method called at now sees the
// server as of now; an instant earlier than one already seen is taken as that
// one. Setters that cannot return replies keep those they cause (or find
// due) for the next Arrive, Advance, Cancel or Kill, and NextDeadline reports
// them as due at once.
//
// A Server is not safe for concurrent use; the driver serializes calls.
package server

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// Server is one emulated backend. Invariants: busy workers <= Workers, but
// for the jobs in service when SetWorkers cut the count, which finish; the
// queue holds jobs only while busy >= Workers; with a bounded queue,
// queued <= QueueCap.
type Server struct {
	cfg     Config // run-time settings are changed in place by the setters
	src     *rng.Source
	errSalt uint64
	limGen  uint32 // bumped by SetLimit: samples go only to the limit that admitted the job
	up      bool

	wc      workClock
	last    clock.Instant // latest instant handed in
	seq     uint64
	svc     service
	q       deque
	cache   lru
	pending []Reply // replies caused by setters, delivered with the next reply-returning call
	meter   meter   // what the load report measures over its window (report.go)
	hist    history // the last requests served, for the probe answers' estimate (probe.go)

	arrived, completed, errors, rejected, dropped, lost, hits, lookups, faults, probes uint64
	maxQueue                                                                           int
}

// New validates cfg and returns a server that is up, idle, with an empty
// cache. Zero Speed means 1 and zero ErrorTime 1ms.
func New(cfg Config) (*Server, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:     cfg,
		src:     rng.Split(cfg.Seed, cfg.Name),
		errSalt: rng.StringHash("errors/" + cfg.Name),
		up:      true,
		wc:      newWorkClock(cfg.Speed, cfg.GCEvery, cfg.GCPause),
		svc:     newService(cfg.Workers),
		q:       newDeque(cfg.QueueCap),
		pending: make([]Reply, 0, 16),
	}
	if cfg.CacheSize > 0 {
		s.cache = newLRU(cfg.CacheSize)
	}
	return s, nil
}

// Name returns the configured name.
func (s *Server) Name() string { return s.cfg.Name }

// Up reports whether the server is up (not killed, or restarted since).
func (s *Server) Up() bool { return s.up }

// Load returns the jobs waiting and the jobs holding a worker.
func (s *Server) Load() (queued, inService int) { return s.q.n, s.svc.busy() }

// NextDeadline returns the next instant Advance has work to do: a pending
// reply, a job finishing, a queue timeout, or (while jobs are in service) a
// pause starting or ending. It is exact: a driver that wakes only then sees
// every reply at its instant.
func (s *Server) NextDeadline() (clock.Instant, bool) {
	t := clock.Never
	for i := range s.pending {
		t = min(t, s.pending[i].At)
	}
	if s.svc.busy() > 0 {
		t = min(t, s.wc.finishAt(s.svc.top().target), s.wc.next())
	}
	t = min(t, s.timeoutAt())
	return t, t != clock.Never
}

// Snapshot returns the state as of now.
func (s *Server) Snapshot(now clock.Instant) Snapshot {
	s.settle(now)
	return s.Peek()
}

// Peek returns the state as of the last call that advanced the server,
// changing nothing: a driver that has fired every wake-up due so far sees
// the state at its now (the virtual dashboard reads it between events).
func (s *Server) Peek() Snapshot {
	snap := Snapshot{
		Name: s.cfg.Name, Up: s.up, Paused: s.up && s.wc.paused, Failing: s.cfg.Fail,
		Speed: s.cfg.Speed, Workers: s.cfg.Workers, Busy: s.svc.busy(), Queued: s.q.n,
		MaxQueue: s.maxQueue, Arrived: s.arrived, Completed: s.completed,
		Errors: s.errors, Rejected: s.rejected, Dropped: s.dropped, Lost: s.lost,
		CacheHits: s.hits, CacheLookups: s.lookups, ErrorShare: s.cfg.Errors, Faults: s.faults,
		Probes: s.probes,
	}
	if s.cfg.Limit != nil {
		snap.Limit = s.cfg.Limit.Limit()
	}
	return snap
}

// QueuedKinds returns the kinds of the queued jobs, oldest first, in buf
// (reused from its start).
func (s *Server) QueuedKinds(buf []Kind) []Kind {
	buf = buf[:0]
	for i := 0; i < s.q.n; i++ {
		buf = append(buf, s.q.at(i).kind)
	}
	return buf
}

// QueuedIDs returns the IDs of the queued jobs, oldest first, in buf
// (reused from its start).
func (s *Server) QueuedIDs(buf []uint64) []uint64 {
	buf = buf[:0]
	for i := 0; i < s.q.n; i++ {
		buf = append(buf, s.q.at(i).id)
	}
	return buf
}

// reply builds a reply for a job that leaves at t after waiting since enq
// and, when start is not Never, serving since start.
func reply(id uint64, kind Kind, st Status, reason string, t, enq, start clock.Instant) Reply {
	r := Reply{ID: id, Kind: kind, Status: st, Reason: reason, At: t, Queue: t.Sub(enq)}
	if start != clock.Never {
		r.Queue, r.Service = start.Sub(enq), t.Sub(start)
	}
	return r
}
