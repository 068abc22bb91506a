package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/observe"
)

// BackendView is one present backend as a balancer sees it at scrape time.
type BackendView struct {
	Name        string
	Outstanding int
	EWMA        time.Duration // time-decayed latency estimate
	Breaker     breaker.State
	Healthy     bool
}

// LB is the metrics of one balancer process.
type LB struct {
	registry
	events
	balancer  string
	requests  *prometheus.CounterVec
	durations *prometheus.HistogramVec
	probes    *prometheus.CounterVec
	noBackend prometheus.Counter
}

var _ observe.Balancer = (*LB)(nil)
var _ observe.Events = (*LB)(nil)

// NewLB builds the metrics of the balancer called balancer. backends is
// called at each scrape; eventKinds are the event kinds created up front.
func NewLB(balancer string, backends func() []BackendView, eventKinds []string) *LB {
	m := &LB{registry: newRegistry(), balancer: balancer}
	m.events = newEvents(m.reg, eventKinds)
	labels := []string{"balancer", "backend"}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lblab_lb_requests_total",
		Help: "Attempts forwarded, by backend and outcome."}, []string{"balancer", "backend", "outcome"})
	m.durations = prometheus.NewHistogramVec(histogramOpts("lblab_lb_request_duration_seconds",
		"Time from forwarding an attempt to its answer (or 504)."), labels)
	m.probes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lblab_lb_probes_total",
		Help: "Half-open breaker probes sent."}, labels)
	noBackend := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lblab_lb_no_backend_total",
		Help: "Requests answered 503 because no backend was eligible."}, []string{"balancer"})
	m.noBackend = noBackend.WithLabelValues(balancer)
	m.reg.MustRegister(m.requests, m.durations, m.probes, noBackend, m.viewCollector(backends))
	return m
}

// NoBackend counts a request no backend could take.
func (m *LB) NoBackend() { m.noBackend.Inc() }

// Backend resolves the backend's series once; a backend removed and added
// again under its name gets the same series back.
func (m *LB) Backend(name string) observe.Forwards {
	f := &forwards{duration: m.durations.WithLabelValues(m.balancer, name),
		probes: m.probes.WithLabelValues(m.balancer, name)}
	for r := range nResults {
		f.answered[r] = m.requests.WithLabelValues(m.balancer, name, resultLabels[r])
	}
	return f
}

// forwards is one backend's pre-resolved series.
type forwards struct {
	answered [nResults]prometheus.Counter
	duration prometheus.Observer
	probes   prometheus.Counter
}

func (f *forwards) Answered(result int, d time.Duration) {
	if in(result, nResults) {
		f.answered[result].Inc()
	}
	f.duration.Observe(d.Seconds())
}

func (f *forwards) ProbeSent() { f.probes.Inc() }

// breakerValue is the doc's numbering: 0 closed, 1 half-open, 2 open (the
// core numbers open before half-open).
func breakerValue(s breaker.State) float64 {
	switch s {
	case breaker.HalfOpen:
		return 1
	case breaker.Open:
		return 2
	}
	return 0
}

// viewCollector reads the per-backend state gauges at scrape time.
func (m *LB) viewCollector(backends func() []BackendView) prometheus.Collector {
	l := []string{"balancer", "backend"}
	var (
		outstanding = desc("lblab_lb_outstanding", "Attempts in flight as this balancer counts them.", l...)
		ewma        = desc("lblab_lb_ewma_latency_seconds", "The balancer's time-decayed latency estimate.", l...)
		state       = desc("lblab_lb_breaker_state", "Breaker state: 0 closed, 1 half-open, 2 open.", l...)
		healthy     = desc("lblab_lb_healthy", "1 in rotation, 0 ejected by health checks.", l...)
	)
	return &stateCollector{
		descs: []*prometheus.Desc{outstanding, ewma, state, healthy},
		collect: func(ch chan<- prometheus.Metric) {
			for _, b := range backends() {
				ch <- gauge(outstanding, float64(b.Outstanding), m.balancer, b.Name)
				ch <- gauge(ewma, b.EWMA.Seconds(), m.balancer, b.Name)
				ch <- gauge(state, breakerValue(b.Breaker), m.balancer, b.Name)
				ch <- gauge(healthy, boolValue(b.Healthy), m.balancer, b.Name)
			}
		},
	}
}
