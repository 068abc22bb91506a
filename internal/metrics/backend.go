package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lblab/lblab/internal/observe"
)

// ServerState is what a backend process reports at scrape time.
type ServerState struct {
	Queued, Busy, Workers int
	Limit                 int // adaptive concurrency limit; 0 = no limiter
	Speed                 float64
	Up                    bool
	CacheLookups          uint64
	CacheHits             uint64
}

// Backend is the metrics of one backend process (one emulated server).
type Backend struct {
	registry
	events
	ended   [nKinds][nStatuses]prometheus.Counter
	service prometheus.Observer
	queue   prometheus.Observer
}

var _ observe.ServerAttempts = (*Backend)(nil)
var _ observe.Events = (*Backend)(nil)

// NewBackend builds the metrics of the backend emulating server. state is
// called at each scrape; eventKinds are the event kinds created up front.
func NewBackend(server string, state func() ServerState, eventKinds []string) *Backend {
	m := &Backend{registry: newRegistry()}
	m.events = newEvents(m.reg, eventKinds)
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lblab_backend_requests_total",
		Help: "Attempts that ended at this server, by kind and outcome."}, []string{"server", "kind", "outcome"})
	for k := range nKinds {
		for s := range nStatuses {
			m.ended[k][s] = requests.WithLabelValues(server, kindLabels[k], statusLabels[s])
		}
	}
	service := prometheus.NewHistogramVec(histogramOpts("lblab_backend_service_seconds",
		"Time in service (work / speed, GC pauses included) of served attempts."), []string{"server"})
	queue := prometheus.NewHistogramVec(histogramOpts("lblab_backend_queue_wait_seconds",
		"Time attempts waited in the queue."), []string{"server"})
	m.service, m.queue = service.WithLabelValues(server), queue.WithLabelValues(server)
	m.reg.MustRegister(requests, service, queue, serverCollector(server, state))
	return m
}

// AttemptEnded counts the attempt and records its queue and service times.
func (m *Backend) AttemptEnded(kind, status int, queue, service time.Duration) {
	if !in(kind, nKinds) || !in(status, nStatuses) {
		return
	}
	m.ended[kind][status].Inc()
	if queue >= 0 {
		m.queue.Observe(queue.Seconds())
	}
	if service >= 0 {
		m.service.Observe(service.Seconds())
	}
}

// serverCollector reads the state gauges (and the cache counters, which
// the core keeps) at scrape time.
func serverCollector(server string, state func() ServerState) prometheus.Collector {
	l := "server"
	var (
		queued  = desc("lblab_backend_queue_length", "Attempts queued now.", l)
		busy    = desc("lblab_backend_busy_workers", "Workers serving now.", l)
		workers = desc("lblab_backend_workers", "Configured workers.", l)
		limit   = desc("lblab_backend_concurrency_limit", "The adaptive concurrency limit (0 when no limiter).", l)
		speed   = desc("lblab_backend_speed", "Current speed factor (1 = normal).", l)
		up      = desc("lblab_backend_up", "1 while serving, 0 after a kill.", l)
		lookups = desc("lblab_backend_cache_lookups_total", "Key-cache lookups.", l)
		hits    = desc("lblab_backend_cache_hits_total", "Key-cache hits.", l)
	)
	return &stateCollector{
		descs: []*prometheus.Desc{queued, busy, workers, limit, speed, up, lookups, hits},
		collect: func(ch chan<- prometheus.Metric) {
			s := state()
			ch <- gauge(queued, float64(s.Queued), server)
			ch <- gauge(busy, float64(s.Busy), server)
			ch <- gauge(workers, float64(s.Workers), server)
			ch <- gauge(limit, float64(s.Limit), server)
			ch <- gauge(speed, s.Speed, server)
			ch <- gauge(up, boolValue(s.Up), server)
			ch <- counter(lookups, s.CacheLookups, server)
			ch <- counter(hits, s.CacheHits, server)
		},
	}
}
