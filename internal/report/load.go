package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Load is what a load tool says about a live run (the loadgen fills it; the
// simulator has none): the target, how many requests went out and how fast,
// every answer by status code and every failed exchange by kind, where the
// time went, and whether the generator kept up.
type Load struct {
	Target      string `json:"target"`      // the URL(s) loaded, "|" between a tier's balancers
	Connections int    `json:"connections"` // the bound on connections per endpoint
	// Rate is the open-loop rate aimed at, requests/s over the run (0 in
	// closed loop); Due the requests of the stream due before the end.
	Rate float64 `json:"rate"`
	Due  uint64  `json:"due"`
	// Sent is the requests started (the run's requests); SendingS the time
	// from the start to the last of them (at least the run's duration), and
	// AchievedRate = Sent / SendingS.
	Sent         uint64  `json:"sent"`
	SendingS     float64 `json:"sending_s"`
	AchievedRate float64 `json:"achieved_rate"`
	// Latency is the successful requests' time from their intended start to
	// their answer (what a user of the service waits, generator included);
	// Service is every HTTP answer's time from the moment its attempt was
	// sent (what the service took); the difference is the generator's.
	Latency     LoadLatency       `json:"latency_ms"`
	Service     LoadLatency       `json:"service_ms"`
	StatusCodes map[int]uint64    `json:"status_codes"` // HTTP answers of every attempt, by status
	ErrorKinds  map[string]uint64 `json:"error_kinds"`  // attempts that got no HTTP answer, by kind (ErrorKinds)
	Generator   Generator         `json:"generator"`
}

// The kinds of failed exchange in Load.ErrorKinds.
const (
	ErrRefused   = "connection refused"
	ErrReset     = "connection reset" // reset, or closed before the answer
	ErrTimeout   = "timeout"          // connecting or waiting for the answer
	ErrTLS       = "tls"
	ErrDNS       = "dns"
	ErrNoConn    = "no free connection"
	ErrOtherKind = "other"
	// ErrCutOff is an attempt still without an answer when the run ended
	// (the drain limit, or the short drain after an interrupt): a service
	// that hangs, or answers half and stops.
	ErrCutOff = "no answer by the end"
)

// LoadLatency is a latency distribution in milliseconds.
type LoadLatency struct {
	Count uint64  `json:"count"`
	Min   float64 `json:"min"`
	Mean  float64 `json:"mean"`
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	P999  float64 `json:"p999"`
	Max   float64 `json:"max"`
}

// LateAfter is how far behind its intended instant a request may start
// before the loadgen counts it late (Pacing.Late).
const LateAfter = 10 * time.Millisecond

// BehindShare is the share of the requests started late from which the
// generator counts as behind its schedule (Generator.Behind, the BEHIND
// warning): below it, a few late starts are the machine's noise, counted
// in the Pacing row and nowhere louder.
const BehindShare = 0.01

// IsBehind says whether a generator that started started requests, late
// of them late, and never started neverStarted of the stream's, fell
// behind its schedule: any request never started, or late starts that
// make BehindShare of the started.
func IsBehind(late, started, neverStarted uint64) bool {
	return neverStarted > 0 || late > 0 && float64(late) >= BehindShare*float64(started)
}

// Generator says whether the loadgen started its requests on time and, if
// not, why and which knob would help.
type Generator struct {
	// Behind: at least BehindShare of the requests started more than
	// LateAfter after their intended time, or some never started
	// (IsBehind).
	Behind bool `json:"behind"`
	// BehindAtEndMs is how late the last request started.
	BehindAtEndMs float64 `json:"behind_at_end_ms"`
	// WaitedForConnection counts requests that waited for a free
	// connection (every one of the bound was busy).
	WaitedForConnection uint64 `json:"waited_for_connection"`
	// NeverStarted counts requests of the stream still waiting when the
	// drain limit came: not in Sent.
	NeverStarted uint64 `json:"never_started"`
	// CPU is the share of its cores (GOMAXPROCS) the loadgen used.
	CPU   float64 `json:"cpu"`
	Cores int     `json:"cores"`
	// WaitedForCPUS is how long its threads waited for a CPU while ready
	// to run (Linux; 0 elsewhere): what a busy machine took from it.
	WaitedForCPUS float64 `json:"waited_for_cpu_s"`
	// Cause, when behind: "cpu" (the generator's own CPU was the limit),
	// "scheduling" (the machine did not run it on time: it waited for a
	// CPU, or nothing else explains it) or "connections" (every connection
	// busy: the service's answers took too long for the bound). Advice
	// names the knob.
	Cause  string `json:"cause,omitempty"`
	Advice string `json:"advice,omitempty"`
}

// WriteLoad prints the load tool's text report: one block per run, like
// vegeta's, for a run against a service that is not lblab's.
func (r *Report) WriteLoad(w io.Writer) error {
	for i, run := range r.Runs {
		if i > 0 {
			fmt.Fprintln(w)
		}
		if run.Load == nil {
			continue
		}
		writeLoad(w, r, &run)
	}
	return nil
}

func writeLoad(w io.Writer, r *Report, run *Run) {
	ld := run.Load
	row := func(name, fields, values string) { fmt.Fprintf(w, "%-13s %-40s %s\n", name, fields, values) }
	fmt.Fprintf(w, "target %s (%s)\n", ld.Target, run.Name)
	rate := "closed loop"
	if ld.Rate > 0 {
		rate = fmt.Sprintf("%.2f", ld.Rate)
	}
	row("Requests", "[sent, rate, achieved]", fmt.Sprintf("%d, %s, %.2f", ld.Sent, rate, ld.AchievedRate))
	row("Duration", "[run, sending]", durationRow(r.DurationS, ld.SendingS))
	lat := func(l LoadLatency) string {
		if l.Count == 0 {
			return "-"
		}
		return strings.Join([]string{dur(l.Min), dur(l.Mean), dur(l.P50), dur(l.P90), dur(l.P95), dur(l.P99), dur(l.Max)}, ", ")
	}
	row("Latencies", "[min, mean, 50, 90, 95, 99, max]", lat(ld.Latency)+"  (successes, from the intended start)")
	row("Service", "[min, mean, 50, 90, 95, 99, max]", lat(ld.Service)+"  (answers, from the send)")
	success := 0.0
	if run.Requests > 0 {
		success = 100 * float64(run.Succeeded) / float64(run.Requests)
	}
	row("Success", "[ratio]", fmt.Sprintf("%.2f%%", success)+unsuccessful(run.Outcomes))
	row("Status Codes", "[code:count]", codes(ld.StatusCodes))
	row("Errors", "[kind:count]", kinds(ld.ErrorKinds))
	if p := run.Pacing; p != nil {
		row("Pacing", "[late, 50, 99, max]", fmt.Sprintf("%d, %s, %s, %s  (behind the intended start)", p.Late, dur(p.P50), dur(p.P99), dur(p.Max)))
	}
	g := ld.Generator
	row("Generator", "[cpu, cores, cpu wait, conns, waited]", fmt.Sprintf("%.0f%%, %d, %.3fs, %d, %d",
		100*g.CPU, g.Cores, g.WaitedForCPUS, ld.Connections, g.WaitedForConnection))
	if g.Behind {
		fmt.Fprintf(w, "\n%s\n", BehindParagraph(run))
	}
}

// unsuccessful says how the requests that did not succeed ended, for the
// Success row: "  (203 timed out)" ("" when every request succeeded).
func unsuccessful(o Outcomes) string {
	var parts []string
	for _, p := range []struct {
		n    uint64
		what string
	}{{o.TimedOut, "timed out"}, {o.Failed, "failed"}, {o.Rejected, "rejected"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "  (" + strings.Join(parts, ", ") + ")"
}

// durationRow is the Duration row: the schedule's length and the time to
// the last request's start, both in seconds to the millisecond, and when
// sending ran past the schedule (the generator was behind at its end) by
// how much.
func durationRow(run, sending float64) string {
	text := fmt.Sprintf("%.3fs, %.3fs", run, sending)
	if over := sending - run; over >= 0.001 {
		text += fmt.Sprintf("  (the last request started %.3fs after the schedule's end)", over)
	}
	return text
}

// BehindParagraph is the BEHIND warning of run, wrapped to 78 columns (""
// when the generator kept up).
func BehindParagraph(run *Run) string {
	text := BehindText(run)
	if text == "" {
		return ""
	}
	return wrap("BEHIND: "+text, 78)
}

// BehindLine is the BEHIND warning in one short line: how many requests
// started late, of how many, and the worst ("" when the generator kept up).
func BehindLine(run *Run) string {
	if run.Load == nil || !run.Load.Generator.Behind || run.Pacing == nil {
		return ""
	}
	p, g := run.Pacing, run.Load.Generator
	text := fmt.Sprintf("behind its schedule: %d of %s started more than %v late (%.1f%%, the worst %s)",
		p.Late, Plural(p.Started, "request"), LateAfter, 100*float64(p.Late)/float64(max(p.Started, 1)), dur(p.Max))
	if g.NeverStarted > 0 {
		text += fmt.Sprintf("; %s never started", Plural(g.NeverStarted, "request"))
	}
	return text
}

// Plural writes n things, in the singular for one: "1 request", "2 requests".
func Plural(n uint64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// BehindText says how far the generator fell behind, why, and what would
// help ("" when it kept up).
func BehindText(run *Run) string {
	ld := run.Load
	if ld == nil || !ld.Generator.Behind {
		return ""
	}
	g := ld.Generator
	var b strings.Builder
	late := uint64(0)
	worst := 0.0
	if p := run.Pacing; p != nil {
		late, worst = p.Late, p.Max
	}
	started := late
	if p := run.Pacing; p != nil {
		started = p.Started
	}
	fmt.Fprintf(&b, "the loadgen started %d of %s more than %v after their intended time (%.1f%%; the worst %s), "+
		"and its last one %s after", late, Plural(started, "request"), LateAfter, 100*float64(late)/float64(max(started, 1)),
		dur(worst), dur(g.BehindAtEndMs))
	if ld.Rate > 0 {
		fmt.Fprintf(&b, "; it sent %d of the %d due, %.0f requests/s at a rate of %.0f", ld.Sent, ld.Due, ld.AchievedRate, ld.Rate)
	}
	if g.NeverStarted > 0 {
		fmt.Fprintf(&b, "; %s never started", Plural(g.NeverStarted, "request"))
	}
	if g.WaitedForConnection > 0 {
		fmt.Fprintf(&b, "; %s waited for a free connection", Plural(g.WaitedForConnection, "request"))
	}
	b.WriteString(". Latency counts from each intended start, so it includes that wait: the service's own time is the Service row. ")
	b.WriteString(g.Advice)
	return b.String()
}

func codes(m map[int]uint64) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d:%d", k, m[k])
	}
	return strings.Join(parts, "  ")
}

func kinds(m map[string]uint64) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, "  ")
}

// dur writes milliseconds as a load tool does: 87.3µs, 1.234ms, 2.041s.
func dur(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%.1fµs", v*1000)
	case v < 1000:
		return fmt.Sprintf("%.3fms", v)
	default:
		return fmt.Sprintf("%.3fs", v/1000)
	}
}
