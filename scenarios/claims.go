package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
)

// A Claim is one statement of a scenario's narration, checked on a report
// of that scenario: one seed's runs, from the simulator or from the live
// lab alike (they share the report). The claims below are the one
// declaration of what each narration says; the scenario tests
// (internal/sim) and `lab claims` / `lab sim --claims` both evaluate them.
type Claim struct {
	// Phase is when it holds: before, during or after the scenario's
	// trigger (its script), or throughout for a lab without one.
	Phase Phase
	// Says is the narration's words the claim checks.
	Says string
	// Checks says, in a few words, what is measured.
	Checks string
	// Some marks a claim that holds on some seeds only (docs/scenarios.md
	// says which): the tests assert it on the lab's own seed only.
	Some  bool
	check func(f *facts)
}

// Phase is when a claim holds, relative to the scenario's trigger.
type Phase string

// The phases.
const (
	Before     Phase = "before"
	During     Phase = "during"
	After      Phase = "after"
	Throughout Phase = "throughout"
)

// Result is a claim checked on one report: Err is nil when it holds,
// wraps report.ErrUnmeasured when the report cannot tell (no series, a
// setting or a figure missing), and says why otherwise.
type Result struct {
	Claim
	Err error
}

// Holds reports whether the claim held.
func (r Result) Holds() bool { return r.Err == nil }

// Unmeasured reports whether the report could not tell.
func (r Result) Unmeasured() bool { return errors.Is(r.Err, report.ErrUnmeasured) }

// Claims returns the claims of the scenario called name (nil for a name
// without any, such as a lab file of the user's).
func Claims(name string) []Claim { return claims()[name] }

// Check evaluates every claim of scenario name on rep (one seed's report,
// with its series for the claims that need them).
func Check(name string, rep *report.Report) ([]Result, error) {
	cs := Claims(name)
	if cs == nil {
		return nil, fmt.Errorf("no claims for %q (scenarios with claims: %s)", name, strings.Join(Names(), ", "))
	}
	data, err := Get(name)
	if err != nil {
		return nil, err
	}
	lab, err := labyaml.Parse(name+".yaml", data)
	if err != nil {
		return nil, err
	}
	out := make([]Result, len(cs))
	for i, c := range cs {
		f := &facts{rep: rep, lab: lab}
		c.check(f)
		out[i] = Result{Claim: c, Err: f.err}
	}
	return out, nil
}

// facts is what a claim reads from a report; the first problem sticks.
type facts struct {
	rep *report.Report
	lab *labfile.Lab
	err error
}

// run returns setting name's run; a report without it cannot tell.
func (f *facts) run(name string) *report.Run {
	if r := f.rep.Find(name); r != nil {
		return r
	}
	f.fail(fmt.Errorf("no setting %q in the report: %w", name, report.ErrUnmeasured))
	return &report.Run{Name: name}
}

func (f *facts) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// want records a failure unless ok.
func (f *facts) want(ok bool, format string, a ...any) {
	if !ok {
		f.fail(fmt.Errorf(format, a...))
	}
}

// at is the instant (s) of the script's i-th event: the lab file says when
// its trigger comes, once.
func (f *facts) at(i int) float64 {
	if i >= len(f.lab.Events) {
		f.fail(fmt.Errorf("the lab has no event %d", i))
		return 0
	}
	return f.lab.Events[i].At.Seconds()
}

// until is the instant (s) the script's i-th event ends: At + For (At for
// an event that is not time-boxed).
func (f *facts) until(i int) float64 {
	if i >= len(f.lab.Events) {
		return f.at(i)
	}
	return (f.lab.Events[i].At + f.lab.Events[i].For).Seconds()
}

// meanWait is setting name's mean latency (ms) less what a request takes
// with no wait: the lab's mean work and its four hops (client -> balancer
// -> server and back, each the hop and half the jitter on average), for a
// setting that changes neither.
func (f *facts) meanWait(name string) float64 {
	hop := f.lab.Network.Hop + f.lab.Network.Jitter/2
	floor := f.lab.Clients.Work.Mean + 4*hop
	return f.run(name).Latency.Mean - float64(floor)/float64(time.Millisecond)
}

// end is the run's length (s).
func (f *facts) end() float64 { return f.rep.DurationS }

// window is setting name's series over [from, to) seconds.
func (f *facts) window(name string, from, to float64) report.Window {
	w, err := f.run(name).Window(from, to)
	if err != nil {
		f.fail(err)
	}
	return w
}

// healthy wants every bin of [from, to) of each setting to have at least
// 95% of its ended requests succeed, and as many of the window's.
func (f *facts) healthy(from, to float64, names ...string) {
	for _, n := range names {
		w := f.window(n, from, to)
		f.want(w.WorstBin >= 0.95, "%s: a bin between %g and %g s has goodput %.3f, want >= 0.95 in every bin", n, from, to, w.WorstBin)
		f.want(w.Goodput() >= 0.95, "%s: goodput %.3f between %g and %g s, want >= 0.95", n, w.Goodput(), from, to)
	}
}

// settings is every setting of the report, in its order.
func (f *facts) settings() []string {
	var out []string
	for _, r := range f.rep.Runs {
		out = append(out, r.Name)
	}
	return out
}

// share is server's share of setting name's attempts.
func (f *facts) share(name, server string) float64 {
	r := f.run(name)
	for _, s := range r.Servers {
		if s.Name == server {
			return s.Share
		}
	}
	f.fail(fmt.Errorf("%s: no server %q: %w", name, server, report.ErrUnmeasured))
	return 0
}

// server is the index of server in setting name's servers.
func (f *facts) server(name, server string) int {
	for i, s := range f.run(name).Servers {
		if s.Name == server {
			return i
		}
	}
	f.fail(fmt.Errorf("%s: no server %q: %w", name, server, report.ErrUnmeasured))
	return 0
}

// inServer is the most requests server held at a bin's end in [from, to).
func (f *facts) inServer(name, server string, from, to float64) int {
	n, err := f.run(name).InServerMax(f.server(name, server), from, to)
	if err != nil {
		f.fail(err)
	}
	return n
}

// p99 is setting name's p99 over the whole run (ms).
func (f *facts) p99(name string) float64 { return f.run(name).Latency.P99 }

// busiest is the largest server share of setting name.
func (f *facts) busiest(name string) float64 {
	most := 0.0
	for _, s := range f.run(name).Servers {
		most = math.Max(most, s.Share)
	}
	return most
}

// spread is the coefficient of variation of setting name's server shares.
func (f *facts) spread(name string) float64 { return f.run(name).ShareSpread() }

// peers is the least and most balancers (or clients) a server of setting
// name talked to; only the simulator counts them.
func (f *facts) peers(name string) (lo, hi int) {
	r := f.run(name)
	lo = math.MaxInt
	for _, s := range r.Servers {
		lo, hi = min(lo, s.Peers), max(hi, s.Peers)
	}
	if hi == 0 {
		f.fail(fmt.Errorf("%s: no peer counts (the simulator's): %w", name, report.ErrUnmeasured))
	}
	return lo, hi
}

// keysMoved is the share of keys setting name moved when its server set
// changed (nil: none); only the simulator counts them (it knows every
// key's owner before and after).
func (f *facts) keysMoved(name string) *report.KeysMoved {
	k := f.run(name).KeysMoved
	if k == nil {
		f.fail(fmt.Errorf("%s: no keys moved (the simulator's): %w", name, report.ErrUnmeasured))
	}
	return k
}

// logAt is the first log line of setting name starting with prefix (see
// logText), and its instant; ok false when there is none.
func (f *facts) logAt(name, prefix string) (t float64, text string, ok bool) {
	for _, l := range f.run(name).Log {
		if s := logText(l.Text); strings.HasPrefix(s, prefix) {
			return l.T, s, true
		}
	}
	return 0, "", false
}

// logs is setting name's log lines starting with prefix, prefix cut.
func (f *facts) logs(name, prefix string) []report.LogLine {
	var out []report.LogLine
	for _, l := range f.run(name).Log {
		if s, ok := strings.CutPrefix(logText(l.Text), prefix); ok {
			out = append(out, report.LogLine{T: l.T, Text: s})
		}
	}
	return out
}

// logText is a log line without the balancer a live lab names first
// ("lb1: breaker s2: closed -> open"); the simulator's balancers share one
// log line per event and name none.
func logText(s string) string {
	if who, rest, ok := strings.Cut(s, ": "); ok && strings.HasPrefix(who, "lb") && !strings.Contains(who, " ") {
		return rest
	}
	return s
}

// serverWaste marks a claim on the work servers did for nobody, which
// only the simulator sees whole: live, the loadgen counts the answers it
// received and threw away, not the work a server finished after the
// balancer had answered 504 or the client had stopped waiting.
func (f *facts) serverWaste() {
	if f.rep.Mode == "live" {
		f.fail(fmt.Errorf("live reports do not count the work servers finish after nobody waits: %w", report.ErrUnmeasured))
	}
}

// connections is setting name's connection figures, which a lab that
// models connections reports.
func (f *facts) connections(name string) report.Connections {
	c := f.run(name).Connections
	if c == nil {
		f.fail(fmt.Errorf("%s: no connection figures: %w", name, report.ErrUnmeasured))
		return report.Connections{}
	}
	return *c
}
