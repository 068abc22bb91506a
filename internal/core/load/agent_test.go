package load

import (
	"math"
	"testing"
	"time"
)

// rep is a report at ms with rps, utilization and eps.
func rep(ms int, rps, util, eps float64) Report {
	return Report{At: at(ms), Valid: true, RPS: rps, Utilization: util, EPS: eps}
}

// A58's weight: the rate served per unit of utilization, lowered by the
// errors; a report with no requests or no busy time, or not sane, has none.
func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		r       Report
		penalty float64
		want    float64
		ok      bool
	}{
		{rep(0, 100, 0.5, 0), 1, 200, true},
		{rep(0, 100, 0.5, 10), 1, 100 / (0.5 + 0.1), true},
		{rep(0, 100, 0.5, 10), 0, 200, true},
		{rep(0, 100, 0.5, 10), 2, 100 / (0.5 + 0.2), true},
		{rep(0, 0, 0.5, 0), 1, 0, false},
		{rep(0, 100, 0, 0), 1, 0, false},
		{Report{RPS: 100, Utilization: 0.5}, 1, 0, false}, // not sent
		{rep(0, math.Inf(1), 0.5, 0), 1, 0, false},
		{rep(0, 100, 0.5, math.NaN()), 1, 0, false},
	} {
		got, ok := Capacity(tc.r, tc.penalty)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Capacity(%+v, %g) = %g %v, want %g %v", tc.r, tc.penalty, got, ok, tc.want, tc.ok)
		}
	}
}

// The agent's answer: the initial weight until a weight counts, then the
// capacity in Scale's unit, within HAProxy's range; the blackout and the
// expiration as A58 has them.
func TestAgentPercent(t *testing.T) {
	a := NewAgent(AgentConfig{Scale: 300, Penalty: 1, Blackout: time.Second, Expiration: 3 * time.Second})
	steps := []struct {
		r    Report
		want int
		why  string
	}{
		{rep(0, 0, 0, 0), 100, "no report with a capacity yet"},
		{rep(100, 200, 0.5, 0), 100, "the run starts: blacked out"},
		{rep(1000, 200, 0.5, 0), 100, "900 ms into the run: still blacked out"},
		{rep(1100, 200, 0.5, 0), 133, "1 s into the run: 400/300 of the scale"},
		{rep(1200, 100, 0.5, 0), 67, "half the capacity (a slowed server)"},
		{rep(1300, 100, 0.5, 100), 22, "every request failing: 100 / (0.5 + 1 x penalty), over 300"},
		{rep(2000, 0, 0, 0), 22, "an idle window: the last weight holds"},
		{rep(4299, 0, 0, 0), 22, "just under the expiration since the last report"},
		{rep(4300, 0, 0, 0), 100, "expired: the initial weight"},
		{rep(4400, 100, 0.5, 0), 100, "a new run: blacked out again"},
		{rep(5400, 100, 0.5, 0), 67, "its blackout over"},
		{rep(5500, 100_000, 0.5, 0), 256, "over HAProxy's greatest weight: 256"},
		{rep(5600, 1, 0.5, 0), 1, "a trickle: at least 1 (0% would drain the server)"},
	}
	for _, s := range steps {
		if got := a.Percent(s.r); got != s.want {
			t.Errorf("at %v (%s): %d%%, want %d%%", s.r.At, s.why, got, s.want)
		}
	}
	// a report after a gap of the expiration starts a run, even when no
	// answer in between saw the weight expire
	b := NewAgent(AgentConfig{Scale: 100, Penalty: 1, Blackout: time.Second, Expiration: 3 * time.Second})
	for _, s := range []struct {
		r    Report
		want int
	}{{rep(0, 100, 1, 0), 100}, {rep(1000, 100, 1, 0), 100}, {rep(4000, 50, 1, 0), 100}, {rep(5000, 50, 1, 0), 50}} {
		if got := b.Percent(s.r); got != s.want {
			t.Errorf("after a gap, at %v: %d%%, want %d%%", s.r.At, got, s.want)
		}
	}
	// no blackout: the first report counts; a scale of 0 answers the
	// initial weight rather than dividing by it
	c := NewAgent(AgentConfig{Scale: 100, Penalty: 1, Expiration: time.Minute})
	if got := c.Percent(rep(0, 30, 0.2, 0)); got != 150 {
		t.Errorf("no blackout: %d%%, want 150%%", got)
	}
	if got := NewAgent(AgentConfig{Penalty: 1, Expiration: time.Minute}).Percent(rep(0, 30, 0.2, 0)); got != AgentInitialWeight {
		t.Errorf("scale 0: %d%%, want the initial weight", got)
	}
}
