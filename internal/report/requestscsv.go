package report

import (
	"bytes"
	"encoding/csv"
	"io"
	"slices"
	"strconv"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/workload"
)

// CSVColumns are the columns of the per-request CSV (--out), documented in
// docs/report.md.
var CSVColumns = []string{"run", "seq", "client", "key", "intended_ms", "sent_ms", "latency_ms", "attempts", "outcome", "server"}

// labOnlyColumns are the CSV's columns that only lblab's request stream
// fills: a plain run (the loadgen against a service that is not lblab's)
// sends neither a client id nor a key, so its CSV leaves them out.
var labOnlyColumns = []string{"client", "key"}

// PlainCSVColumns are the columns of a plain run's CSV: CSVColumns without
// the lab stream's client and key.
var PlainCSVColumns = slices.DeleteFunc(slices.Clone(CSVColumns), func(c string) bool { return slices.Contains(labOnlyColumns, c) })

// csvFlushAt is how many bytes of whole rows RequestsCSV gathers before it
// writes them out in one write: a process killed between two writes leaves
// a file of whole rows, never one cut in the middle.
const csvFlushAt = 64 << 10

// RequestsCSV writes one row per request, in the order the requests ended,
// for every run that logs to it: the run's name, the request (number,
// client, key), its intended start and when its first attempt really left
// (ms from the run's start), its latency (intended start to end, whatever
// the outcome), attempts, outcome and the server whose answer ended it.
// Rows reach the writer whole (csvFlushAt).
type RequestsCSV struct {
	out  io.Writer
	buf  bytes.Buffer // whole rows not yet written out
	w    *csv.Writer  // into buf
	row  []string     // every column of CSVColumns
	keep []int        // the indexes into row that are written
	row2 []string     // the kept columns of row
	err  error        // the first error writing out
}

// NewRequestsCSV writes the header line to w and returns the writer.
func NewRequestsCSV(w io.Writer) *RequestsCSV { return newRequestsCSV(w, CSVColumns) }

// NewPlainRequestsCSV is NewRequestsCSV for a plain run: PlainCSVColumns.
func NewPlainRequestsCSV(w io.Writer) *RequestsCSV { return newRequestsCSV(w, PlainCSVColumns) }

func newRequestsCSV(w io.Writer, cols []string) *RequestsCSV {
	c := &RequestsCSV{out: w, row: make([]string, len(CSVColumns)), row2: make([]string, len(cols))}
	c.w = csv.NewWriter(&c.buf)
	for _, col := range cols {
		c.keep = append(c.keep, slices.Index(CSVColumns, col))
	}
	c.write(cols)
	return c
}

// write adds one row and, past csvFlushAt, writes the whole rows out.
func (c *RequestsCSV) write(row []string) {
	_ = c.w.Write(row) // into buf: cannot fail
	c.w.Flush()
	if c.buf.Len() >= csvFlushAt {
		c.flush()
	}
}

// flush writes out every whole row gathered, in one write.
func (c *RequestsCSV) flush() {
	if c.buf.Len() > 0 && c.err == nil {
		_, c.err = c.out.Write(c.buf.Bytes())
	}
	c.buf.Reset()
}

// Run returns the log of the run called name.
func (c *RequestsCSV) Run(name string) RequestLog { return &csvRun{c: c, name: name} }

// Close writes the rows still gathered and returns the first write error.
func (c *RequestsCSV) Close() error {
	c.flush()
	return c.err
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
	for i, k := range r.c.keep {
		r.c.row2[i] = row[k]
	}
	r.c.write(r.c.row2)
}
