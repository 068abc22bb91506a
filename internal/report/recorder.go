package report

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/stats"
)

// BinWidth is the width of a series bin.
const BinWidth = 250 * time.Millisecond

// Counts are the client-side counters of a run (or of one bin).
type Counts struct {
	Offered, Attempts, Succeeded, Failed, Timeouts, Rejected, Errors, Retries, Hedges, Wasted uint64
	Crossed                                                                                   uint64 // attempts that crossed a zone (zones.go)
}

// Recorder measures what clients saw: the counters, the latency of successful
// requests, the outcome of each request, Little's law and the 250 ms series.
// The simulator and the live loadgen both feed one. Not safe for concurrent use.
type Recorder struct {
	Total    Counts
	Outcomes Outcomes
	Lat      *stats.Histogram

	inSystem stats.TimeAverage
	sojourn  time.Duration
	finished uint64

	series bool
	bin    Counts
	binLat *stats.Histogram
	binAt  clock.Instant
	Bins   []Bin

	conns connCounts
	zones zoneCounts

	// OnBinLatency, when set, is handed each closed bin's latency histogram
	// to keep, and returns an empty one for the next bin (without it the
	// closed bin's is emptied and reused).
	OnBinLatency func(closed *stats.Histogram) (empty *stats.Histogram)
}

// NewRecorder returns an empty recorder; series keeps 250 ms bins and the
// latency CDF (Fill's run.CDF).
func NewRecorder(series bool) *Recorder {
	r := &Recorder{Lat: stats.NewHistogram(), series: series}
	if series {
		r.binLat = stats.NewHistogram()
	}
	return r
}

// Series reports whether bins are kept.
func (r *Recorder) Series() bool { return r.series }

// Offered counts a request the client started at now.
func (r *Recorder) Offered(now clock.Instant) {
	r.Total.Offered++
	r.bin.Offered++
	r.inSystem.Add(now, 1)
}

// Attempt counts an attempt of kind k.
func (r *Recorder) Attempt(k server.Kind) {
	r.Total.Attempts++
	r.bin.Attempts++
	switch k {
	case server.Retry:
		r.Total.Retries++
		r.bin.Retries++
	case server.Hedge:
		r.Total.Hedges++
		r.bin.Hedges++
	}
}

// Result counts an attempt's answer as its client saw it (timeouts include
// client-side attempt timeouts).
func (r *Recorder) Result(res policy.Result) {
	switch res {
	case policy.Timeout:
		r.Total.Timeouts++
		r.bin.Timeouts++
	case policy.Rejected:
		r.Total.Rejected++
		r.bin.Rejected++
	case policy.Error:
		r.Total.Errors++
		r.bin.Errors++
	}
}

// Deadline counts a request whose whole deadline passed.
func (r *Recorder) Deadline() {
	r.Total.Timeouts++
	r.bin.Timeouts++
}

// Wasted counts an attempt that was served but whose answer nobody used.
func (r *Recorder) Wasted() {
	r.Total.Wasted++
	r.bin.Wasted++
}

// Finish records a request's single outcome at now.
func (r *Recorder) Finish(now clock.Instant, c *policy.Call) {
	r.inSystem.Add(now, -1)
	r.finished++
	lat := now.Sub(c.Start)
	r.sojourn += lat
	switch c.Outcome {
	case policy.Succeeded:
		r.Total.Succeeded++
		r.bin.Succeeded++
		r.Outcomes.Succeeded++
		r.Lat.Record(lat)
		if r.series {
			r.binLat.Record(lat)
		}
		return
	case policy.Shed:
		r.Outcomes.Rejected++
	case policy.TimedOut:
		r.Outcomes.TimedOut++
	default:
		r.Outcomes.Failed++
	}
	r.Total.Failed++
	r.bin.Failed++
}

// CloseBin ends the current bin at now; perServer fills the bin's server
// columns (may be nil).
func (r *Recorder) CloseBin(now clock.Instant, perServer func(*Bin)) {
	if !r.series {
		return
	}
	c := r.bin
	b := Bin{T: r.binAt.Seconds(), Offered: c.Offered, Attempts: c.Attempts, Succeeded: c.Succeeded,
		Failed: c.Failed, Timeouts: c.Timeouts, Rejected: c.Rejected, Errors: c.Errors, Retries: c.Retries,
		Hedges: c.Hedges, Wasted: c.Wasted, Crossed: c.Crossed, P50: Ms(r.binLat.Quantile(0.5)),
		P95: Ms(r.binLat.Quantile(0.95)), P99: Ms(r.binLat.Quantile(0.99))}
	if perServer != nil {
		perServer(&b)
	}
	r.Bins = append(r.Bins, b)
	r.bin, r.binAt = Counts{}, now
	if r.OnBinLatency != nil {
		r.binLat = r.OnBinLatency(r.binLat)
		return
	}
	r.binLat.Reset()
}

// Ms converts a duration to float milliseconds.
func Ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Fill writes the recorder's figures into run (everything but the servers).
func (r *Recorder) Fill(run *Run, end clock.Instant) {
	t := r.Total
	run.Requests, run.Succeeded, run.Failed, run.Attempts = t.Offered, t.Succeeded, t.Failed, t.Attempts
	run.Timeouts, run.Rejected, run.Errors = t.Timeouts, t.Rejected, t.Errors
	run.Retries, run.Hedges, run.Wasted = t.Retries, t.Hedges, t.Wasted
	run.Outcomes, run.Series = r.Outcomes, r.Bins
	r.fillConnections(run)
	r.fillZones(run)
	run.Goodput, _ = Goodput(t.Offered, t.Succeeded, t.Succeeded+t.Failed)
	run.AttemptsPerRequest, _ = AttemptsPerRequest(t.Attempts, t.Offered)
	run.Latency = Latency{P50: Ms(r.Lat.Quantile(0.5)), P95: Ms(r.Lat.Quantile(0.95)),
		P99: Ms(r.Lat.Quantile(0.99)), P999: Ms(r.Lat.Quantile(0.999)), Mean: Ms(r.Lat.Mean()),
		Max: Ms(r.Lat.Max())}
	if r.series { // the CDF travels with the series (a live run's plot reads it from the loadgen's JSON)
		run.CDF = make([]float64, 101)
		for i := range run.CDF {
			run.CDF[i] = Ms(r.Lat.Quantile(float64(i) / 100))
		}
	}
	if end > 0 && r.finished > 0 {
		run.Little = &Little{L: r.inSystem.Mean(end), Lambda: float64(t.Offered) / end.Seconds(),
			W: (r.sojourn / time.Duration(r.finished)).Seconds()}
	}
}

// Pending is the number of requests started and not yet finished.
func (r *Recorder) Pending() uint64 { return r.Total.Offered - r.finished }
