package loadgen

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/metrics"
)

// eventKinds are the loadgen's lblab_events_total kinds: admin rate and set
// changes, and client-side breaker transitions.
var eventKinds = []string{"breaker", "rate", "set"}

// newMetrics builds the run's metrics before its targets, which resolve
// their series from it.
func (r *Runner) newMetrics() {
	r.met = metrics.NewLoadgen(r.budgets, eventKinds)
	r.l.obs, r.l.note = r.met, r.met
}

// budgets asks the loop, which owns the client policies, for each target's
// retry budget; nothing while the run is not going.
func (r *Runner) budgets() []metrics.TargetState {
	select {
	case <-r.running:
	default:
		return nil
	}
	ts, _ := r.ask(command{op: "metrics"}).body.([]metrics.TargetState)
	return ts
}

// targetStates is the "metrics" command's answer (on the loop).
func (l *loop) targetStates(clock.Instant) []metrics.TargetState {
	out := make([]metrics.TargetState, len(l.targets))
	for i, t := range l.targets {
		out[i].Name = t.name
		if b := t.rt.Policy().Budget; b != nil {
			out[i].Budget, out[i].Tokens = true, b.Tokens()
		}
	}
	return out
}
