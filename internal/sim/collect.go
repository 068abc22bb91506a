package sim

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/report"
)

const binWidth = report.BinWidth

// collector adds what only the simulator knows to the client-side
// report.Recorder: per-server figures, keys moved and the event log.
type collector struct {
	*report.Recorder
	w        *world
	maxQueue []int
	moved    *report.KeysMoved
	Log      []report.LogLine
}

func newCollector(w *world) *collector {
	return &collector{Recorder: w.rt.Rec, w: w}
}

// serverTouched notes a server's queue after it changed (for max_queue).
func (c *collector) serverTouched(si int) {
	if c.w.check {
		c.w.checkServer(si)
	}
	for len(c.maxQueue) <= si {
		c.maxQueue = append(c.maxQueue, 0)
	}
	if q, _ := c.w.servers[si].core.Load(); q > c.maxQueue[si] {
		c.maxQueue[si] = q
	}
}

func (c *collector) breaker(now clock.Instant, bal, si int, from, to breaker.State) {
	c.log(now, breaker.Describe(c.w.servers[si].spec.Name, from, to))
}

func (c *collector) log(now clock.Instant, text string) {
	c.Log = append(c.Log, report.LogLine{T: now.Seconds(), Text: text})
}

// keysMoved records the share of keys whose owner changed when a server
// joined, next to what hash mod N would have moved.
func (c *collector) keysMoved(before, after []int) {
	if before == nil || after == nil {
		return
	}
	n, moved, modMoved := len(c.w.servers)-1, 0, 0
	for k := range before {
		if before[k] != after[k] {
			moved++
		}
		if k%n != k%(n+1) {
			modMoved++
		}
	}
	c.moved = &report.KeysMoved{From: n, To: n + 1, Share: float64(moved) / float64(len(before)),
		ModNShare: float64(modMoved) / float64(len(before))}
}

// closeBin ends the current 250 ms bin with each server's load and limit.
func (c *collector) closeBin(now clock.Instant) {
	c.CloseBin(now, func(b *report.Bin) {
		n := len(c.w.servers) // each column its exact size: a long series of a large fleet is most of a run's memory
		b.InServer, b.Limit = make([]int, 0, n), make([]int, 0, n)
		for _, s := range c.w.servers {
			q, in := s.core.Load()
			b.InServer = append(b.InServer, q+in)
			b.Limit = append(b.Limit, s.core.Snapshot(now).Limit)
		}
	})
}

// run builds the report row of the finished run.
func (c *collector) run(end clock.Instant) report.Run {
	r := report.Run{Name: c.w.name, Algorithm: c.w.algorithmName(), KeysMoved: c.moved,
		Events: c.w.events, Log: c.Log}
	c.Fill(&r, end)
	r.Probes = c.w.probeFigures(r.Requests)
	r.Announcements = c.w.idleFigures(r.Requests)
	var sent uint64
	for _, s := range c.w.servers {
		sent += s.sent
	}
	for i, s := range c.w.servers {
		snap := s.core.Snapshot(end)
		rs := report.Server{Name: s.spec.Name, Sent: s.sent, Completed: s.completed, MaxQueue: snap.MaxQueue}
		for _, b := range c.w.bals {
			if b.Picked(i) > 0 {
				rs.Peers++
			}
		}
		if sent > 0 {
			rs.Share = float64(s.sent) / float64(sent)
		}
		if snap.CacheLookups > 0 {
			rs.CacheHitRatio = float64(snap.CacheHits) / float64(snap.CacheLookups)
		}
		if c.w.connsOn {
			rs.Connections = s.conns
		}
		if i < len(c.maxQueue) && c.maxQueue[i] > rs.MaxQueue {
			rs.MaxQueue = c.maxQueue[i]
		}
		r.Servers = append(r.Servers, rs)
	}
	return r
}
