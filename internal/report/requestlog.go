package report

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// RequestLog is told about every request a client runtime runs, on either
// clock: the one hook behind the per-request exports (the trace that
// --record writes, the CSV of --out, the HdrHistogram log of --hdr-log).
// The runtime calls it; a driver calls RunEnded once when the run is over.
// Implementations keep I/O errors for their Close: a run is never stopped
// by its log.
type RequestLog interface {
	// RequestStarted reports a request the client started (in the order
	// they start, which is the order of their intended times).
	RequestStarted(r RequestRecord)
	// AttemptAnswered reports an attempt's answer that its request used
	// (a live attempt's answer, or its client-side timeout): the answers
	// the report's counters count.
	AttemptAnswered(a AttemptRecord)
	// RequestEnded reports the request's single outcome.
	RequestEnded(r RequestRecord)
	// RunEnded says the run is over at end: write out what is pending.
	RunEnded(end clock.Instant)
}

// RequestRecord is one request as its client saw it.
type RequestRecord struct {
	Call     uint64 // the runtime's handle for it: its AttemptRecords carry the same (reused once it ended)
	Seq      uint64
	Client   int
	Key      uint64
	Work     time.Duration // the work it carries at speed 1
	Intended clock.Instant // its intended start: latency counts from here
	Sent     clock.Instant // when its first attempt really left (live: later than Intended when the generator lagged)
	End      clock.Instant // when it ended (RequestEnded only)
	Attempts int           // attempts sent, hedges included (RequestEnded only)
	Outcome  policy.Outcome
	Server   string // the server whose answer ended it; "" when a timer did, or none was picked
}

// Latency is the time from the intended start to the end.
func (r RequestRecord) Latency() time.Duration { return r.End.Sub(r.Intended) }

// AttemptRecord is one attempt's answer as its client got it.
type AttemptRecord struct {
	Call    uint64 // its request's RequestRecord.Call
	Kind    server.Kind
	Sent    clock.Instant // when it left the client
	At      clock.Instant // when its answer (or its timeout) reached the client
	Result  policy.Result
	Server  string        // who answered; "" when none was picked, or the client gave up first
	Queue   time.Duration // time queued at the server as answered; < 0 unknown
	Service time.Duration // time in service as answered; < 0 unknown
}

// Tee is one RequestLog telling several; nil members are left out, and
// Tee of nothing is nil.
func Tee(logs ...RequestLog) RequestLog {
	var t tee
	for _, l := range logs {
		if l != nil {
			t = append(t, l)
		}
	}
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return t
}

type tee []RequestLog

func (t tee) RequestStarted(r RequestRecord) {
	for _, l := range t {
		l.RequestStarted(r)
	}
}

func (t tee) AttemptAnswered(a AttemptRecord) {
	for _, l := range t {
		l.AttemptAnswered(a)
	}
}

func (t tee) RequestEnded(r RequestRecord) {
	for _, l := range t {
		l.RequestEnded(r)
	}
}

func (t tee) RunEnded(end clock.Instant) {
	for _, l := range t {
		l.RunEnded(end)
	}
}
