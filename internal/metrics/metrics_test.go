package metrics

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// scrape runs h on a GET /metrics with the given Accept header.
func scrape(h fasthttp.RequestHandler, accept string) (contentType string, body []byte) {
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/metrics")
	if accept != "" {
		ctx.Request.Header.Set(fasthttp.HeaderAccept, accept)
	}
	h(&ctx)
	return string(ctx.Response.Header.ContentType()), ctx.Response.Body()
}

func TestClassicBuckets(t *testing.T) {
	if len(Buckets) != 20 || math.Abs(Buckets[0]-0.0001) > 1e-12 || math.Abs(Buckets[len(Buckets)-1]-30) > 1e-9 {
		t.Fatalf("buckets %v: want 20 from 100µs to 30s", Buckets)
	}
	for i := 1; i < len(Buckets); i++ {
		if Buckets[i] <= Buckets[i-1] {
			t.Fatalf("buckets not increasing at %d: %v", i, Buckets)
		}
	}
}

// TestNativeHistograms checks that every lblab histogram is native (has a
// schema and a zero bucket) and keeps the classic buckets as well.
func TestNativeHistograms(t *testing.T) {
	m := NewLB("lb1", func() []BackendView { return nil }, nil)
	m.Backend("s1").Answered(0, 3*time.Millisecond)
	b := NewBackend("s1", func() ServerState { return ServerState{} }, nil)
	b.AttemptEnded(0, 0, time.Millisecond, 2*time.Millisecond)
	g := NewLoadgen(func() []TargetState { return nil }, nil)
	g.Requests("p2c").RequestEnded(succeeded, 5*time.Millisecond)
	seen := 0
	for _, r := range []registry{m.registry, b.registry, g.registry} {
		mfs, err := r.Gatherer().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if !strings.HasPrefix(mf.GetName(), "lblab_") || mf.GetType().String() != "HISTOGRAM" {
				continue
			}
			seen++
			h := mf.GetMetric()[0].GetHistogram()
			// Factor 1.1 gives schema 3: buckets 2^(1/8) ≈ 1.09 apart.
			if h.Schema == nil || h.GetSchema() != 3 || h.GetZeroThreshold() <= 0 {
				t.Errorf("%s: schema %v, zero threshold %v: not native", mf.GetName(), h.Schema, h.GetZeroThreshold())
			}
			cb := h.GetBucket()
			if len(cb) != len(Buckets) || cb[0].GetUpperBound() != Buckets[0] || cb[len(cb)-1].GetUpperBound() != Buckets[len(Buckets)-1] {
				t.Errorf("%s: %d classic buckets, want %d from 100µs to 30s", mf.GetName(), len(cb), len(Buckets))
			}
		}
	}
	if seen != 4 {
		t.Errorf("saw %d histograms, want 4", seen)
	}
}

func TestLabelTables(t *testing.T) {
	for i, want := range kindLabels {
		if got := server.Kind(i).String(); got != want {
			t.Errorf("kind %d: core says %q, label %q", i, got, want)
		}
	}
	if s := server.Kind(nKinds).String(); !strings.HasPrefix(s, "kind(") {
		t.Errorf("server.Kind has a value %q the labels lack", s)
	}
	for i, want := range statusLabels {
		if got := server.Status(i).String(); got != want {
			t.Errorf("status %d: core says %q, label %q", i, got, want)
		}
	}
	if s := server.Status(nStatuses).String(); !strings.HasPrefix(s, "status(") {
		t.Errorf("server.Status has a value %q the labels lack", s)
	}
	for i, want := range resultLabels {
		if got := policy.Result(i).String(); got != want {
			t.Errorf("result %d: policy says %q, label %q", i, got, want)
		}
	}
	for i := 1; i < nOutcomes; i++ {
		if got := strings.ReplaceAll(policy.Outcome(i).String(), "-", "_"); got != outcomeLabels[i] {
			t.Errorf("outcome %d: policy says %q, label %q", i, got, outcomeLabels[i])
		}
	}
	if int(policy.Succeeded) != succeeded || int(policy.TimedOut) != nOutcomes-1 {
		t.Errorf("policy.Outcome numbering moved")
	}
}

func TestBreakerValues(t *testing.T) {
	for s, want := range map[breaker.State]float64{breaker.Closed: 0, breaker.HalfOpen: 1, breaker.Open: 2} {
		if got := breakerValue(s); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}

// TestOutOfRangeIgnored: values a newer core might pass are dropped, not a panic.
func TestOutOfRangeIgnored(t *testing.T) {
	b := NewBackend("s1", func() ServerState { return ServerState{} }, nil)
	b.AttemptEnded(nKinds, 0, 0, 0)
	b.AttemptEnded(0, -1, 0, 0)
	m := NewLB("lb1", func() []BackendView { return nil }, nil)
	m.Backend("s1").Answered(nResults, time.Millisecond)
	g := NewLoadgen(func() []TargetState { return nil }, nil)
	g.Requests("t").RequestEnded(0, time.Second)
	g.Requests("t").RequestEnded(nOutcomes, time.Second)
	g.Attempts("t").AttemptSent(int(server.Probe))
	g.Attempts("t").AttemptAnswered(-1)
}

func TestHandlerNegotiates(t *testing.T) {
	m := NewBackend("s1", func() ServerState { return ServerState{Up: true, Workers: 4, Speed: 1} }, []string{"kill"})
	ct, body := scrape(m.Handler(), "")
	if !strings.HasPrefix(ct, "text/plain") || !bytes.Contains(body, []byte("lblab_backend_workers{server=\"s1\"} 4\n")) {
		t.Errorf("text: %s\n%s", ct, body)
	}
	proto := "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3"
	if ct, body = scrape(m.Handler(), proto); !strings.Contains(ct, "application/vnd.google.protobuf") || len(body) == 0 {
		t.Errorf("protobuf: %s, %d bytes", ct, len(body))
	}
}

// TestEventsCreatedUpFront: known kinds are exported at 0 before any event.
func TestEventsCreatedUpFront(t *testing.T) {
	m := NewLB("lb1", func() []BackendView { return nil }, []string{"breaker", "health"})
	m.Event("algorithm")
	_, body := scrape(m.Handler(), "")
	for _, want := range []string{`lblab_events_total{kind="breaker"} 0`, `lblab_events_total{kind="health"} 0`, `lblab_events_total{kind="algorithm"} 1`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
}
