package load

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// A server's answer to HAProxy's agent check (docs/model.md, "The agent
// check: a weight from the server's own report"): the weight a backend
// gives itself from its load report, in gRFC A58's spirit.
//
// A58's weight of a server is rps / (utilization + eps/rps x penalty): the
// rate it serves per unit of its busy capacity, that is the rate it would
// serve fully busy, lowered by its errors. That figure is the server's own:
// it needs nothing of the fleet. What a single server cannot know is the
// fleet's sum, and it need not: HAProxy's round robin sends each server
// weight / (sum of the weights) of the requests, so the proxy normalizes.
// The servers only have to answer in one unit, Scale (a rate in requests
// per second that answers 100%). lab passes every backend the fleet's mean
// nominal capacity as Scale, so a server as fast as the fleet's mean answers
// about 100%, and the answers' ratios are the measured capacities' ratios.
//
// HAProxy reads an answer "P%" relative to the server's initial weight; lab
// writes AgentInitialWeight (100) on each server line, so P is the server's
// weight, from AgentMinPercent to AgentMaxPercent (HAProxy's greatest
// weight). A58's blackout and expiration are kept: a weight counts only
// once reports have come for Blackout since the first of an unbroken run
// (one with no gap of Expiration or more), and until then, or when the run
// has expired, the server answers the initial weight (A58 weighs such a
// server as the mean of the others: Scale is the fleet's mean).

// The agent's answers, as percentages of the initial weight lab writes.
const (
	AgentInitialWeight = 100 // each server line's weight: an answer of P% makes its weight P
	AgentMinPercent    = 1   // the least an answer says: a server slower than that is still asked for work (0% would drain it)
	AgentMaxPercent    = 256 // HAProxy's greatest weight (it caps a larger one there)
)

// AgentConfig is how a server answers the agent check.
type AgentConfig struct {
	// Scale is the capacity, in requests per second at full utilization,
	// that answers 100% (lab: the fleet's mean nominal capacity).
	Scale float64
	// Penalty is A58's error_utilization_penalty.
	Penalty float64
	// Blackout and Expiration are A58's blackout_period and
	// weight_expiration_period.
	Blackout, Expiration time.Duration
}

// Agent is one server's agent-check answerer: the run of reports its
// weight counts from. It is handed each report as it answers (at rep.At).
type Agent struct {
	cfg         AgentConfig
	have        bool          // a run of reports is on
	since, last clock.Instant // the run's first report with a weight, and its last
	capacity    float64       // the last report's capacity (Capacity)
}

// NewAgent returns an agent that answers by cfg.
func NewAgent(cfg AgentConfig) *Agent { return &Agent{cfg: cfg} }

// Capacity is A58's weight of report r: rps / (utilization + eps/rps x
// penalty), the rate the server serves per unit of utilization lowered by
// its errors. ok is false for a report A58 reads past (no requests or no
// busy time in its window) and for one that is not Sane.
func Capacity(r Report, penalty float64) (float64, bool) {
	if !r.Valid || !r.Sane() || !(r.RPS > 0) || !(r.Utilization > 0) {
		return 0, false
	}
	return r.RPS / (r.Utilization + r.EPS/r.RPS*penalty), true
}

// Percent takes the server's report at rep.At and returns the weight it
// answers, as a percentage of AgentInitialWeight: AgentInitialWeight while
// no weight counts (no report with a capacity yet, the blackout, an
// expired run), else 100 x capacity / Scale rounded, within
// [AgentMinPercent, AgentMaxPercent].
func (a *Agent) Percent(rep Report) int {
	now := rep.At
	if c, ok := Capacity(rep, a.cfg.Penalty); ok {
		if !a.have || now.Sub(a.last) >= a.cfg.Expiration {
			a.since = now // a new run
		}
		a.have, a.last, a.capacity = true, now, c
	} else if a.have && now.Sub(a.last) >= a.cfg.Expiration {
		a.have = false
	}
	if !a.have || now.Sub(a.since) < a.cfg.Blackout || !(a.cfg.Scale > 0) {
		return AgentInitialWeight
	}
	p := math.Round(AgentInitialWeight * a.capacity / a.cfg.Scale)
	return int(min(max(p, AgentMinPercent), AgentMaxPercent))
}
