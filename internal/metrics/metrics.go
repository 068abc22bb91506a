// Package metrics is lblab's only Prometheus user (docs/architecture.md): each
// live process gets its own registry holding counters and histograms that
// implement the internal/observe interfaces, collectors that read the
// process's state at scrape time, and the Go and process collectors. The
// metric names, types and labels are docs/metrics.md's; tests check the
// scraped exposition against that file (CheckExposition).
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
	"github.com/valyala/fasthttp"
)

// Buckets are the classic histogram buckets, the fallback for scrapers that
// do not ask for native histograms: 20 exponential ones from 100 µs to 30 s.
var Buckets = prometheus.ExponentialBucketsRange(0.0001, 30, 20)

// NativeFactor is the growth factor of native histogram buckets (schema 3,
// about 9 % apart).
const NativeFactor = 1.1

// histogramOpts are the options of every lblab histogram: native buckets
// with the classic ones as the fallback. The bucket-count cap and reset
// period bound the memory of a native histogram with a wide range.
func histogramOpts(name, help string) prometheus.HistogramOpts {
	return prometheus.HistogramOpts{Name: name, Help: help, Buckets: Buckets,
		NativeHistogramBucketFactor:     NativeFactor,
		NativeHistogramMaxBucketNumber:  160,
		NativeHistogramMinResetDuration: time.Hour,
	}
}

// registry is one process's registry. It is never the global one, so that
// several processes can run in one test binary.
type registry struct {
	reg *prometheus.Registry
}

func newRegistry() registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return registry{reg: reg}
}

// Gatherer is the process's registry, for tests and extra exporters.
func (r registry) Gatherer() prometheus.Gatherer { return r.reg }

// Handler serves GET /metrics: the text format, or delimited protobuf (which
// carries the native histograms) when the scraper's Accept header asks.
func (r registry) Handler() fasthttp.RequestHandler { return handler(r.reg) }

// handler encodes the exposition itself rather than through
// fasthttpadaptor, which runs each request on an extra goroutine.
func handler(g prometheus.Gatherer) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		mfs, err := g.Gather()
		if err != nil { // an inconsistent collector: a bug, so say it loudly
			ctx.Error("gathering metrics: "+err.Error(), fasthttp.StatusInternalServerError)
			return
		}
		accept := http.Header{"Accept": {string(ctx.Request.Header.Peek(fasthttp.HeaderAccept))}}
		format := expfmt.NegotiateAccept(accept, expfmt.NewFormat(expfmt.TypeProtoDelim), expfmt.NewFormat(expfmt.TypeTextPlain))
		ctx.SetContentType(string(format))
		enc := expfmt.NewEncoder(ctx, format)
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				ctx.Error("encoding metrics: "+err.Error(), fasthttp.StatusInternalServerError)
				return
			}
		}
		if c, ok := enc.(expfmt.Closer); ok {
			_ = c.Close()
		}
	}
}

// events is lblab_events_total. The kinds a process knows are created up
// front, so the series exist (at 0) before the first event.
type events struct{ vec *prometheus.CounterVec }

func newEvents(reg *prometheus.Registry, kinds []string) events {
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "lblab_events_total",
		Help: "Admin actions and changes applied (slow, kill, breaker transitions, algorithm, ...)."}, []string{"kind"})
	for _, k := range kinds {
		vec.WithLabelValues(k)
	}
	reg.MustRegister(vec)
	return events{vec}
}

// Event counts one event of kind (events are rare: the lookup is fine).
func (e events) Event(kind string) { e.vec.WithLabelValues(kind).Inc() }

// stateCollector emits a process's state gauges at scrape time: collect
// reads the state (under the process's own lock) and sends const metrics.
type stateCollector struct {
	descs   []*prometheus.Desc
	collect func(ch chan<- prometheus.Metric)
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.descs {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) { c.collect(ch) }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
}

func counter(d *prometheus.Desc, v uint64, labels ...string) prometheus.Metric {
	return prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
