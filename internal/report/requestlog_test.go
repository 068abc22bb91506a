package report

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/workload"
)

const tms = clock.Instant(time.Millisecond)

// Requests end out of order; the trace still lists them in start order,
// each with the answers it used, and reads back as the same requests.
func TestTraceWriterKeepsStartOrder(t *testing.T) {
	var buf bytes.Buffer
	w := NewTraceWriter(&buf, workload.TraceHeader{Lab: "l", Mode: "sim", Seed: 3, Duration: workload.FormatMs(time.Second)})
	log := w.Run("p2c")
	reqs := []RequestRecord{
		{Call: 10, Seq: 0, Client: 1, Key: 5, Work: 3 * time.Millisecond, Intended: 1 * tms, Sent: 1 * tms},
		{Call: 11, Seq: 1, Client: 2, Key: 6, Work: 4 * time.Millisecond, Intended: 2 * tms, Sent: 2 * tms},
		{Call: 12, Seq: 2, Client: 3, Key: 7, Work: 5 * time.Millisecond, Intended: 3 * tms, Sent: 4 * tms},
	}
	for _, r := range reqs {
		log.RequestStarted(r)
	}
	end := func(i int, at clock.Instant, o policy.Outcome, srv string) {
		r := reqs[i]
		r.End, r.Outcome, r.Attempts, r.Server = at, o, 1, srv
		log.AttemptAnswered(AttemptRecord{Call: r.Call, Kind: server.First, Sent: r.Sent, At: at, Result: policy.OK,
			Server: srv, Queue: time.Millisecond, Service: 2 * time.Millisecond})
		log.RequestEnded(r)
	}
	end(2, 9*tms, policy.Succeeded, "s3")
	end(1, 8*tms, policy.Succeeded, "s2")
	w.w.Flush()
	if n := strings.Count(buf.String(), "\n"); n != 1 {
		t.Fatalf("%d lines written before request 0 ended, want the header alone:\n%s", n, buf.String())
	}
	end(0, 20*tms, policy.Succeeded, "s1")
	log.RunEnded(30 * tms)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], `"run":"p2c"`) || !strings.Contains(lines[0], `"version":1`) {
		t.Fatalf("trace:\n%s", buf.String())
	}
	if !strings.Contains(lines[1], `"server":"s1","result":"ok","queue_ms":1,"service_ms":2`) ||
		!strings.Contains(lines[3], `"sent_ms":4,`) || !strings.Contains(lines[3], `"latency_ms":6,`) {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
	p, err := workload.NewReplay(strings.NewReader(buf.String()), "trace", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		got := p.Next()
		if got.Seq != r.Seq || got.At != r.Intended || got.Work != r.Work || got.Key != r.Key || got.Client != r.Client {
			t.Errorf("read back %d: %+v, wrote %+v", i, got, r)
		}
	}
	if w.Run("again") != nil || w.Close() == nil {
		t.Error("a second run in one trace is not refused")
	}
}

// The HdrHistogram log reads back with hdrhistogram-go's reader: one tagged
// interval per second, and as many values as successful requests.
func TestHdrLogReadsBack(t *testing.T) {
	var buf bytes.Buffer
	h := NewHdrLog(&buf, "test")
	for _, run := range []string{"a b", "c"} {
		log := h.Run(run)
		ok := 0
		for i := range 50 {
			end := clock.Instant(i) * 50 * tms // 0 .. 2.45 s
			o := policy.Succeeded
			if i%5 == 0 {
				o = policy.TimedOut
			} else {
				ok++
			}
			log.RequestEnded(RequestRecord{Intended: end - 10*tms, End: end, Outcome: o})
		}
		log.RunEnded(3 * clock.Instant(time.Second))
		if ok != 40 {
			t.Fatal(ok)
		}
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	r := hdr.NewHistogramLogReader(&buf)
	counts, intervals := map[string]int64{}, map[string]int{}
	for {
		hist, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if hist == nil {
			break
		}
		counts[hist.Tag()] += hist.TotalCount()
		intervals[hist.Tag()]++
		if hist.TotalCount() > 0 && (hist.Max() < int64(10*time.Millisecond) || hist.Min() > int64(10*time.Millisecond)+int64(time.Microsecond)*20) {
			t.Errorf("values %d..%d, want 10ms in ns", hist.Min(), hist.Max())
		}
	}
	if counts["a_b"] != 40 || counts["c"] != 40 || intervals["a_b"] != 3 || intervals["c"] != 3 {
		t.Errorf("counts %v, intervals %v", counts, intervals)
	}
}

func TestRequestsCSV(t *testing.T) {
	var buf bytes.Buffer
	c := NewRequestsCSV(&buf)
	log := Tee(nil, c.Run("rr, slow"))
	log.RequestEnded(RequestRecord{Seq: 7, Client: 2, Key: 9, Intended: 1 * tms, Sent: 3 * tms, End: 25 * tms,
		Attempts: 2, Outcome: policy.Succeeded, Server: "s4"})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&buf).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%v %v", rows, err)
	}
	want := []string{"rr, slow", "7", "2", "9", "1", "3", "24", "2", "succeeded", "s4"}
	if strings.Join(rows[0], "|") != strings.Join(CSVColumns, "|") || strings.Join(rows[1], "|") != strings.Join(want, "|") {
		t.Errorf("rows %q", rows)
	}
}

// writes records each Write call's bytes.
type writes struct{ calls [][]byte }

func (w *writes) Write(p []byte) (int, error) {
	w.calls = append(w.calls, append([]byte(nil), p...))
	return len(p), nil
}

// Every write of the CSV ends on a row boundary, so a process killed
// between two writes leaves whole rows; before, csv.Writer's 4 KiB buffer
// went out wherever it filled, and a killed loadgen left a row cut in the
// middle.
func TestRequestsCSVWritesWholeRows(t *testing.T) {
	var w writes
	c := NewRequestsCSV(&w)
	log := c.Run("p2c")
	for i := range 20000 {
		log.RequestEnded(RequestRecord{Seq: uint64(i), Client: i % 20, Key: uint64(i % 977), Intended: clock.Instant(i) * tms,
			Sent: clock.Instant(i) * tms, End: clock.Instant(i+13) * tms, Attempts: 1, Outcome: policy.Succeeded, Server: "s1"})
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if len(w.calls) < 10 {
		t.Fatalf("%d writes for 20,000 rows: the rows are not written as they come", len(w.calls))
	}
	var all bytes.Buffer
	for i, call := range w.calls {
		if call[len(call)-1] != '\n' {
			t.Fatalf("write %d of %d ends mid-row: %q", i+1, len(w.calls), call[max(0, len(call)-40):])
		}
		all.Write(call)
	}
	rows, err := csv.NewReader(&all).ReadAll()
	if err != nil || len(rows) != 20001 {
		t.Errorf("%d rows (%v)", len(rows), err)
	}
}

// A plain run's CSV has no client and key columns: its requests carried
// neither.
func TestPlainRequestsCSV(t *testing.T) {
	var buf bytes.Buffer
	c := NewPlainRequestsCSV(&buf)
	c.Run("127.0.0.1:8080").RequestEnded(RequestRecord{Seq: 7, Client: 2, Key: 9, Intended: 1 * tms, Sent: 3 * tms, End: 25 * tms,
		Attempts: 1, Outcome: policy.Succeeded, Server: "127.0.0.1:8080"})
	c.Close()
	want := "run,seq,intended_ms,sent_ms,latency_ms,attempts,outcome,server\n127.0.0.1:8080,7,1,3,24,1,succeeded,127.0.0.1:8080\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
