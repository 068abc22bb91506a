package torture

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/sim"
)

// Verdict is what one lab's run came to.
type Verdict int

const (
	Passed    Verdict = iota
	Invalid           // labyaml.Parse refused a drawn lab: a generator bug
	Violation         // sim --check found a broken invariant
	Refused           // the simulator refused a script event the validator accepted
	Overflow          // the memory guard stopped the run: work piled up without bound
	Crashed           // the simulator panicked
	Unstable          // the same lab and seed gave two different reports
	RoundTrip         // labyaml.Marshal wrote a file that parses to another lab
	Uncosted          // the lab did or held far more than the cost estimate counts
)

func (v Verdict) String() string {
	return append([]string{"passed", "invalid lab (generator bug)", "invariant violated", "event refused",
		"memory guard", "panic", "nondeterministic", "marshal round trip", "cost estimate"}, liveVerdicts...)[v]
}

// options are the simulator's for every drawn lab: every invariant
// checked, and a memory guard well below the default, since a drawn lab
// never holds more than a few tens of thousands of requests (8,000/s for at
// most 7 s): a lab that runs away is stopped in a second, not ten.
var options = sim.Options{Check: true, MaxPending: 200_000}

// The cost estimate's calibration: a drawn lab may fire at most
// assemble.EstimateSlack times the simulator events assemble.Estimate counts,
// plus assemble.EstimateFloor (a lab of a few requests whose health checks
// and timers dominate). Over seeds 1-4,000 the largest ratio is 2.8
// (docs/labfile.md, "Cost budget").

// Outcome is one lab's run.
type Outcome struct {
	Verdict  Verdict
	Detail   string // what failed, for a failure
	Requests uint64
	Events   uint64
	Work     float64 // what the run did and held at its most (sim.Result)
	Memory   float64
	Estimate assemble.Cost // the lab's cost estimate
	Log      []string      // the run's event log (chaos applied, breakers, health)
}

// Failed reports whether the lab found a bug.
func (o Outcome) Failed() bool { return o.Verdict != Passed }

// Check parses the lab tree and runs it in the simulator with every
// invariant checked. A panic is caught and reported, so one bad lab does
// not end a whole torture run. With deep, it also checks that the lab
// survives labyaml.Marshal and Parse unchanged (how lab run hands a lab to
// its processes) and that a second run gives the same report.
func Check(name string, tree Map, deep bool) (out Outcome) {
	lab, err := labyaml.Parse(name, tree.YAML())
	if err != nil {
		return Outcome{Verdict: Invalid, Detail: err.Error()}
	}
	defer func() {
		if p := recover(); p != nil {
			out = Outcome{Verdict: Crashed, Detail: fmt.Sprintf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	if deep {
		if detail := roundTrip(name, lab); detail != "" {
			return Outcome{Verdict: RoundTrip, Detail: detail}
		}
	}
	if len(lab.Compare) > 0 { // one of its settings, by seed (the others are validated only)
		if lab, err = lab.WithSetting(settingOf(lab)); err != nil {
			return Outcome{Verdict: Invalid, Detail: err.Error()}
		}
	}
	res, err := sim.Run(lab, options)
	var overflow *sim.OverflowError
	switch {
	case errors.As(err, &overflow):
		return Outcome{Verdict: Overflow, Detail: err.Error()}
	case err != nil:
		return Outcome{Verdict: Violation, Detail: err.Error()}
	}
	if deep {
		again, err := sim.Run(lab, options)
		if err != nil || !reflect.DeepEqual(res.Run, again.Run) {
			return Outcome{Verdict: Unstable, Detail: fmt.Sprintf("two runs of seed %d differ: %d and %d requests, %d and %d events, p99 %v and %v ms (%v)",
				lab.Seed, res.Run.Requests, again.Run.Requests, res.Run.Events, again.Run.Events, res.Run.Latency.P99, again.Run.Latency.P99, err)}
		}
	}
	out = Outcome{Requests: res.Run.Requests, Events: res.Run.Events, Work: res.Work, Memory: res.Memory}
	var detail string
	if out.Estimate, detail = Uncovered(lab, res); detail != "" {
		out.Verdict, out.Detail = Uncosted, detail
		return out
	}
	for _, l := range res.Run.Log {
		out.Log = append(out.Log, l.Text)
		if strings.HasPrefix(l.Text, "event ") && strings.Contains(l.Text, " failed: ") {
			out.Verdict, out.Detail = Refused, fmt.Sprintf("at %.3fs: %s", l.T, l.Text)
		}
	}
	return out
}

// Uncovered checks a simulator run of lab against the lab's cost estimate
// (assemble.Estimate), which the budget refuses labs on: it says how the
// run went past it ("" when it did not) — more than EstimateSlack times
// the events the estimate counts or the work (events and scanning picks'
// visits), beyond a small lab's few events, or more than MemorySlack
// times its memory at the run's most (sim.Result.Memory). Such a lab
// could slip past the budget.
func Uncovered(lab *labfile.Lab, res sim.Result) (assemble.Cost, string) {
	est := assemble.Estimate(lab, nil, true)
	switch {
	case float64(res.Run.Events) > assemble.EstimateSlack*est.Events+assemble.EstimateFloor:
		return est, fmt.Sprintf("the lab fired %d simulator events, over %d times the %.0f the cost estimate counts", res.Run.Events, assemble.EstimateSlack, est.Events)
	case res.Work > assemble.EstimateSlack*est.Work()+assemble.EstimateFloor:
		return est, fmt.Sprintf("the lab did %.0f event-equivalents of work (events and scanning picks' visits), over %d times the %.0f the cost estimate counts", res.Work, assemble.EstimateSlack, est.Work())
	case res.Memory > assemble.MemorySlack*est.Memory:
		return est, fmt.Sprintf("the lab held %s at its most, over %g times the %s the cost estimate counts", assemble.Bytes(res.Memory), assemble.MemorySlack, assemble.Bytes(est.Memory))
	}
	return est, ""
}

var digits = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// Signature is a failure's kind: its verdict and the first line of what
// failed with the numbers taken out, so a shrunk lab keeps failing the same
// way rather than finding another bug on the way down.
func (o Outcome) Signature() string {
	first := o.Detail
	if o.Verdict == Violation {
		// "invariants violated in "x":\n  at 1.2s: what" -> "what"
		lines := strings.Split(o.Detail, "\n")
		if len(lines) > 1 {
			first = lines[1]
		}
		if i := strings.Index(first, ": "); i >= 0 {
			first = first[i+2:]
		}
	}
	first, _, _ = strings.Cut(first, "\n")
	if o.Verdict == Crashed {
		first, _, _ = strings.Cut(first, "[")
	}
	return o.Verdict.String() + ": " + digits.ReplaceAllString(strings.TrimSpace(first), "#")
}

// roundTrip returns what differs when lab is marshalled and parsed back,
// or "".
func roundTrip(name string, lab *labfile.Lab) string {
	data, err := labyaml.Marshal(lab)
	if err != nil {
		return err.Error()
	}
	again, err := labyaml.Parse(name+" (marshalled)", data)
	if err != nil {
		return fmt.Sprintf("the marshalled lab does not parse: %v", err)
	}
	if !reflect.DeepEqual(lab, again) {
		return fmt.Sprintf("the marshalled lab parses to another lab:\n%s", data)
	}
	return ""
}
