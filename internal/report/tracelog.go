package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/workload"
)

// TraceWriter records one run's request stream as an lblab trace
// (--record; the format is workload.TraceRequest, docs/traces.md): a header
// line, then a line per request in the order the requests started, each
// with the answers it used. A request's line waits until every request
// started before it has ended too, so memory holds only the requests of
// that window, never the run.
type TraceWriter struct {
	w      *bufio.Writer
	header workload.TraceHeader
	runs   int
	lines  uint64
	err    error
}

// NewTraceWriter returns a writer to w; h gives the header's lab, mode, seed
// and duration (Format and Version are filled in).
func NewTraceWriter(w io.Writer, h workload.TraceHeader) *TraceWriter {
	h.Format, h.Version = workload.TraceFormat, workload.TraceVersion
	return &TraceWriter{w: bufio.NewWriterSize(w, 64<<10), header: h}
}

// Run returns the log of the run called name. A trace holds one run: a
// second Run logs nothing and makes Close fail.
func (t *TraceWriter) Run(name string) RequestLog {
	t.runs++
	if t.runs > 1 {
		t.keep(errors.New("a trace records one run: choose one setting (--compare NAME) or one target"))
		return nil
	}
	h := t.header
	h.Run = name
	t.line(h)
	return &traceRun{t: t, byCall: map[uint64]*pendingReq{}}
}

// Close flushes the trace and returns the first error.
func (t *TraceWriter) Close() error {
	t.keep(t.w.Flush())
	return t.err
}

func (t *TraceWriter) keep(err error) {
	if t.err == nil {
		t.err = err
	}
}

func (t *TraceWriter) line(v any) {
	if t.err != nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.keep(err)
		return
	}
	_, err = t.w.Write(append(b, '\n'))
	t.keep(err)
}

type pendingReq struct {
	rec     RequestRecord
	answers []AttemptRecord
	ended   bool
}

// traceRun keeps the requests in start order until each can be written.
type traceRun struct {
	t      *TraceWriter
	queue  []*pendingReq // start order; queue[head:] are not written yet
	head   int
	byCall map[uint64]*pendingReq // requests not ended yet, by call handle
}

func (r *traceRun) RequestStarted(rec RequestRecord) {
	p := &pendingReq{rec: rec}
	r.queue = append(r.queue, p)
	r.byCall[rec.Call] = p
}

func (r *traceRun) AttemptAnswered(a AttemptRecord) {
	if p := r.byCall[a.Call]; p != nil {
		p.answers = append(p.answers, a)
	}
}

func (r *traceRun) RequestEnded(rec RequestRecord) {
	p := r.byCall[rec.Call]
	if p == nil {
		return
	}
	delete(r.byCall, rec.Call)
	p.rec, p.ended = rec, true
	r.flush(false)
}

func (r *traceRun) RunEnded(clock.Instant) { r.flush(true) }

// flush writes the requests at the head of the queue that have ended (all
// of them at the end of the run).
func (r *traceRun) flush(all bool) {
	for r.head < len(r.queue) && (all || r.queue[r.head].ended) {
		r.write(r.queue[r.head])
		r.queue[r.head] = nil
		r.head++
	}
	if r.head > 1024 && r.head*2 > len(r.queue) {
		r.queue = append(r.queue[:0], r.queue[r.head:]...)
		r.head = 0
	}
}

func (r *traceRun) write(p *pendingReq) {
	t := r.t
	if t.lines >= workload.MaxTraceRequests {
		t.keep(fmt.Errorf("the trace stopped at %d requests, the most a replay reads", workload.MaxTraceRequests))
		return
	}
	t.lines++
	rec := p.rec
	line := workload.TraceRequest{Seq: rec.Seq, T: workload.FormatMs(rec.Intended.Duration()), Client: rec.Client,
		Key: rec.Key, Work: workload.FormatMs(max(rec.Work, 0)), Sent: workload.FormatMs(rec.Sent.Duration()),
		Attempts: rec.Attempts, Outcome: rec.Outcome.String()}
	if p.ended {
		line.Latency = workload.FormatMs(rec.Latency())
	}
	for _, a := range p.answers {
		ta := workload.TraceAnswer{Kind: a.Kind.String(), Sent: workload.FormatMs(a.Sent.Duration()), Server: a.Server,
			Result: a.Result.String()}
		if a.Queue >= 0 {
			ta.Queue = workload.FormatMs(a.Queue)
		}
		if a.Service >= 0 {
			ta.Service = workload.FormatMs(a.Service)
		}
		line.Answers = append(line.Answers, ta)
	}
	t.line(line)
}
