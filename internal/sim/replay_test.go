package sim

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// memTrace is a trace held in memory, opened afresh for each run.
func memTrace(name, text string) *workload.Trace {
	return &workload.Trace{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}
}

// record runs lab's setting and returns its report and the trace it wrote.
func record(t *testing.T, lab *labfile.Lab, setting string) (*report.Report, string) {
	t.Helper()
	var buf bytes.Buffer
	w := report.NewTraceWriter(&buf, workload.TraceHeader{Lab: lab.Name, Mode: "sim", Seed: lab.Seed,
		Duration: workload.FormatMs(lab.Duration)})
	rep, err := Compare(lab, settingsOf(t, lab, setting), Options{Logs: w.Run})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return rep, buf.String()
}

func settingsOf(t *testing.T, lab *labfile.Lab, names ...string) []labfile.Setting {
	t.Helper()
	var out []labfile.Setting
	for _, n := range names {
		found := false
		for _, s := range lab.Compare {
			if s.Name == n {
				out, found = append(out, s), true
			}
		}
		if !found {
			out = append(out, labfile.Setting{Name: n, Algorithm: n})
		}
	}
	return out
}

func runJSON(t *testing.T, r report.Run) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A simulated run replayed with its own settings is the same run, report
// for report, whatever the lab exercises: retries and hedges (hedging),
// client-side balancing over client ids (client-side), a slowed server
// (rr-slow).
func TestReplayOfARecordingReproducesTheRun(t *testing.T) {
	for _, c := range []struct{ scenario, setting string }{
		{"rr-slow", "round-robin"}, {"hedging", "hedge-p95"}, {"client-side", "client-p2c-stale"},
	} {
		lab := loadScenario(t, c.scenario)
		lab.Duration = 8 * time.Second
		rep, trace := record(t, lab, c.setting)
		if n := strings.Count(trace, "\n") - 1; uint64(n) != rep.Runs[0].Requests {
			t.Fatalf("%s: %d trace lines for %d requests", c.scenario, n, rep.Runs[0].Requests)
		}
		again, err := Compare(lab, settingsOf(t, lab, c.setting), Options{Replay: memTrace("t", trace), Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := runJSON(t, rep.Runs[0]), runJSON(t, again.Runs[0]); a != b {
			t.Errorf("%s: the replay differs from the recorded run:\n%s\n%s", c.scenario, a, b)
		}
	}
}

// The counterfactual: round robin's traffic through p2c is p2c's run (the
// trace is the very stream p2c would have seen), and round robin's p99 on
// the replayed trace stays far above p2c's.
func TestReplayThroughAnotherAlgorithm(t *testing.T) {
	lab := loadScenario(t, "rr-slow")
	lab.Duration = 10 * time.Second
	_, trace := record(t, lab, "round-robin")
	replayed, err := Compare(lab, settingsOf(t, lab, "round-robin", "p2c"), Options{Replay: memTrace("t", trace)})
	if err != nil {
		t.Fatal(err)
	}
	direct, err := Compare(lab, settingsOf(t, lab, "p2c"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr, p2c := runOf(t, replayed, "round-robin"), runOf(t, replayed, "p2c")
	if runJSON(t, *p2c) != runJSON(t, direct.Runs[0]) {
		t.Errorf("p2c on round robin's trace differs from p2c's own run")
	}
	if rr.Latency.P99 < 4*p2c.Latency.P99 {
		t.Errorf("replayed: round robin p99 %.1f ms, p2c %.1f ms; want round robin far above", rr.Latency.P99, p2c.Latency.P99)
	}
}

// The CSV has one row per request, with outcomes that add up to the
// report's; the HdrHistogram log holds exactly the successful requests.
func TestExportsMatchTheReport(t *testing.T) {
	lab := loadScenario(t, "retry-storm")
	lab.Duration = 10 * time.Second
	var rows, hlog bytes.Buffer
	c, h := report.NewRequestsCSV(&rows), report.NewHdrLog(&hlog, "test")
	logs := func(run string) report.RequestLog { return report.Tee(c.Run(run), h.Run(run)) }
	rep, err := Compare(lab, lab.Compare, Options{Logs: logs})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	table, err := csv.NewReader(&rows).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	type tally struct {
		rows     uint64
		outcomes report.Outcomes
		seqs     map[string]bool
	}
	byRun := map[string]*tally{}
	for _, row := range table[1:] {
		tl := byRun[row[0]]
		if tl == nil {
			tl = &tally{seqs: map[string]bool{}}
			byRun[row[0]] = tl
		}
		tl.rows++
		tl.seqs[row[1]] = true
		switch row[8] {
		case "succeeded":
			tl.outcomes.Succeeded++
			if row[9] == "" {
				t.Errorf("a success without a server: %v", row)
			}
		case "failed":
			tl.outcomes.Failed++
		case "rejected":
			tl.outcomes.Rejected++
		case "timed-out":
			tl.outcomes.TimedOut++
		default:
			t.Fatalf("outcome %q", row[8])
		}
	}
	counts := map[string]int64{}
	r := hdr.NewHistogramLogReader(&hlog)
	for {
		hist, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if hist == nil {
			break
		}
		counts[hist.Tag()] += hist.TotalCount()
	}
	if len(rep.Runs) < 2 {
		t.Fatal("want a compare")
	}
	for _, run := range rep.Runs {
		tl := byRun[run.Name]
		if tl == nil || tl.rows != run.Requests || uint64(len(tl.seqs)) != run.Requests || tl.outcomes != run.Outcomes {
			t.Errorf("%s: report %d requests %+v; csv %+v", run.Name, run.Requests, run.Outcomes, tl)
		}
		if counts[run.Name] != int64(run.Succeeded) {
			t.Errorf("%s: hdr log holds %d values, %d requests succeeded", run.Name, counts[run.Name], run.Succeeded)
		}
	}
}

// An access log replays as open-loop arrivals, whatever the lab's mode; a
// bad line met during the run fails it, naming the line.
func TestReplayOfAnAccessLog(t *testing.T) {
	lab := loadScenario(t, "playground")
	if err := lab.Apply("clients.mode", "closed"); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	for i := range 400 {
		log.WriteString(formatSeconds(time.Duration(i) * 5 * time.Millisecond))
		log.WriteString(",0.020\n")
	}
	rep, err := Compare(lab, settingsOf(t, lab, "p2c"), Options{Replay: memTrace("log.csv", log.String())})
	if err != nil {
		t.Fatal(err)
	}
	if run := rep.Runs[0]; run.Requests != 400 || run.Succeeded != 400 || run.Latency.P50 < 20 || run.Latency.P50 > 60 {
		t.Errorf("access log: %d requests, %d ok, p50 %.1f ms", run.Requests, run.Succeeded, run.Latency.P50)
	}
	_, err = Compare(lab, settingsOf(t, lab, "p2c"), Options{Replay: memTrace("bad.csv", log.String()+"1,soon\n")})
	if err == nil || !strings.Contains(err.Error(), "bad.csv:401:") {
		t.Errorf("a bad line in the run: %v", err)
	}
}

func formatSeconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
