package report

import (
	"fmt"
	"strconv"
)

// Goodput is the one definition of goodput: the share of the requests
// that ended over a span (a run, a window of its series, one bin, the
// dashboard's last 2 s) that succeeded, succeeded / ended, where a request
// ends once, with its outcome, and counts in the span in which it ends. Over
// a whole run every request ends (one still pending at the drain limit ends
// as timed out), so a run's goodput is also succeeded / requests. When none
// of the requests ended in the span, goodput is 0 if some were started (all
// of them are stuck: nobody got an answer) and there is none (ok false) if
// none were started either.
func Goodput(started, succeeded, ended uint64) (share float64, ok bool) {
	switch {
	case ended > 0:
		return float64(succeeded) / float64(ended), true
	case started > 0:
		return 0, true
	}
	return 0, false
}

// AttemptsPerRequest is attempts / requests started over a span (a run,
// a window of its bins, the dashboard's last 2 s): first attempts, retries
// and hedges per request; there is none (ok false) when no request started.
func AttemptsPerRequest(attempts, started uint64) (ratio float64, ok bool) {
	if started == 0 {
		return 0, false
	}
	return float64(attempts) / float64(started), true
}

// Unit is what a figure measures in, which says how it prints.
type Unit string

// The units of the figures.
const (
	Millis     Unit = "ms"          // milliseconds: 33.7ms, 220ms, 1.84s
	Share      Unit = "share"       // in [0, 1], printed as a percentage: 99.5%
	PerRequest Unit = "per request" // a ratio to the requests: 1.011
	Count      Unit = "count"       // a whole number: 1854 (a mean over seeds may have a decimal)
)

// Text prints v in the unit, as the report's tables do.
func (u Unit) Text(v float64) string {
	switch u {
	case Millis:
		return ms(v)
	case Share:
		return fmt.Sprintf("%.1f%%", 100*v)
	case PerRequest:
		return fmt.Sprintf("%.3f", v)
	}
	return count(v)
}

// FigureSpec is one figure of a run, declared once: the text table, the
// seeds table, the headline, the JSON's seeds.settings[].figures, the sweep
// report and its CSV, the dashboard's counters and docs/report.md all read
// it from Figures.
type FigureSpec struct {
	// Name is its name: the key of seeds.settings[].figures and of a
	// sweep point's figures, its sweep CSV columns (NAME, NAME_lo,
	// NAME_hi), and the word a lab's report.headline names it by.
	Name string
	// JSON is where a run's JSON holds it ("latency_ms.p99"); "" when the
	// JSON does not hold it itself but its parts (cache_hit_ratio, from
	// servers[]).
	JSON string
	// Head is its column in the text tables; "" when it has none.
	Head string
	Unit Unit
	// Doc says what it counts: the line of docs/report.md's figure list.
	Doc string
	// Higher is better (goodput); else lower is (latency, counts).
	Higher bool
	// Seeds: carried over seeds and sweeps (seeds.settings[].figures, the
	// sweep CSV); the rest are the run's counts the others are made from.
	Seeds bool
	// Dashboard is its key in the dashboard snapshot's window (the last
	// 2 s, docs/dashboard.md): the counter tile that shows it; "" when no
	// tile does.
	Dashboard string
	// Series is its column in the dashboard snapshot's series (the last
	// 20 s: a count per second, a latency in ms), "" when no chart draws
	// it.
	Series string
	// Label is what the dashboard calls it, on its tile and in the charts'
	// legends; "" when that is its Name.
	Label string
	// Of reads it off a run.
	Of func(*Run) float64
	// Has reports whether the run has it (nil: always): a latency needs a
	// request that succeeded, goodput a request. A table prints "-" for a
	// figure the run has not; a headline ranks such a run last.
	Has func(*Run) bool
	// Optional marks a figure only some labs have (Has: the cross-zone
	// shares, of a lab with zones): a table has its column, and a summary
	// over seeds and a sweep's CSV carry it, only when a run has it, so a
	// lab without it reports as if the figure did not exist.
	Optional bool
	// OfServed marks a figure of the successful requests alone (the
	// latencies): it says nothing of the requests that failed, so a
	// ranking by it compares only runs that serve (Serves) and puts every
	// run that fails most of its requests below them (rank.go).
	OfServed bool
}

// Words is what the dashboard calls the figure: its Label, else its Name.
func (f *FigureSpec) Words() string {
	if f.Label != "" {
		return f.Label
	}
	return f.Name
}

// Text prints the figure's value for run in its unit, or "-" when the run
// has no such figure.
func (f *FigureSpec) Text(run *Run) string {
	if f.Has != nil && !f.Has(run) {
		return "-"
	}
	return f.Unit.Text(f.Of(run))
}

func succeededAny(r *Run) bool { return r.Succeeded > 0 }
func requestsAny(r *Run) bool  { return r.Requests > 0 }
func probesAny(r *Run) bool    { return r.Probes != nil }
func idleAny(r *Run) bool      { return r.Announcements != nil }

// Figures are the figures of a run, in the order of the report's table.
var Figures = []FigureSpec{
	{Name: "p50", JSON: "latency_ms.p50", OfServed: true, Head: "p50", Unit: Millis, Seeds: true, Dashboard: "p50_ms", Series: "p50", Has: succeededAny,
		Doc: "median latency of the successful requests, from the intended send to the answer",
		Of:  func(r *Run) float64 { return r.Latency.P50 }},
	{Name: "p95", JSON: "latency_ms.p95", OfServed: true, Head: "p95", Unit: Millis, Seeds: true, Series: "p95", Has: succeededAny,
		Doc: "95th percentile of that latency",
		Of:  func(r *Run) float64 { return r.Latency.P95 }},
	{Name: "p99", JSON: "latency_ms.p99", OfServed: true, Head: "p99", Unit: Millis, Seeds: true, Dashboard: "p99_ms", Series: "p99", Has: succeededAny,
		Doc: "99th percentile of that latency",
		Of:  func(r *Run) float64 { return r.Latency.P99 }},
	{Name: "p999", JSON: "latency_ms.p999", OfServed: true, Head: "p99.9", Unit: Millis, Seeds: true, Has: succeededAny,
		Doc: "99.9th percentile of that latency",
		Of:  func(r *Run) float64 { return r.Latency.P999 }},
	{Name: "mean", JSON: "latency_ms.mean", OfServed: true, Head: "mean", Unit: Millis, Seeds: true, Series: "mean", Has: succeededAny,
		Doc: "mean of that latency",
		Of:  func(r *Run) float64 { return r.Latency.Mean }},
	{Name: "max", JSON: "latency_ms.max", OfServed: true, Unit: Millis, Seeds: true, Has: succeededAny,
		Doc: "the longest of those latencies",
		Of:  func(r *Run) float64 { return r.Latency.Max }},
	{Name: "goodput", JSON: "goodput", Head: "goodput", Unit: Share, Higher: true, Seeds: true, Dashboard: "goodput", Has: requestsAny,
		Doc: "the share of the requests that ended that succeeded (Goodput): succeeded / requests over a run",
		Of:  func(r *Run) float64 { return r.Goodput }},
	{Name: "attempts_per_request", JSON: "attempts_per_request", Head: "att/req", Unit: PerRequest, Seeds: true, Dashboard: "attempts_per_request",
		Label: "attempts / request",
		Doc:   "attempts / requests: first attempts, retries and hedges",
		Of:    func(r *Run) float64 { return r.AttemptsPerRequest }},
	{Name: "requests", JSON: "requests", Unit: Count, Seeds: true, Dashboard: "offered", Series: "offered", Label: "offered",
		Doc: "requests the clients started (each ends exactly once)",
		Of:  func(r *Run) float64 { return float64(r.Requests) }},
	{Name: "succeeded", JSON: "succeeded", Unit: Count, Series: "goodput",
		Doc: "requests answered 200 in time",
		Of:  func(r *Run) float64 { return float64(r.Succeeded) }},
	{Name: "failed", JSON: "failed", Unit: Count, Dashboard: "failed", Series: "failed",
		Doc: "requests that did not succeed",
		Of:  func(r *Run) float64 { return float64(r.Failed) }},
	{Name: "attempts", JSON: "attempts", Unit: Count, Series: "attempts",
		Doc: "every try: first attempts, retries and hedges",
		Of:  func(r *Run) float64 { return float64(r.Attempts) }},
	{Name: "timeouts", JSON: "timeouts", Head: "timeouts", Unit: Count, Seeds: true, Dashboard: "timeouts", Series: "timeouts",
		Doc: "attempts that timed out (504 from the balancer, or a client attempt timeout) plus requests whose deadline passed",
		Of:  func(r *Run) float64 { return float64(r.Timeouts) }},
	{Name: "rejected", JSON: "rejected", Head: "503s", Unit: Count, Seeds: true, Dashboard: "rejected", Series: "rejected",
		Label: "rejections",
		Doc:   "attempts answered 503",
		Of:    func(r *Run) float64 { return float64(r.Rejected) }},
	{Name: "errors", JSON: "errors", Head: "5xx", Unit: Count, Seeds: true, Dashboard: "errors",
		Doc: "attempts answered 500 or 502 (refused or reset connections too)",
		Of:  func(r *Run) float64 { return float64(r.Errors) }},
	{Name: "retries", JSON: "retries", Head: "retries", Unit: Count, Seeds: true, Dashboard: "retries", Series: "retries",
		Doc: "retry attempts",
		Of:  func(r *Run) float64 { return float64(r.Retries) }},
	{Name: "hedges", JSON: "hedges", Head: "hedges", Unit: Count, Seeds: true, Dashboard: "hedges",
		Doc: "hedge attempts",
		Of:  func(r *Run) float64 { return float64(r.Hedges) }},
	{Name: "wasted", JSON: "wasted", Head: "wasted", Unit: Count, Seeds: true, Dashboard: "wasted",
		Doc: "attempts a server served although nobody used the answer",
		Of:  func(r *Run) float64 { return float64(r.Wasted) }},
	{Name: "cross_zone_requests", JSON: "cross_zone.request_share", Head: "x-zone-req", Unit: Share, Seeds: true, Optional: true,
		Label: "cross-zone requests", Has: zonesAny,
		Doc: "the share of the requests with an attempt that crossed a zone (client -> balancer, balancer -> server, or client -> server when clients balance themselves); only in a lab with zones",
		Of:  func(r *Run) float64 { return r.crossShare(false) }},
	{Name: "cross_zone_attempts", JSON: "cross_zone.attempt_share", Head: "x-zone-att", Unit: Share, Seeds: true, Optional: true,
		Dashboard: "cross_zone_share",
		Has:       zonesAny,
		Label:     "cross-zone attempts", Doc: "the share of the attempts that crossed a zone on one of those hops; only in a lab with zones",
		Of: func(r *Run) float64 { return r.crossShare(true) }},
	{Name: "probes_per_request", JSON: "probes.per_request", Unit: PerRequest, Has: probesAny,
		Doc: "probes / requests: what a probing algorithm's probes (prequal) cost; its own table, beside the probes the servers answered",
		Of:  func(r *Run) float64 { return r.ProbesPerRequest() }},
	{Name: "announcements_per_request", JSON: "announcements.per_request", Unit: PerRequest, Has: idleAny,
		Doc: "idle announcements / requests: what an idle-queue algorithm's announcements (jiq) cost; its own table, beside the share of picks that found an idle server",
		Of:  func(r *Run) float64 { return r.AnnouncementsPerRequest() }},
	{Name: "idle_share", JSON: "announcements.idle_share", Unit: Share, Higher: true, Has: idleAny,
		Doc: "picks that took an idle server off an idle queue / picks (jiq; the others drew at random); in the idle announcements' table",
		Of:  func(r *Run) float64 { return r.IdleShare() }},
	{Name: "cache_hit_ratio", Unit: Share, Higher: true, Seeds: true,
		Doc: "the servers' cache hit ratio, weighted by their attempts (its own table, when a server caches keys)",
		Of:  func(r *Run) float64 { return r.HitRatio() }},
}

// FigureOf returns the figure called name.
func FigureOf(name string) (*FigureSpec, bool) {
	for i := range Figures {
		if Figures[i].Name == name {
			return &Figures[i], true
		}
	}
	return nil, false
}

// mustFigure is FigureOf for the names this package writes itself.
func mustFigure(name string) *FigureSpec {
	f, ok := FigureOf(name)
	if !ok {
		panic("report: no figure " + strconv.Quote(name))
	}
	return f
}

// tableFigures are the figures with a column in the text tables, in order.
func tableFigures() []*FigureSpec {
	var out []*FigureSpec
	for i := range Figures {
		if Figures[i].Head != "" {
			out = append(out, &Figures[i])
		}
	}
	return out
}

// shown reports whether a table of runs has figure f's column: always,
// unless it is Optional and none of them has it.
func (f *FigureSpec) shown(runs []Run) bool {
	if !f.Optional {
		return true
	}
	for i := range runs {
		if f.Has(&runs[i]) {
			return true
		}
	}
	return false
}

// seedFigures are the figures carried over seeds and sweeps, in order.
func seedFigures() []*FigureSpec {
	var out []*FigureSpec
	for i := range Figures {
		if Figures[i].Seeds {
			out = append(out, &Figures[i])
		}
	}
	return out
}
