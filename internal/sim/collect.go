package sim

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/stats"
)

const binWidth = 250 * time.Millisecond

// counts are the run's counters; a bin keeps its own copy.
type counts struct {
	offered, attempts, succeeded, failed, timeouts, rejected, errors, retries, hedges, wasted uint64
}

// collector measures a run: totals, latency, per-server figures, series,
// the event log and Little's law.
type collector struct {
	w        *world
	total    counts
	outcomes report.Outcomes
	lat      *stats.Histogram
	inSystem stats.TimeAverage
	sojourn  time.Duration // sum of time in system over finished requests
	finished uint64
	maxQueue []int

	series  bool
	bin     counts
	binLat  *stats.Histogram
	binAt   clock.Instant
	bins    []report.Bin
	moved   *report.KeysMoved
	Log     []report.LogLine
	touched []bool
}

func newCollector(w *world, series bool) *collector {
	c := &collector{w: w, lat: stats.NewHistogram(), series: series}
	if series {
		c.binLat = stats.NewHistogram()
	}
	return c
}

func (c *collector) offered(now clock.Instant) {
	c.total.offered++
	c.bin.offered++
	c.inSystem.Add(now, 1)
}

func (c *collector) attempt(now clock.Instant, k server.Kind) {
	c.total.attempts++
	c.bin.attempts++
	switch k {
	case server.Retry:
		c.total.retries++
		c.bin.retries++
	case server.Hedge:
		c.total.hedges++
		c.bin.hedges++
	}
}

// result counts an attempt's answer (or client-side attempt timeout) at the client.
func (c *collector) result(now clock.Instant, r policy.Result) {
	switch r {
	case policy.Timeout:
		c.total.timeouts++
		c.bin.timeouts++
	case policy.Rejected:
		c.total.rejected++
		c.bin.rejected++
	case policy.Error:
		c.total.errors++
		c.bin.errors++
	}
}

// deadline counts a request whose whole deadline passed.
func (c *collector) deadline(now clock.Instant) {
	c.total.timeouts++
	c.bin.timeouts++
}

func (c *collector) wasted(now clock.Instant) {
	c.total.wasted++
	c.bin.wasted++
}

// finish records a request's single outcome.
func (c *collector) finish(now clock.Instant, call *policy.Call) {
	c.inSystem.Add(now, -1)
	c.finished++
	c.sojourn += now.Sub(call.Start)
	switch call.Outcome {
	case policy.Succeeded:
		c.total.succeeded++
		c.bin.succeeded++
		c.outcomes.Succeeded++
		c.lat.Record(now.Sub(call.Start))
		if c.series {
			c.binLat.Record(now.Sub(call.Start))
		}
		return
	case policy.Shed:
		c.outcomes.Rejected++
	case policy.TimedOut:
		c.outcomes.TimedOut++
	default:
		c.outcomes.Failed++
	}
	c.total.failed++
	c.bin.failed++
}

// serverTouched notes a server's queue after it changed (for max_queue).
func (c *collector) serverTouched(si int) {
	for len(c.maxQueue) <= si {
		c.maxQueue = append(c.maxQueue, 0)
	}
	if q, _ := c.w.servers[si].core.Load(); q > c.maxQueue[si] {
		c.maxQueue[si] = q
	}
}

func (c *collector) breaker(now clock.Instant, bal, si int, from, to breaker.State) {
	c.log(now, "breaker "+c.w.servers[si].spec.Name+": "+from.String()+" -> "+to.String())
}

func (c *collector) log(now clock.Instant, text string) {
	c.Log = append(c.Log, report.LogLine{T: now.Seconds(), Text: text})
}

// keysMoved records the share of keys whose owner changed when server
// added joined, next to what hash mod N would have moved.
func (c *collector) keysMoved(before, after []int, added int) {
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

// closeBin ends the current 250 ms bin.
func (c *collector) closeBin(now clock.Instant) {
	if !c.series {
		return
	}
	b := report.Bin{T: c.binAt.Seconds(), Offered: c.bin.offered, Attempts: c.bin.attempts,
		Succeeded: c.bin.succeeded, Failed: c.bin.failed, Timeouts: c.bin.timeouts, Rejected: c.bin.rejected,
		Errors: c.bin.errors, Retries: c.bin.retries, Hedges: c.bin.hedges, Wasted: c.bin.wasted,
		P50: msOf(c.binLat.Quantile(0.5)), P95: msOf(c.binLat.Quantile(0.95)), P99: msOf(c.binLat.Quantile(0.99))}
	for _, s := range c.w.servers {
		q, in := s.core.Load()
		b.InServer = append(b.InServer, q+in)
		b.Limit = append(b.Limit, s.core.Snapshot(now).Limit)
	}
	c.bins = append(c.bins, b)
	c.bin, c.binAt = counts{}, now
	c.binLat.Reset()
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// run builds the report's view of the finished run.
func (c *collector) run(end clock.Instant) report.Run {
	t := c.total
	r := report.Run{Name: c.w.name, Algorithm: c.w.algorithmName(), Requests: t.offered,
		Succeeded: t.succeeded, Failed: t.failed, Attempts: t.attempts, Timeouts: t.timeouts,
		Rejected: t.rejected, Errors: t.errors, Retries: t.retries, Hedges: t.hedges, Wasted: t.wasted,
		Outcomes: c.outcomes, KeysMoved: c.moved, Series: c.bins, Events: c.w.events, Log: c.Log}
	if t.offered > 0 {
		r.Goodput = float64(t.succeeded) / float64(t.offered)
		r.AttemptsPerRequest = float64(t.attempts) / float64(t.offered)
	}
	r.Latency = report.Latency{P50: msOf(c.lat.Quantile(0.5)), P95: msOf(c.lat.Quantile(0.95)),
		P99: msOf(c.lat.Quantile(0.99)), P999: msOf(c.lat.Quantile(0.999)), Mean: msOf(c.lat.Mean()),
		Max: msOf(c.lat.Max())}
	var sent uint64
	for _, s := range c.w.servers {
		sent += s.sent
	}
	for i, s := range c.w.servers {
		snap := s.core.Snapshot(end)
		rs := report.Server{Name: s.spec.Name, Sent: s.sent, Completed: s.completed, MaxQueue: snap.MaxQueue}
		if sent > 0 {
			rs.Share = float64(s.sent) / float64(sent)
		}
		if snap.CacheLookups > 0 {
			rs.CacheHitRatio = float64(snap.CacheHits) / float64(snap.CacheLookups)
		}
		if i < len(c.maxQueue) && c.maxQueue[i] > rs.MaxQueue {
			rs.MaxQueue = c.maxQueue[i]
		}
		r.Servers = append(r.Servers, rs)
	}
	if end > 0 && c.finished > 0 {
		r.Little = &report.Little{L: c.inSystem.Mean(end), Lambda: float64(t.offered) / end.Seconds(),
			W: (c.sojourn / time.Duration(c.finished)).Seconds()}
	}
	return r
}
