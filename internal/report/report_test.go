package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/reporttest"
)

func TestRecorderFill(t *testing.T) {
	r := reporttest.Record(300)
	var run report.Run
	r.Fill(&run, clock.Instant(3*time.Second))
	if run.Requests != 300 || run.Succeeded != 200 || run.Failed != 100 || run.Outcomes.Rejected != 100 {
		t.Fatalf("counts %+v", run)
	}
	if run.Attempts != 400 || run.Retries != 100 || run.Errors != 100 || run.Rejected != 100 {
		t.Fatalf("attempts %d retries %d errors %d rejected %d", run.Attempts, run.Retries, run.Errors, run.Rejected)
	}
	if run.Goodput != 200.0/300 || run.AttemptsPerRequest != 400.0/300 {
		t.Fatalf("goodput %v attempts/request %v", run.Goodput, run.AttemptsPerRequest)
	}
	if run.Latency.Max != 50 || run.Latency.P50 < 20 || run.Latency.P50 > 30 {
		t.Fatalf("latency %+v", run.Latency)
	}
	if len(run.Series) != 12 || len(run.CDF) != 101 || r.Pending() != 0 {
		t.Fatalf("%d bins, %d CDF points, %d pending", len(run.Series), len(run.CDF), r.Pending())
	}
}

func TestTableRanksByP99(t *testing.T) {
	var buf bytes.Buffer
	if err := reporttest.TwoSettings().WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Index(out, "fast") > strings.Index(out, "slow") {
		t.Errorf("the run with the lower p99 should come first:\n%s", out)
	}
}

func TestJSONFieldNames(t *testing.T) {
	var buf bytes.Buffer
	if err := reporttest.TwoSettings().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	run := m["runs"].([]any)[0].(map[string]any)
	if _, ok := run["CDF"]; ok {
		t.Error("the CDF is in the JSON as cdf_ms")
	}
	if _, ok := run["latency_ms"]; !ok {
		t.Error("latency_ms missing")
	}
}

// The CDF travels with the series: in the JSON as cdf_ms when series are
// kept (a live run's plot reads it from the loadgen's report), absent
// otherwise; WithoutSeries drops both from a copy.
func TestCDFWithSeries(t *testing.T) {
	var run, bare report.Run
	reporttest.Record(300).Fill(&run, clock.Instant(3*time.Second))
	report.NewRecorder(false).Fill(&bare, clock.Instant(3*time.Second))
	rep := &report.Report{Runs: []report.Run{run, bare}}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back report.Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Runs[0].CDF) != 101 || back.Runs[0].CDF[100] != run.CDF[100] || run.CDF[100] < 50 || back.Runs[1].CDF != nil {
		t.Errorf("cdf_ms after a JSON round trip: %d and %d values", len(back.Runs[0].CDF), len(back.Runs[1].CDF))
	}
	if c := rep.WithoutSeries(); c.Runs[0].CDF != nil || c.Runs[0].Series != nil || rep.Runs[0].CDF == nil {
		t.Error("WithoutSeries should drop the series and CDF from a copy only")
	}
}

// wideReport is a compare over n servers where nothing finished: each
// server holds what it was sent.
func wideReport(n int) *report.Report {
	rep := &report.Report{Mode: "sim", Lab: "wide", Seed: 1, DurationS: 10, Headline: report.HeadlineMaxQueue}
	for k, name := range []string{"spread", "lumpy"} {
		run := report.Run{Name: name, Requests: uint64(100 * n), Timeouts: uint64(100 * n)}
		for i := 0; i < n; i++ {
			q := 100 + (i%7-3)*(k+1)
			if i == n/2 {
				q = 100 + 40*k + 5
			}
			run.Servers = append(run.Servers, report.Server{Name: fmt.Sprintf("s%d", i+1), Sent: uint64(q), MaxQueue: q,
				Share: float64(q) / float64(100*n)})
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep
}

// A fleet wider than WideFleet gets a summary of the shares, not a column
// per server; a lab whose headline is max_queue is ranked by it and shows
// it; a setting where nothing succeeded shows no latency rather than 0 ms.
func TestTableWideFleetAndHeadline(t *testing.T) {
	var buf bytes.Buffer
	if err := wideReport(1000).WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 130 {
			t.Fatalf("a line of %d characters:\n%s", len(line), line)
		}
	}
	for _, want := range []string{"ranked by the fullest server's longest queue", "max queue", "105 (s501)", "145 (s501)",
		"busiest", "idlest", "No request succeeded in spread, lumpy"} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "  spread ") > strings.Index(out, "  lumpy ") || strings.Contains(out, "0.0ms") {
		t.Errorf("want spread (fuller server 105) ranked before lumpy (145), and no 0.0ms latency:\n%s", out)
	}
	buf.Reset()
	narrow := wideReport(report.WideFleet)
	narrow.WriteTable(&buf)
	if !strings.Contains(buf.String(), "s12") || strings.Contains(buf.String(), "busiest") {
		t.Errorf("%d servers should each get a column:\n%s", report.WideFleet, buf.String())
	}
}

// Ranked by p99, a run without a successful request (p99 0) comes last,
// not first.
func TestRankedNoSuccessLast(t *testing.T) {
	rep := reporttest.TwoSettings()
	rep.Runs = append(rep.Runs, report.Run{Name: "aaa-nothing", Requests: 10, Timeouts: 10})
	if r := rep.Ranked(); r[len(r)-1].Name != "aaa-nothing" || r[0].Name != "fast" {
		t.Errorf("ranked %s, %s, %s", r[0].Name, r[1].Name, r[2].Name)
	}
	rep.Headline = report.HeadlineGoodput
	rep.Runs[0].Goodput, rep.Runs[1].Goodput = 0.5, 0.9
	if r := rep.Ranked(); r[0].Name != "fast" || r[1].Name != "slow" {
		t.Errorf("by goodput: %s, %s", r[0].Name, r[1].Name)
	}
}

// A live run stopped early says so: the header, the row and a note with
// how long it ran and what did not run.
func TestTableInterrupted(t *testing.T) {
	r := reporttest.TwoSettings()
	r.Mode, r.DurationS, r.Interrupted, r.NotRun = "live", 8.8, true, []string{"rr"}
	r.Runs = r.Runs[:1]
	r.Runs[0].Interrupted, r.Runs[0].DurationS = true, 8.8
	var buf bytes.Buffer
	if err := r.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"(live, seed 1, 8.8s, INTERRUPTED)", r.Runs[0].Name + " (interrupted)",
		"INTERRUPTED: " + r.Runs[0].Name + " ran 8.8s (its figures cover only that); rr did not run."} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// The report's one ranking rule (rank.go): by a latency, which counts only
// the requests that succeeded, a run that fails most of its requests ranks
// below every run that serves most of them, whatever its latency, and such
// runs rank among themselves by goodput; a ranking by goodput is not
// changed. retry-storm's metastable retries (goodput 18.5%, the lowest p99)
// ranked first before.
func TestRankingPutsCollapsesBelowServing(t *testing.T) {
	rep := reporttest.TwoSettings() // slow: p99 10x fast's
	rep.Runs = append(rep.Runs, rep.Runs[1], rep.Runs[1])
	rep.Runs[2].Name, rep.Runs[3].Name = "collapsed", "collapsed-less"
	rep.Runs[2].Latency.P99, rep.Runs[3].Latency.P99 = 1, 2 // the lowest p99s
	rep.Runs[0].Goodput, rep.Runs[1].Goodput, rep.Runs[2].Goodput, rep.Runs[3].Goodput = 0.6, 0.97, 0.185, 0.3
	var names []string
	for _, r := range rep.Ranked() {
		names = append(names, r.Name)
	}
	if want := []string{"fast", "slow", "collapsed-less", "collapsed"}; !slices.Equal(names, want) {
		t.Errorf("ranked by p99: %v, want %v", names, want)
	}
	var buf bytes.Buffer
	if err := rep.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); strings.Index(out, "  slow ") > strings.Index(out, "  collapsed-less ") {
		t.Errorf("the table does not follow the ranking:\n%s", out)
	}
	// over seeds: the same rule on the means, and a verdict across the line
	// compares goodput, higher first
	sums := make([]report.Summary, len(rep.Runs))
	for i := range rep.Runs {
		sums[i] = report.Summarize([]report.Run{rep.Runs[i], rep.Runs[i]})
	}
	names = names[:0]
	for _, s := range report.Ranked(sums, "p99") {
		names = append(names, s.Name)
	}
	if want := []string{"fast", "slow", "collapsed-less", "collapsed"}; !slices.Equal(names, want) {
		t.Errorf("ranked by mean p99 over seeds: %v, want %v", names, want)
	}
	vs := report.Rank(sums, "p99")
	if vs[0].Figure != "p99" || vs[1].Figure != "goodput" || vs[1].Better != "slow" || vs[1].Wins != 2 || vs[2].Figure != "goodput" {
		t.Errorf("verdicts: %+v", vs)
	}
	buf.Reset()
	if err := report.WriteVerdicts(&buf, vs); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "slow's goodput > collapsed-less's") || !strings.Contains(out, "2/2 seeds higher; diff +30.0 pts") || !strings.Contains(out, "serves under 50%") {
		t.Errorf("verdicts across the line:\n%s", out)
	}
}
