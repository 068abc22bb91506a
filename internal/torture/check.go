package torture

import (
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/sim"
)

// Verdict is what one lab's run came to.
type Verdict int

const (
	Passed    Verdict = iota
	Invalid           // labfile.Parse refused a drawn lab: a generator bug
	Violation         // sim --check found a broken invariant
	Refused           // the simulator refused a script event the validator accepted
	Overflow          // the memory guard stopped the run: work piled up without bound
	Crashed           // the simulator panicked
)

func (v Verdict) String() string {
	return [...]string{"passed", "invalid lab (generator bug)", "invariant violated", "event refused",
		"memory guard", "panic"}[v]
}

// Outcome is one lab's run.
type Outcome struct {
	Verdict  Verdict
	Detail   string // what failed, for a failure
	Requests uint64
	Events   uint64
	Log      []string // the run's event log (chaos applied, breakers, health)
}

// Failed reports whether the lab found a bug.
func (o Outcome) Failed() bool { return o.Verdict != Passed }

// Check parses the lab tree and runs it in the simulator with every
// invariant checked. A panic is caught and reported, so one bad lab does
// not end a whole torture run.
func Check(name string, tree Map) (out Outcome) {
	lab, err := labfile.Parse(name, tree.YAML())
	if err != nil {
		return Outcome{Verdict: Invalid, Detail: err.Error()}
	}
	defer func() {
		if p := recover(); p != nil {
			out = Outcome{Verdict: Crashed, Detail: fmt.Sprintf("panic: %v\n%s", p, debug.Stack())}
		}
	}()
	res, err := sim.Run(lab, sim.Options{Check: true})
	var overflow *sim.OverflowError
	switch {
	case errors.As(err, &overflow):
		return Outcome{Verdict: Overflow, Detail: err.Error()}
	case err != nil:
		return Outcome{Verdict: Violation, Detail: err.Error()}
	}
	out = Outcome{Requests: res.Run.Requests, Events: res.Run.Events}
	for _, l := range res.Run.Log {
		out.Log = append(out.Log, l.Text)
		if strings.HasPrefix(l.Text, "event ") && strings.Contains(l.Text, " failed: ") {
			out.Verdict, out.Detail = Refused, fmt.Sprintf("at %.3fs: %s", l.T, l.Text)
		}
	}
	return out
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
