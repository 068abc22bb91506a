package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lblab/lblab/internal/observe"
)

// TargetState is one loadgen target at scrape time.
type TargetState struct {
	Name   string
	Budget bool    // the clients have a retry budget
	Tokens float64 // ... and this many tokens in it
}

// succeeded is policy.Succeeded: only successful requests have a latency
// worth a histogram (docs/metrics.md).
const succeeded = 1

// Loadgen is the metrics of one load generator.
type Loadgen struct {
	registry
	events
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	attempts *prometheus.CounterVec
	results  *prometheus.CounterVec
	wasted   *prometheus.CounterVec
	crossedR *prometheus.CounterVec
	crossedA *prometheus.CounterVec
	late     prometheus.Counter
}

var _ observe.Clients = (*Loadgen)(nil)
var _ observe.Events = (*Loadgen)(nil)

// NewLoadgen builds the loadgen's metrics. targets is called at each scrape
// (nil or empty while no run is going); eventKinds are created up front.
func NewLoadgen(targets func() []TargetState, eventKinds []string) *Loadgen {
	m := &Loadgen{registry: newRegistry()}
	m.events = newEvents(m.reg, eventKinds)
	m.requests = counterVec("lblab_client_requests_total", "Requests ended, by outcome.", "target", "outcome")
	m.latency = prometheus.NewHistogramVec(histogramOpts("lblab_client_latency_seconds",
		"Latency of successful requests, from the intended send time."), []string{"target"})
	m.attempts = counterVec("lblab_client_attempts_total", "Attempts sent, by kind.", "target", "kind")
	m.results = counterVec("lblab_client_attempt_results_total", "Attempt results the requests used.", "target", "result")
	m.wasted = counterVec("lblab_client_wasted_total", "Attempts served whose answer nobody used.", "target")
	m.crossedR = counterVec("lblab_client_cross_zone_requests_total", "Requests ended with an attempt that crossed a zone.", "target")
	m.crossedA = counterVec("lblab_client_cross_zone_attempts_total", "Attempts that crossed a zone.", "target")
	m.late = prometheus.NewCounter(prometheus.CounterOpts{Name: "lblab_client_late_sends_total",
		Help: "Requests started more than the allowed lag (10 ms) behind their intended time."})
	m.reg.MustRegister(m.requests, m.latency, m.attempts, m.results, m.wasted, m.crossedR, m.crossedA, m.late, budgetCollector(targets))
	return m
}

func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// LateSend counts a request started late.
func (m *Loadgen) LateSend() { m.late.Inc() }

// Requests resolves the target's request series once.
func (m *Loadgen) Requests(target string) observe.Requests {
	r := &requests{latency: m.latency.WithLabelValues(target), crossed: m.crossedR.WithLabelValues(target)}
	for o := 1; o < nOutcomes; o++ {
		r.ended[o] = m.requests.WithLabelValues(target, outcomeLabels[o])
	}
	return r
}

// Attempts resolves the target's attempt series once.
func (m *Loadgen) Attempts(target string) observe.Attempts {
	a := &attempts{wasted: m.wasted.WithLabelValues(target), crossed: m.crossedA.WithLabelValues(target)}
	for k := range clientKinds {
		a.sent[k] = m.attempts.WithLabelValues(target, kindLabels[k])
	}
	for r := range nResults {
		a.answered[r] = m.results.WithLabelValues(target, resultLabels[r])
	}
	return a
}

type requests struct {
	ended   [nOutcomes]prometheus.Counter // [0], Pending, stays nil
	latency prometheus.Observer
	crossed prometheus.Counter
}

func (r *requests) RequestCrossed() { r.crossed.Inc() }

func (r *requests) RequestEnded(outcome int, latency time.Duration) {
	if outcome <= 0 || outcome >= nOutcomes {
		return
	}
	r.ended[outcome].Inc()
	if outcome == succeeded {
		r.latency.Observe(latency.Seconds())
	}
}

// clientKinds are the kinds a client sends: first, retry, hedge (a probe is
// a balancer's, even a client-side one's, and is counted as what it was).
const clientKinds = 3

type attempts struct {
	sent     [clientKinds]prometheus.Counter
	answered [nResults]prometheus.Counter
	wasted   prometheus.Counter
	crossed  prometheus.Counter
}

func (a *attempts) AttemptSent(kind int) {
	if in(kind, clientKinds) {
		a.sent[kind].Inc()
	}
}

func (a *attempts) AttemptAnswered(result int) {
	if in(result, nResults) {
		a.answered[result].Inc()
	}
}

func (a *attempts) Wasted() { a.wasted.Inc() }

func (a *attempts) Crossed() { a.crossed.Inc() }

// budgetCollector reads the retry budgets at scrape time; a target without
// a budget has no series.
func budgetCollector(targets func() []TargetState) prometheus.Collector {
	tokens := desc("lblab_client_retry_budget_tokens", "Tokens in the retry budget (absent without a budget).", "target")
	return &stateCollector{
		descs: []*prometheus.Desc{tokens},
		collect: func(ch chan<- prometheus.Metric) {
			for _, t := range targets() {
				if t.Budget {
					ch <- gauge(tokens, t.Tokens, t.Name)
				}
			}
		},
	}
}
