package dash

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	"github.com/lblab/lblab/internal/metrics"
)

// scrape is the text a GET /metrics of the loadgen's registry answers,
// read as gather.Read reads it.
func scrape(t *testing.T, m *metrics.Loadgen) *Buckets {
	t.Helper()
	mfs, err := m.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	enc := expfmt.NewEncoder(&sb, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return ParseBuckets(sb.String(), LatencyFamily)
}

// The "Last 2 s" tile showed p99 30.00 s with no timeout and goodput 100%
// on the live playground after round robin kept sending to a slowed s3
// (reproduced with lab chaos algorithm algorithm=round-robin, slow s3
// speed=0.2, two minutes): s3's backlog is answered after more than 30 s,
// nothing times out (no timeout is set), and those answers land in the
// loadgen's +Inf bucket, past its largest bound, 30 s. The window's p99 is
// then that bound, which the page printed as a measurement. The window
// now names it as beyond the histogram (a lower bound), in its fields and
// its note; below the bound nothing changes.
func TestWindowSaysWhenAQuantileIsBeyondTheHistogram(t *testing.T) {
	for _, c := range []struct {
		name   string
		late   time.Duration // the backlog's answers, 1 in 25 requests in the last 4 s
		beyond bool
	}{{"answers after 45 s", 45 * time.Second, true}, {"answers after 20 s", 20 * time.Second, false}} {
		t.Run(c.name, func(t *testing.T) {
			m := metrics.NewLoadgen(func() []metrics.TargetState { return nil }, nil)
			reqs := m.Requests("p2c")
			start := time.Unix(1000, 0)
			var d Deriver
			var offered uint64
			for i := 0; i <= 100; i++ { // 25 s of readings at 100 requests/s, all succeed
				at := time.Duration(i) * 250 * time.Millisecond
				r := fakeReading(start, at, offered, offered, 10, offered/4, offered-offered/4)
				r.Latency = scrape(t, m)
				d.Add(1, start, r)
				for j := range 25 {
					latency := 50 * time.Millisecond
					if at >= 21*time.Second && j == 0 { // 1 in 25 over the last 4 s: the backlog
						latency = c.late
					}
					reqs.RequestEnded(1, latency)
				}
				offered += 25
			}
			w := d.window()
			if w.Goodput != 1 || w.Timeouts != 0 {
				t.Fatalf("window %+v: want goodput 1 and no timeout", w)
			}
			raw, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if !c.beyond {
				if float64(w.P99Ms) >= 30000 || strings.Contains(string(raw), "beyond") || strings.Contains(w.LatencyNote, "over") {
					t.Errorf("p99 %v ms, window %s: want a p99 under 30 s and nothing said beyond", w.P99Ms, raw)
				}
				return
			}
			if math.Abs(float64(w.P99Ms)-30000) > 1e-6 {
				t.Fatalf("p99 %v ms, want the histogram's largest bound, 30000", w.P99Ms)
			}
			if !strings.Contains(string(raw), `"beyond":["p99_ms"]`) {
				t.Errorf("the window does not say its p99 is beyond the histogram: %s", raw)
			}
			if want := "p99 is over the histogram's largest bucket, 30s: at least that"; !strings.Contains(w.LatencyNote, want) {
				t.Errorf("latency note %q, want it to say %q", w.LatencyNote, want)
			}
			if math.IsNaN(float64(w.P50Ms)) || w.P50Ms > 100 {
				t.Errorf("p50 %v ms, want about 50", w.P50Ms)
			}
		})
	}
}
