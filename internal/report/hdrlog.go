package report

import (
	"io"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/policy"
)

// HdrInterval is the length of one interval of the HdrHistogram log.
const HdrInterval = time.Second

// hdrMax is the largest latency the log's histograms hold (longer ones are
// recorded as it); 3 significant digits, like the report's.
const hdrMax = int64(time.Hour)

// HdrLog writes the latency of successful requests as an HdrHistogram
// interval log (--hdr-log), with hdrhistogram-go's log writer: one interval
// histogram per second of each run, by the instant the request ended,
// values in nanoseconds (HdrHistogram's plotters show them in ms by
// default), each tagged with the run's name. Timestamps are seconds from
// the run's start. Every second of a run has its line, empty or not.
type HdrLog struct {
	w   *hdr.HistogramLogWriter
	err error
}

// NewHdrLog writes the log's header lines to w (title is a comment).
func NewHdrLog(w io.Writer, title string) *HdrLog {
	h := &HdrLog{w: hdr.NewHistogramLogWriter(w)}
	h.keep(h.w.OutputLogFormatVersion())
	h.keep(h.w.OutputComment("[" + strings.ReplaceAll(title, "\n", " ") + "; times in seconds from the run's start, values in ns]"))
	h.keep(h.w.OutputLegend())
	return h
}

func (h *HdrLog) keep(err error) {
	if h.err == nil {
		h.err = err
	}
}

// Run returns the log of the run called name (its histograms' tag).
func (h *HdrLog) Run(name string) RequestLog {
	tag := strings.Map(func(r rune) rune {
		if r == ',' || r == ' ' || r == '\r' || r == '\n' {
			return '_'
		}
		return r
	}, name)
	return &hdrRun{h: h, cur: hdr.New(1, hdrMax, 3), tag: tag}
}

// Close returns the first write error.
func (h *HdrLog) Close() error { return h.err }

type hdrRun struct {
	h   *HdrLog
	cur *hdr.Histogram
	tag string
	idx int64 // the interval cur covers
}

func (r *hdrRun) RequestStarted(RequestRecord)  {}
func (r *hdrRun) AttemptAnswered(AttemptRecord) {}

func (r *hdrRun) RequestEnded(rec RequestRecord) {
	if rec.Outcome != policy.Succeeded {
		return
	}
	r.advance(int64(rec.End) / int64(HdrInterval)) // a live answer a little out of order joins the current interval
	_ = r.cur.RecordValue(min(max(int64(rec.Latency()), 1), hdrMax))
}

// advance writes the intervals before idx.
func (r *hdrRun) advance(idx int64) {
	for r.idx < idx {
		r.cur.SetTag(r.tag)
		r.cur.SetStartTimeMs(r.idx * HdrInterval.Milliseconds())
		r.cur.SetEndTimeMs((r.idx + 1) * HdrInterval.Milliseconds())
		r.h.keep(r.h.w.OutputIntervalHistogram(r.cur))
		r.cur.Reset()
		r.idx++
	}
}

// RunEnded writes the intervals up to the one holding end.
func (r *hdrRun) RunEnded(end clock.Instant) {
	last := int64(end) / int64(HdrInterval)
	if int64(end)%int64(HdrInterval) != 0 || last == 0 {
		last++
	}
	if r.cur.TotalCount() > 0 { // a request that ended at end itself
		last = max(last, r.idx+1)
	}
	r.advance(last)
}
