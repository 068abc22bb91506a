// Package report is the one report type that `lab sim` and `lab run` print:
// a table per compare, JSON for machines (a public contract: extend, never
// rename), 250 ms series and plots. Times are in milliseconds, shares in [0, 1].
package report

import (
	"encoding/json"
	"io"
	"math"
)

// Report is the result of one lab run or compare.
type Report struct {
	Mode      string  `json:"mode"` // sim | live
	Lab       string  `json:"lab"`
	Seed      uint64  `json:"seed"`
	DurationS float64 `json:"duration_s"`
	Runs      []Run   `json:"runs"`
	Seeds     *Seeds  `json:"seeds,omitempty"` // several seeds: intervals and per-seed values (seeds.go)
	// Interrupted: a live run stopped early (Ctrl-C, SIGTERM). DurationS is
	// then the time the longest run actually ran, each interrupted run
	// says how long it ran, and NotRun names the settings never started.
	Interrupted bool     `json:"interrupted,omitempty"`
	NotRun      []string `json:"not_run,omitempty"`
	// Through names the external proxy every run's balancer tier ran as
	// (lab run --balancer haproxy, balancers.kind), "" for lblab's lb or
	// runs through several kinds (each run's name then says which).
	Through   string `json:"through,omitempty"`
	Narration string `json:"-"` // what to watch, printed above the table
	// Headline is the figure the lab is about (its report.headline): the
	// table ranks the settings by it and shows it first.
	Headline Headline `json:"-"`
}

// Run is one setting's result: the same request stream through one policy.
type Run struct {
	Name               string     `json:"name"`
	Algorithm          string     `json:"algorithm"`
	Interrupted        bool       `json:"interrupted,omitempty"` // live: stopped before its end; DurationS is how long it ran
	DurationS          float64    `json:"duration_s,omitempty"`  // only on an interrupted run
	Requests           uint64     `json:"requests"`
	Succeeded          uint64     `json:"succeeded"`
	Failed             uint64     `json:"failed"` // requests that did not succeed
	Goodput            float64    `json:"goodput"`
	Attempts           uint64     `json:"attempts"`
	AttemptsPerRequest float64    `json:"attempts_per_request"`
	Timeouts           uint64     `json:"timeouts"` // attempts that timed out (504 or client attempt timeout) plus request deadlines
	Rejected           uint64     `json:"rejected"` // attempts answered 503
	Errors             uint64     `json:"errors"`   // attempts answered 500 or 502 (refused, reset)
	Retries            uint64     `json:"retries"`
	Hedges             uint64     `json:"hedges"`
	Wasted             uint64     `json:"wasted"` // attempts served whose answer nobody used
	Latency            Latency    `json:"latency_ms"`
	Servers            []Server   `json:"servers"`
	KeysMoved          *KeysMoved `json:"keys_moved"`
	Series             []Bin      `json:"series"`
	Outcomes           Outcomes   `json:"outcomes"` // how each request ended: the four add up to requests
	Little             *Little    `json:"little,omitempty"`
	Log                []LogLine  `json:"log,omitempty"` // breaker transitions, chaos and changes, in time order
	Events             uint64     `json:"sim_events,omitempty"`
	CDF                []float64  `json:"cdf_ms,omitempty"` // with the series: latency (ms) at quantiles 0, 0.01, ..., 1 (what --plot draws)
	Pacing             *Pacing    `json:"pacing,omitempty"` // live runs: how punctually the loadgen started requests
	// Connections is what opening connections cost (connections.go); only
	// when the lab models them.
	Connections *Connections `json:"connections,omitempty"`
	// Probes is what a probing algorithm's probes cost (probes.go); only
	// when an algorithm of the lab probes.
	Probes *Probes `json:"probes,omitempty"`
	// Announcements is what an idle-queue algorithm's announcements cost
	// and bought (idle.go); only when an algorithm of the lab keeps an
	// idle queue (jiq).
	Announcements *Announcements `json:"announcements,omitempty"`
	// CrossZone is what crossing zones cost (zones.go); only when the lab
	// declares zones.
	CrossZone *CrossZone `json:"cross_zone,omitempty"`
	// Load is the load tool's view of a live run (load.go): target, rates,
	// status codes, error kinds, whether the generator kept up.
	Load *Load `json:"load,omitempty"`
	// Recovery is the verdict on each script event with an end
	// (recovery.go); only when the run has a series.
	Recovery []Recovery `json:"recovery,omitempty"`
}

// Latency summarises successful requests' latency, from intended send to answer.
type Latency struct {
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
}

// Server is one server's part in a run.
type Server struct {
	Name          string  `json:"name"`
	Sent          uint64  `json:"sent"`
	Completed     uint64  `json:"completed"`
	Share         float64 `json:"share"`
	CacheHitRatio float64 `json:"cache_hit_ratio"`
	MaxQueue      int     `json:"max_queue"`
	Peers         int     `json:"peers,omitempty"` // simulator: balancers (or clients) that sent it at least one attempt, its connections
	// Connections opened to it, when the lab models connections: by the
	// model virtually, accepted by the backend live.
	Connections uint64 `json:"connections,omitempty"`
}

// KeysMoved is the share of keys that changed owner when the server set changed.
type KeysMoved struct {
	From      int     `json:"from"`
	To        int     `json:"to"`
	Share     float64 `json:"share"`       // with the run's consistent hashing
	ModNShare float64 `json:"mod_n_share"` // what hash mod N would have moved
}

// Outcomes counts requests by how they ended.
type Outcomes struct {
	Succeeded uint64 `json:"succeeded"`
	Failed    uint64 `json:"failed"`    // last attempt 500/502
	Rejected  uint64 `json:"rejected"`  // last attempt 503
	TimedOut  uint64 `json:"timed_out"` // deadline or last attempt timed out, or cut off at the end of the run
}

// LogLine is one event-log entry.
type LogLine struct {
	T    float64 `json:"t_s"`
	Text string  `json:"text"`
}

// Pacing is how far behind their intended times a live loadgen started its
// requests (the simulator is always on time).
type Pacing struct {
	Started uint64  `json:"started"`
	Late    uint64  `json:"late"` // more than 10 ms behind
	P50     float64 `json:"lateness_p50_ms"`
	P99     float64 `json:"lateness_p99_ms"`
	Max     float64 `json:"lateness_max_ms"`
}

// Little checks Little's law on the run: L = λW.
type Little struct {
	L      float64 `json:"l"`      // time-average requests in the system
	Lambda float64 `json:"lambda"` // arrivals per second
	W      float64 `json:"w_s"`    // mean time in system, seconds
}

// Bin is one 250 ms bin of a run's time series.
type Bin struct {
	T         float64 `json:"t_s"` // bin start
	Offered   uint64  `json:"offered"`
	Attempts  uint64  `json:"attempts"`
	Succeeded uint64  `json:"succeeded"`
	Failed    uint64  `json:"failed"`
	Timeouts  uint64  `json:"timeouts"`
	Rejected  uint64  `json:"rejected"`
	Errors    uint64  `json:"errors"`
	Retries   uint64  `json:"retries"`
	Hedges    uint64  `json:"hedges"`
	Wasted    uint64  `json:"wasted"`
	Crossed   uint64  `json:"crossed,omitempty"` // attempts that crossed a zone (a lab with zones)
	P50       float64 `json:"p50"`
	P95       float64 `json:"p95"`
	P99       float64 `json:"p99"`
	InServer  []int   `json:"in_server"` // queued + in service per server at the bin's end
	Limit     []int   `json:"limit"`     // each server's concurrency limit (0 = none)
}

// WriteJSON writes r as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WithoutSeries is a copy of r without the series and CDFs: what to print
// when they were gathered only for a plot.
func (r *Report) WithoutSeries() *Report {
	c := *r
	c.Runs = append([]Run(nil), r.Runs...)
	for i := range c.Runs {
		c.Runs[i] = c.Runs[i].WithoutSeries()
	}
	return &c
}

// WithoutSeries returns the run without its series and CDF.
func (r Run) WithoutSeries() Run {
	r.Series, r.CDF = nil, nil
	return r
}

// ShareSpread is the coefficient of variation of the servers' shares of
// the attempts (0 with no server): how unevenly the run spread its load.
func (r *Run) ShareSpread() float64 {
	if len(r.Servers) == 0 {
		return 0
	}
	var sum, sq float64
	for _, s := range r.Servers {
		sum += s.Share
	}
	mean := sum / float64(len(r.Servers))
	for _, s := range r.Servers {
		sq += (s.Share - mean) * (s.Share - mean)
	}
	return math.Sqrt(sq/float64(len(r.Servers))) / mean
}

// HitRatio is the run's cache hit ratio over all servers, weighted by attempts.
func (r *Run) HitRatio() float64 {
	var hits, sent float64
	for _, s := range r.Servers {
		hits += s.CacheHitRatio * float64(s.Sent)
		sent += float64(s.Sent)
	}
	if sent == 0 {
		return 0
	}
	return hits / sent
}

// Find returns the run called name, or nil.
func (r *Report) Find(name string) *Run {
	for i := range r.Runs {
		if r.Runs[i].Name == name {
			return &r.Runs[i]
		}
	}
	return nil
}
