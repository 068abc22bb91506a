package loadgen

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/report"
)

// scrape runs GET /metrics on the admin handler and returns the text.
func scrape(t *testing.T, h fasthttp.RequestHandler) string {
	t.Helper()
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/metrics")
	h(&ctx)
	if ctx.Response.StatusCode() != 200 {
		t.Fatalf("GET /metrics: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	return string(ctx.Response.Body())
}

// value is one series' value in an exposition; -1 when absent.
func value(text, series string) float64 {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), series+" "); ok {
			var f float64
			fmt.Sscan(v, &f)
			return f
		}
	}
	return -1
}

// TestMetricsMatchDocAndReport scrapes a run with retries and a budget
// midway (against docs/metrics.md) and at the end (against the report).
func TestMetricsMatchDocAndReport(t *testing.T) {
	docs, err := metrics.ReadDoc("../../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	lab := testLab(t, map[string]string{"clients.rate": "200", "clients.retries": "2", "clients.budget": "0.5"})
	f := newFake(t, "b1", false, func(g got, n int) answer {
		if n%4 == 0 {
			return answer{status: 500, loadQ: -1}
		}
		return okAfterWork(g, n)
	})
	r, err := New(Config{Lab: lab, Targets: []Target{toFakes("mx", f)}, Dial: dialer(f)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *report.Report)
	go func() { rep, _ := r.Run(context.Background()); done <- rep }()
	h := r.Admin()
	if code, _ := call(t, h, "PUT", "/admin/rate", `{"rate": 200}`); code != 200 {
		t.Fatalf("rate: %d", code)
	}
	time.Sleep(300 * time.Millisecond)
	mid := scrape(t, h)
	problems, err := metrics.CheckExposition(strings.NewReader(mid), docs, "loadgen", "every process")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
	if v := value(mid, `lblab_client_retry_budget_tokens{target="mx"}`); v <= 0 {
		t.Errorf("budget tokens %v midway", v)
	}
	run := (<-done).Runs[0]
	checkReported(t, scrape(t, h), run)
}

// checkReported compares the counters with the report of the same run.
func checkReported(t *testing.T, text string, run report.Run) {
	t.Helper()
	o := run.Outcomes
	for series, want := range map[string]uint64{
		`lblab_client_requests_total{outcome="succeeded",target="mx"}`:   o.Succeeded,
		`lblab_client_requests_total{outcome="failed",target="mx"}`:      o.Failed,
		`lblab_client_requests_total{outcome="rejected",target="mx"}`:    o.Rejected,
		`lblab_client_requests_total{outcome="timed_out",target="mx"}`:   o.TimedOut,
		`lblab_client_latency_seconds_count{target="mx"}`:                o.Succeeded,
		`lblab_client_attempts_total{kind="first",target="mx"}`:          run.Requests,
		`lblab_client_attempts_total{kind="retry",target="mx"}`:          run.Retries,
		`lblab_client_attempts_total{kind="hedge",target="mx"}`:          run.Hedges,
		`lblab_client_attempt_results_total{result="error",target="mx"}`: run.Errors,
		`lblab_client_wasted_total{target="mx"}`:                         run.Wasted,
		`lblab_events_total{kind="rate"}`:                                1,
	} {
		if got := value(text, series); got != float64(want) {
			t.Errorf("%s = %v, the report says %d", series, got, want)
		}
	}
	if run.Retries == 0 || run.Errors == 0 {
		t.Errorf("the run had no retries or errors to count: %s", describe(run))
	}
	if v := value(text, `lblab_client_retry_budget_tokens{target="mx"}`); v != -1 {
		t.Errorf("budget tokens %v after the run, want absent", v)
	}
}
