package dash

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

const metricsText = `# TYPE lblab_client_latency_seconds histogram
lblab_client_latency_seconds_bucket{target="p2c",le="0.01"} 10
lblab_client_latency_seconds_bucket{target="p2c",le="0.02"} 60
lblab_client_latency_seconds_bucket{target="p2c",le="0.04"} 90
lblab_client_latency_seconds_bucket{target="p2c",le="+Inf"} 100
lblab_client_latency_seconds_sum{target="p2c"} 2.1
lblab_client_latency_seconds_count{target="p2c"} 100
lblab_client_requests_total{target="p2c",outcome="succeeded"} 100
`

// Percentiles come from bucket counts, interpolated inside the bucket as
// Prometheus's histogram_quantile does; a bin is the difference of two
// readings.
func TestBucketQuantiles(t *testing.T) {
	b := ParseBuckets(metricsText, LatencyFamily)
	if b == nil || len(b.le) != 4 || !math.IsInf(b.le[3], 1) {
		t.Fatalf("parsed %+v", b)
	}
	for _, c := range []struct{ q, want float64 }{{0.05, 5}, {0.5, 18}, {0.75, 30}, {0.99, 40}} {
		if got := b.quantile(c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("q%.2f = %v ms, want %v", c.q, got, c.want)
		}
	}
	later := ParseBuckets(`lblab_client_latency_seconds_bucket{target="p2c",le="0.01"} 10
lblab_client_latency_seconds_bucket{target="p2c",le="0.02"} 60
lblab_client_latency_seconds_bucket{target="p2c",le="0.04"} 190
lblab_client_latency_seconds_bucket{target="p2c",le="+Inf"} 200`, LatencyFamily)
	bin := later.minus(b) // 100 more, all between 20 and 40 ms
	if got := bin.quantile(0.5); math.Abs(got-30) > 1e-9 {
		t.Errorf("bin median %v ms, want 30", got)
	}
	if !math.IsNaN((&Buckets{}).quantile(0.5)) || ParseBuckets("other_bucket{le=\"1\"} 3", LatencyFamily) != nil {
		t.Error("no observations should give NaN, another family nil")
	}
}

// fakeReading is a reading at start+at with the loadgen's counters so far
// and s1/s2 picks from one balancer.
func fakeReading(start time.Time, at time.Duration, offered, succeeded uint64, pending int, picks1, picks2 uint64) *Reading {
	lg := &state.Loadgen{Mode: "open", Rate: 100, ElapsedS: at.Seconds(), Targets: []state.Target{{Name: "p2c",
		Requests: offered, Attempts: offered, Succeeded: succeeded, Pending: pending, P50: 10, P99: 30}}}
	l := &state.LB{Name: "lb1", Picks: picks1 + picks2, Backends: []state.LBBackend{
		{Name: "s1", Picks: picks1, Breaker: "open", Healthy: true, Present: true},
		{Name: "s2", Picks: picks2, Breaker: "closed", Healthy: true, Present: true}}}
	s1 := &state.Backend{Name: "s1", Up: false, Speed: 0.25, ConfiguredSpeed: 1, Queued: 3, Busy: 1}
	s2 := &state.Backend{Name: "s2", Up: true, Speed: 1, ConfiguredSpeed: 1}
	return &Reading{At: start.Add(at), Loadgen: lg, LBs: []LBReading{{Name: "lb1", State: l}},
		Servers: []ServerReading{{Name: "s1", State: s1}, {Name: "s2", State: s2}}}
}

// Rates, shares, goodput and Little's law come from counter deltas between
// readings; only the last 2 s count in the window, 20 s in the series.
func TestDeriverRatesAndWindow(t *testing.T) {
	start := time.Unix(1000, 0)
	var d Deriver
	var offered, picks1, picks2 uint64
	for i := 0; i <= 100; i++ { // 25 s of readings at 100 requests/s, 1 in 4 to s1
		d.Add(7, start, fakeReading(start, time.Duration(i)*250*time.Millisecond, offered, offered, 10, picks1, picks2))
		offered += 25
		picks1, picks2 = picks1+5, picks2+20
	}
	if len(d.bins) != seriesLen {
		t.Fatalf("%d bins kept, want %d", len(d.bins), seriesLen)
	}
	w := d.window()
	if w.Offered != 200 || math.Abs(float64(w.OfferedPerS)-100) > 1e-9 || w.Goodput != 1 || w.AttemptsPerRequest != 1 {
		t.Errorf("window %+v: want 200 offered, 100/s, goodput 1, 1 attempt per request", w)
	}
	// L = 10 pending at 100 completions/s: W = 0.1 s.
	if m := d.bins[len(d.bins)-1].mean; math.Abs(m-100) > 1e-6 {
		t.Errorf("Little's law mean %v ms, want 100", m)
	}
	views, _ := serverViews(&d, d.prev)
	v := views[0]
	if math.Abs(float64(v.Share)-0.2) > 1e-9 || math.Abs(float64(v.Rate)-20) > 1e-9 {
		t.Errorf("s1: share %v rate %v, want 0.2 and 20/s", v.Share, v.Rate)
	}
	kinds := map[string]bool{}
	for _, b := range v.Badges {
		kinds[b.Kind] = true
	}
	if !kinds["down"] || !kinds["slowed"] || !kinds["open"] || len(v.Badges) != 3 {
		t.Errorf("s1 badges %+v: want down, slowed, open", v.Badges)
	}
	s := d.series([]string{"s1", "s2"})
	if len(s.T) != seriesLen || s.InServer[0][0] != 4 || !math.IsNaN(float64(s.P95[0])) {
		t.Errorf("series: %d points, s1 in system %v, p95 %v (want 80, 4, null without a histogram)", len(s.T), s.InServer[0][0], s.P95[0])
	}
	if len(s.Target) != len(s.T) || s.Target[0] != 100 {
		t.Errorf("target rate line: %v, want the loadgen's rate 100 in every bin", s.Target)
	}
	d.Add(8, start, fakeReading(start, 0, 0, 0, 0, 0, 0))
	if len(d.bins) != 0 {
		t.Error("a new run should start a fresh series")
	}
}
