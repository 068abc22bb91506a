package dash

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// seriesLen is 20 s of 250 ms readings; windowLen the last 2 s of them.
const (
	seriesLen = 80
	windowLen = 8
)

// bin is what happened between two readings, from counter deltas.
type bin struct {
	t, dt    float64 // seconds since the run started (at the bin's end); its span
	c        clientTotals
	cdt      float64  // the span of c by the loadgen's own clock (0: no fresh reading)
	lat      *Buckets // latency observations in the bin (nil without /metrics)
	mean     float64  // Little's law: mean time in system, ms (NaN without completions)
	cumP50   float64  // the loadgen's since-start percentiles at the bin's end
	cumP99   float64
	target   float64            // the loadgen's target rate at the bin's end (NaN: closed loop or unknown)
	sent     map[string]float64 // requests sent to each server
	picks    map[string]float64 // requests each balancer sent
	lookups  map[string]float64 // cache lookups and hits at each server
	hits     map[string]float64
	inServer map[string]int // queued + busy at the bin's end
	limit    map[string]int
}

// Deriver turns successive readings of one run into bins and keeps the
// last seriesLen of them. Not safe for concurrent use.
type Deriver struct {
	runID uint64
	prev  *Reading
	bins  []bin
}

// Add takes the next reading of the run numbered runID, which started at
// started; a new run starts afresh.
func (d *Deriver) Add(runID uint64, started time.Time, cur *Reading) {
	if d.runID != runID {
		*d = Deriver{runID: runID}
	}
	cur.carry(d.prev)
	if d.prev != nil {
		d.bins = append(d.bins, makeBin(d.prev, cur, started))
		if len(d.bins) > seriesLen {
			d.bins = append(d.bins[:0:0], d.bins[len(d.bins)-seriesLen:]...)
		}
	}
	d.prev = cur
}

// delta is a counter's growth; a counter that went down (a restarted
// process) counts from zero.
func delta(cur, prev uint64) uint64 {
	if cur < prev {
		return cur
	}
	return cur - prev
}

func makeBin(prev, cur *Reading, start time.Time) bin {
	b := bin{t: cur.At.Sub(start).Seconds(), dt: cur.At.Sub(prev.At).Seconds(), mean: math.NaN(),
		cumP50: math.NaN(), cumP99: math.NaN(), target: math.NaN(), sent: map[string]float64{}, lookups: map[string]float64{},
		hits: map[string]float64{}, picks: map[string]float64{}, inServer: map[string]int{}, limit: map[string]int{}}
	if cur.Loadgen != nil && cur.Loadgen.Mode == "open" {
		b.target = cur.Loadgen.Rate
	}
	p, c := prev.totals(), cur.totals()
	if p.ok && c.ok {
		// The loadgen's elapsed time dates its counters: a slow or missed
		// answer then stretches (or empties) this bin instead of making a spike.
		b.c, b.cdt = countDeltas(c, p), cur.Loadgen.ElapsedS-prev.Loadgen.ElapsedS
		ended := float64(b.c.succeeded + b.c.failed)
		if ended > 0 && b.cdt > 0 { // L = λW, with L the pending count averaged over the bin
			b.mean = float64(p.pending+c.pending) / 2 / (ended / b.cdt) * 1000
		}
		b.cumP50, b.cumP99 = c.p50, c.p99
	}
	if cur.Latency != nil && prev.Latency != nil { // a first histogram is no bin's
		b.lat = cur.Latency.minus(prev.Latency)
	}
	ps, cs := prev.sentTo(), cur.sentTo()
	for name, n := range cs {
		if old, ok := ps[name]; ok { // a server first seen now has no delta yet
			b.sent[name] = float64(delta(n, old))
		}
	}
	for _, l := range cur.LBs {
		if old := prev.lb(l.Name); old != nil && l.State != nil {
			b.picks[l.Name] = float64(delta(l.State.Picks, old.Picks))
		}
	}
	for _, s := range cur.Servers {
		if s.State == nil {
			continue
		}
		b.inServer[s.Name], b.limit[s.Name] = s.State.Queued+s.State.Busy, s.State.Limiter.Limit
		if old := prev.server(s.Name); old != nil {
			b.lookups[s.Name] = float64(delta(s.State.Counters.CacheLookups, old.Counters.CacheLookups))
			b.hits[s.Name] = float64(delta(s.State.Counters.CacheHits, old.Counters.CacheHits))
		}
	}
	return b
}

func countDeltas(c, p clientTotals) clientTotals {
	return clientTotals{ok: true,
		offered: delta(c.offered, p.offered), attempts: delta(c.attempts, p.attempts),
		succeeded: delta(c.succeeded, p.succeeded), failed: delta(c.failed, p.failed),
		timeouts: delta(c.timeouts, p.timeouts), rejected: delta(c.rejected, p.rejected),
		errors: delta(c.errors, p.errors), retries: delta(c.retries, p.retries),
		hedges: delta(c.hedges, p.hedges), wasted: delta(c.wasted, p.wasted),
		crossed: delta(c.crossed, p.crossed)}
}

// last returns the newest n bins (fewer at the start).
func (d *Deriver) last(n int) []bin {
	if len(d.bins) < n {
		return d.bins
	}
	return d.bins[len(d.bins)-n:]
}

// histogram reports whether the latency comes from the loadgen's histogram.
func (d *Deriver) histogram() bool { return d.prev != nil && d.prev.Latency != nil }

// series lays the bins out as columns, servers in the given order.
func (d *Deriver) series(servers []string) Series {
	s := Series{Servers: servers, InServer: make([][]num, len(servers)), Limit: make([][]num, len(servers))}
	hist := d.histogram()
	for _, b := range d.bins {
		s.T = append(s.T, num(b.t))
		p50, p95, p99 := num(b.cumP50), null, num(b.cumP99)
		if hist {
			p50, p95, p99 = num(b.lat.quantile(0.5)), num(b.lat.quantile(0.95)), num(b.lat.quantile(0.99))
		}
		s.P50, s.P95, s.P99, s.Mean = append(s.P50, p50), append(s.P95, p95), append(s.P99, p99), append(s.Mean, num(b.mean))
		per := func(n uint64) num { return ratio(float64(n), b.cdt) }
		s.Offered, s.Attempts = append(s.Offered, per(b.c.offered)), append(s.Attempts, per(b.c.attempts))
		s.Target = append(s.Target, num(b.target))
		s.Success, s.Timeouts = append(s.Success, per(b.c.succeeded)), append(s.Timeouts, per(b.c.timeouts))
		s.Rejected, s.Retries = append(s.Rejected, per(b.c.rejected)), append(s.Retries, per(b.c.retries))
		s.Failed = append(s.Failed, per(b.c.failed))
		for i, name := range servers {
			in, ok := b.inServer[name]
			s.InServer[i] = append(s.InServer[i], orNull(float64(in), ok))
			s.Limit[i] = append(s.Limit[i], orNull(float64(b.limit[name]), ok))
		}
	}
	return s
}

func orNull(v float64, ok bool) num {
	if !ok {
		return null
	}
	return num(v)
}

// window sums the last 2 s of bins into the dashboard's counters; goodput
// and attempts per request are the report's (report.Goodput,
// report.AttemptsPerRequest), null when there are none.
func (d *Deriver) window() Window {
	bins := d.last(windowLen)
	var c clientTotals
	var secs float64
	var lat *Buckets
	for _, b := range bins {
		c = addTotals(c, b.c)
		secs += b.cdt
		lat = lat.plus(b.lat)
	}
	w := Window{Seconds: num(secs), Offered: c.offered, OfferedPerS: ratio(float64(c.offered), secs),
		Goodput:            orNull(report.Goodput(c.offered, c.succeeded, c.succeeded+c.failed)),
		AttemptsPerRequest: orNull(report.AttemptsPerRequest(c.attempts, c.offered)),
		Timeouts:           c.timeouts, Errors: c.errors, Rejected: c.rejected, Retries: c.retries,
		Hedges: c.hedges, Wasted: c.wasted, Failed: c.failed, P50Ms: null, P99Ms: null}

	switch {
	case d.histogram():
		p50, over50 := lat.quantileOver(0.5)
		p99, over99 := lat.quantileOver(0.99)
		w.P50Ms, w.P99Ms = num(p50), num(p99)
		w.LatencyNote = "last 2 s, from the loadgen's latency histogram"
		// A quantile in the histogram's +Inf bucket is only known to be
		// over its largest bound: a backlog answered after 30 s would
		// otherwise read as a p99 of exactly 30.00 s.
		for _, o := range []struct {
			over  bool
			field string
			ms    float64
		}{{over50, "p50_ms", p50}, {over99, "p99_ms", p99}} {
			if o.over {
				w.Beyond = append(w.Beyond, o.field)
				w.LatencyNote = fmt.Sprintf("%s; %s is over the histogram's largest bucket, %s: at least that", w.LatencyNote,
					strings.TrimSuffix(o.field, "_ms"), time.Duration(math.Round(o.ms))*time.Millisecond)
			}
		}
	case len(bins) > 0:
		last := bins[len(bins)-1]
		w.P50Ms, w.P99Ms = num(last.cumP50), num(last.cumP99)
		w.LatencyNote = "since the loadgen started (it reports no histogram)"
	}
	return w
}

func addTotals(a, b clientTotals) clientTotals {
	a.offered += b.offered
	a.attempts += b.attempts
	a.succeeded += b.succeeded
	a.failed += b.failed
	a.timeouts += b.timeouts
	a.rejected += b.rejected
	a.errors += b.errors
	a.retries += b.retries
	a.hedges += b.hedges
	a.wasted += b.wasted
	a.crossed += b.crossed
	return a
}

// sentOver sums requests sent to each server over the newest n bins, and
// the seconds they span.
func (d *Deriver) sentOver(n int) (map[string]float64, float64) {
	out := map[string]float64{}
	var secs float64
	for _, b := range d.last(n) {
		secs += b.dt
		for name, v := range b.sent {
			out[name] += v
		}
	}
	return out, secs
}

// crossZone is the share of the attempts of the last 2 s that crossed a
// zone, for the window of a lab with zones (null: no attempt).
func (d *Deriver) crossZone() *num {
	var c clientTotals
	for _, b := range d.last(windowLen) {
		c = addTotals(c, b.c)
	}
	share := null
	if c.attempts > 0 {
		share = num(float64(c.crossed) / float64(c.attempts))
	}
	return &share
}
