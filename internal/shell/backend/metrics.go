package backend

import (
	"slices"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/metrics"
)

// newMetrics builds the process's metrics; its state gauges read the core
// at scrape time.
func (b *Backend) newMetrics() {
	kinds := eventKinds()
	slices.Sort(kinds)
	b.met = metrics.NewBackend(b.cfg.Name, b.metricsState, kinds)
	b.obs, b.note = b.met, b.met
}

// metricsState is the state gauges' snapshot, as of now.
func (b *Backend) metricsState() metrics.ServerState {
	var st metrics.ServerState
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		s := b.core.Snapshot(now)
		st = metrics.ServerState{Queued: s.Queued, Busy: s.Busy, Workers: s.Workers, Limit: s.Limit,
			Speed: s.Speed, Up: s.Up && b.addrs.open, CacheLookups: s.CacheLookups, CacheHits: s.CacheHits}
		return out
	})
	return st
}

// observeReply reports an attempt's end: its queue wait if it queued, its
// service time if it was served.
func (b *Backend) observeReply(r server.Reply) {
	queue, service := time.Duration(-1), time.Duration(-1)
	if queued(r) {
		queue = r.Queue
	}
	if r.Status == server.OK {
		service = r.Service
	}
	b.obs.AttemptEnded(int(r.Kind), int(r.Status), queue, service)
}

// queued reports whether the attempt passed through the queue: served, or
// taken out of it unserved. Errors never queue, refusals and most
// rejections are decided on arrival.
func queued(r server.Reply) bool {
	switch r.Status {
	case server.OK, server.Dropped, server.Cancelled:
		return true
	case server.Rejected:
		return r.Reason == "lifo-evicted" || r.Reason == "queue-timeout"
	}
	return false
}
