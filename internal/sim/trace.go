package sim

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// TripsPerSecond is about how many requests a second a session follows
// (SessionOptions.Trips): at a lower rate every request, at a higher one
// every n-th by sequence number, n the rate in force over this.
const TripsPerSecond = 8

// MaxTripAttempts is how many attempts of one followed request are kept;
// the rest are only counted (Trip.More).
const MaxTripAttempts = 8

// A Trip is one followed request's story as the simulator saw it: its
// attempts, where each went and when, what each server did with it and
// what the client got. The instants not reached yet are clock.Never.
type Trip struct {
	Seq      uint64
	Client   int
	Intended clock.Instant // its intended start (latency counts from here)
	End      clock.Instant // clock.Never while it is pending
	Outcome  policy.Outcome
	Attempts []TripAttempt // in the order sent
	More     int           // attempts sent beyond MaxTripAttempts
}

// TripAttempt is one attempt of a followed request.
type TripAttempt struct {
	Kind     server.Kind
	Balancer int // the tier member it went through; -1 when the clients balance themselves
	Server   int // the server picked (the world's index); -1 when none was (yet)
	Sent     clock.Instant
	AtLB     clock.Instant // reached its balancer (clock.Never with client-side balancing)
	AtServer clock.Instant // reached the server
	Replied  clock.Instant // the server ended its part (answered, refused, dropped, ...)
	BackAtLB clock.Instant // the answer (or the balancer's own 504/503) left the balancer
	AtClient clock.Instant // the answer reached the client
	Status   server.Status // what the server did (once Replied)
	Result   policy.Result // what the client got (once AtClient)
	Queue    time.Duration // time queued at the server (once Replied)
	Service  time.Duration // time in service (once Replied)
	NoServer bool          // no eligible server: the balancer (or client) answered 503
	LBGaveUp bool          // the balancer's timeout answered 504 before the server
	GaveUp   clock.Instant // the client stopped waiting for it (its attempt timeout); clock.Never if it did not
	Late     bool          // its answer reached the client after the request had ended, or after the client gave up on it
	h        uint64
}

// tracer follows a bounded sample of requests: a ring of the newest ones
// started, so its memory does not grow with the run. It only watches; it
// changes nothing in the run.
type tracer struct {
	w     *world
	trips []Trip             // the ring
	next  int                // the slot the next followed request takes
	n     int                // slots used
	calls map[uint64]int     // a pending followed request's call handle -> slot
	atts  map[uint64]tripRef // a followed attempt's handle, until the world frees it
	// every is the stride in force over bin strideBin-1: the rate is
	// looked up once a bin, not once a request
	every, strideBin uint64
}

type tripRef struct{ slot, i int }

func newTracer(w *world, n int) *tracer {
	return &tracer{w: w, trips: make([]Trip, n), calls: map[uint64]int{}, atts: map[uint64]tripRef{}}
}

// stride is every how many requests one is followed at now (RequestStarted
// asks at each bin's first request and keeps the answer for the bin).
func (t *tracer) stride(now clock.Instant) uint64 {
	w := t.w
	if w.users > 0 {
		return 1
	}
	rate := w.lab.Clients.Rate
	if ws, ok := w.stream.(*workload.Stream); ok {
		rate = ws.RateAt(min(now, w.stopAt))
	}
	return max(1, uint64(rate/TripsPerSecond))
}

// RequestStarted (report.RequestLog) follows the request when its turn comes.
func (t *tracer) RequestStarted(r report.RequestRecord) {
	if b := uint64(r.Intended/clock.Instant(binWidth)) + 1; b != t.strideBin {
		t.every, t.strideBin = t.stride(r.Intended), b
	}
	if r.Seq%t.every != 0 {
		return
	}
	slot := t.next
	t.next = (t.next + 1) % len(t.trips)
	t.n = min(t.n+1, len(t.trips))
	old := &t.trips[slot]
	for _, a := range old.Attempts {
		if ref, ok := t.atts[a.h]; ok && ref.slot == slot {
			delete(t.atts, a.h)
		}
	}
	for c, s := range t.calls {
		if s == slot {
			delete(t.calls, c)
			break
		}
	}
	*old = Trip{Seq: r.Seq, Client: r.Client, Intended: r.Intended, End: clock.Never, Attempts: old.Attempts[:0]}
	t.calls[r.Call] = slot
}

// AttemptAnswered (report.RequestLog): an answer the transport's hooks
// have not seen is the client's own attempt timeout.
func (t *tracer) AttemptAnswered(r report.AttemptRecord) {
	slot, ok := t.calls[r.Call]
	if !ok {
		return
	}
	for i := range t.trips[slot].Attempts {
		a := &t.trips[slot].Attempts[i]
		if a.Sent == r.Sent && a.Kind == r.Kind && a.AtClient != r.At && a.GaveUp == clock.Never {
			if a.AtClient == clock.Never {
				a.GaveUp, a.Result = r.At, r.Result
			}
			return
		}
	}
}

// RequestEnded (report.RequestLog) records the outcome.
func (t *tracer) RequestEnded(r report.RequestRecord) {
	slot, ok := t.calls[r.Call]
	if !ok {
		return
	}
	delete(t.calls, r.Call)
	tr := &t.trips[slot]
	tr.End, tr.Outcome = r.End, r.Outcome
	for i := range tr.Attempts {
		if tr.Attempts[i].AtClient == clock.Never {
			tr.Attempts[i].Late = true // whatever comes back now, nobody waits for it
		}
	}
}

// RunEnded (report.RequestLog): nothing to write out.
func (t *tracer) RunEnded(clock.Instant) {}

// sent: attempt h of a call left the client.
func (t *tracer) sent(now clock.Instant, h uint64, a *attempt) {
	if a.Net.traced { // a handle the runtime freed without the world, now reused
		delete(t.atts, h)
	}
	a.Net.traced = false
	if len(t.calls) == 0 {
		return
	}
	slot, ok := t.calls[a.Call]
	if !ok {
		return
	}
	tr := &t.trips[slot]
	if len(tr.Attempts) == MaxTripAttempts {
		tr.More++
		return
	}
	a.Net.traced = true
	ta := TripAttempt{Kind: a.Kind, Balancer: int(a.Bal), Server: -1, Sent: now, AtLB: clock.Never, AtServer: clock.Never,
		Replied: clock.Never, BackAtLB: clock.Never, AtClient: clock.Never, GaveUp: clock.Never, Queue: -1, Service: -1, h: h}
	if t.w.clientLB {
		ta.Balancer = -1
		if a.Ticket.Valid {
			ta.Server = a.Ticket.Server
		}
	}
	tr.Attempts = append(tr.Attempts, ta)
	t.atts[h] = tripRef{slot, len(tr.Attempts) - 1}
}

// of is the followed attempt h (nil when h is not followed).
func (t *tracer) of(h uint64) *TripAttempt {
	ref, ok := t.atts[h]
	if !ok {
		return nil
	}
	return &t.trips[ref.slot].Attempts[ref.i]
}

func (t *tracer) atLB(now clock.Instant, h uint64) {
	if a := t.of(h); a != nil {
		a.AtLB = now
	}
}

func (t *tracer) picked(h uint64, server int, valid bool) {
	if a := t.of(h); a != nil && valid {
		a.Server = server
	}
}

func (t *tracer) noServer(now clock.Instant, h uint64) {
	if a := t.of(h); a != nil {
		a.NoServer, a.BackAtLB = true, now
	}
}

func (t *tracer) atServer(now clock.Instant, h uint64) {
	if a := t.of(h); a != nil {
		a.AtServer = now
	}
}

func (t *tracer) replied(r server.Reply) {
	if a := t.of(r.ID); a != nil {
		a.Replied, a.Status, a.Queue, a.Service = r.At, r.Status, r.Queue, r.Service
	}
}

func (t *tracer) backAtLB(now clock.Instant, h uint64, gaveUp bool) {
	if a := t.of(h); a != nil && a.BackAtLB == clock.Never {
		a.BackAtLB, a.LBGaveUp = now, gaveUp
	}
}

func (t *tracer) atClient(now clock.Instant, h uint64, res policy.Result, late bool) {
	if a := t.of(h); a != nil {
		a.AtClient = now
		if a.GaveUp == clock.Never {
			a.Result = res
		}
		a.Late = a.Late || late
	}
}

func (t *tracer) released(h uint64) { delete(t.atts, h) }

// sample is a copy of the followed requests, oldest first.
func (t *tracer) sample() []Trip {
	out := make([]Trip, 0, t.n)
	for k := range t.n {
		tr := t.trips[(t.next-t.n+k+len(t.trips))%len(t.trips)]
		tr.Attempts = append([]TripAttempt(nil), tr.Attempts...)
		out = append(out, tr)
	}
	return out
}

// Trips are the requests the session follows (SessionOptions.Trips of
// them: the newest ones started, about TripsPerSecond of each virtual
// second), oldest first, as they stand at the instant reached.
func (s *Session) Trips() []Trip {
	if s.w.trace == nil {
		return nil
	}
	return s.w.trace.sample()
}

// ServerName is the name of server i of the world (Trip's indices).
func (s *Session) ServerName(i int) string {
	if i < 0 || i >= len(s.w.servers) {
		return ""
	}
	return s.w.servers[i].spec.Name
}
