package report

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/workload"
)

// CSVColumns are the columns of the per-request CSV (--out), documented in
// docs/report.md.
var CSVColumns = []string{"run", "seq", "client", "key", "intended_ms", "sent_ms", "latency_ms", "attempts", "outcome", "server"}

// RequestsCSV writes one row per request, in the order the requests ended,
// for every run that logs to it: the run's name, the request (number,
// client, key), its intended start and when its first attempt really left
// (ms from the run's start), its latency (intended start to end, whatever
// the outcome), attempts, outcome and the server whose answer ended it.
type RequestsCSV struct {
	w   *csv.Writer
	row []string
}

// NewRequestsCSV writes the header line to w and returns the writer.
func NewRequestsCSV(w io.Writer) *RequestsCSV {
	c := &RequestsCSV{w: csv.NewWriter(w), row: make([]string, len(CSVColumns))}
	_ = c.w.Write(CSVColumns) // an error sticks: Close reports it
	return c
}

// Run returns the log of the run called name.
func (c *RequestsCSV) Run(name string) RequestLog { return &csvRun{c: c, name: name} }

// Close flushes the rows and returns the first write error.
func (c *RequestsCSV) Close() error {
	c.w.Flush()
	return c.w.Error()
}

type csvRun struct {
	c    *RequestsCSV
	name string
}

func (r *csvRun) RequestStarted(RequestRecord)  {}
func (r *csvRun) AttemptAnswered(AttemptRecord) {}
func (r *csvRun) RunEnded(clock.Instant)        {}
func (r *csvRun) RequestEnded(rec RequestRecord) {
	row := r.c.row
	row[0] = r.name
	row[1] = strconv.FormatUint(rec.Seq, 10)
	row[2] = strconv.Itoa(rec.Client)
	row[3] = strconv.FormatUint(rec.Key, 10)
	row[4] = workload.FormatMs(rec.Intended.Duration()).String()
	row[5] = workload.FormatMs(rec.Sent.Duration()).String()
	row[6] = workload.FormatMs(rec.Latency()).String()
	row[7] = strconv.Itoa(rec.Attempts)
	row[8] = rec.Outcome.String()
	row[9] = rec.Server
	_ = r.c.w.Write(row)
}
