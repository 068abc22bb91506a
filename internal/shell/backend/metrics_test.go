package backend

import (
	"bytes"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/shell/wire"
)

// TestMetricsMatchDoc scrapes GET /metrics after a little traffic and an
// admin action, and checks the exposition against docs/metrics.md.
func TestMetricsMatchDoc(t *testing.T) {
	docs, err := metrics.ReadDoc("../../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		c.post("/admin/drill", `{"action":"slow","speed":0.5}`, nil)
		for _, kind := range []string{"first", "first", "retry"} {
			if r := c.data("GET", "/", wire.HWork, "10ms", wire.HAttempt, kind); r.code != 200 {
				t.Fatalf("%s: %d %v", kind, r.code, r.err)
			}
		}
		r := c.admin("GET", "/metrics", "")
		if r.code != 200 || !strings.HasPrefix(r.header("Content-Type"), "text/plain") {
			t.Fatalf("GET /metrics: %d %s", r.code, r.header("Content-Type"))
		}
		problems, err := metrics.CheckExposition(bytes.NewReader(r.body), docs, "backend", "every process")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		hasLines(t, r.body,
			`lblab_backend_requests_total{kind="first",outcome="ok",server="s1"} 2`,
			`lblab_backend_requests_total{kind="retry",outcome="ok",server="s1"} 1`,
			`lblab_backend_service_seconds_count{server="s1"} 3`,
			`lblab_backend_service_seconds_sum{server="s1"} 0.06`, // 10 ms at half speed, three times
			`lblab_backend_queue_wait_seconds_count{server="s1"} 3`,
			`lblab_backend_speed{server="s1"} 0.5`,
			`lblab_backend_up{server="s1"} 1`,
			`lblab_events_total{kind="slow"} 1`,
			`lblab_events_total{kind="kill"} 0`)
		if !bytes.Contains(r.body, []byte("\ngo_goroutines ")) || !bytes.Contains(r.body, []byte("\nprocess_start_time_seconds ")) {
			t.Error("no Go or process metrics")
		}
	})
}

// hasLines fails for each line the exposition lacks.
func hasLines(t *testing.T, body []byte, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if !bytes.Contains(body, []byte("\n"+line+"\n")) {
			t.Errorf("no line %s", line)
		}
	}
}

// TestMetricsAfterKill: a kill shows as up 0 and the attempts it lost.
func TestMetricsAfterKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, n := startMem(t, labWith(t))
		c := client{t, n}
		lost := async(func() result { return c.data("GET", "/", wire.HWork, "1s") })
		synctest.Wait()
		c.post("/admin/drill", `{"action":"kill"}`, nil)
		<-lost
		hasLines(t, c.admin("GET", "/metrics", "").body,
			`lblab_backend_up{server="s1"} 0`,
			`lblab_backend_requests_total{kind="first",outcome="lost",server="s1"} 1`,
			`lblab_events_total{kind="kill"} 1`)
	})
}
