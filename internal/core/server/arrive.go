package server

import (
	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// Arrive offers job at now. After doing what fell due at or before now, it
// appends the job's immediate reply, if it gets one, and any LIFO eviction.
// The checks, in order:
//
//  1. down: Refused "down".
//  2. the job's Fault draws a status (Fault.Draw by job.Pick): that status
//     ("fault", Code set) at now plus the fault's delay, without a worker or
//     a queue place.
//  3. Fail, or rng.HashFloat(Seed, job.ID, salt) < Errors: Error ("fail",
//     "error") at now + ErrorTime, without a worker or a queue place.
//  4. queued + in service >= MaxOutstanding: Rejected "max-outstanding".
//  5. queued + in service >= the limit's Limit(): Rejected "limit".
//  6. it would queue and a bounded FIFO queue is full: Rejected "queue-full".
//
// Otherwise the job is admitted: it starts at once on an idle worker, or
// joins the queue (a full bounded LIFO queue first evicts its oldest job,
// Rejected "lifo-evicted"). A job without work draws it from Config.Work.
// Admitted jobs, and only they, are later reported to the limit. A fault's
// delay drawn for an admitted job holds no worker: every answer it gets
// leaves the server that much later (Lost and Cancelled ends excepted).
func (s *Server) Arrive(now clock.Instant, job Job, out []Reply) []Reply {
	out = s.catchUp(now, out)
	now = s.last
	s.arrived++
	r := Reply{ID: job.ID, Kind: job.Kind, At: now}
	if !s.up {
		r.Status, r.Reason = Refused, "down"
		return append(out, r)
	}
	faultStatus, delay := job.Fault.Draw(s.cfg.Seed, job.Pick)
	if faultStatus != 0 {
		s.faults++
		r.Status, r.Reason, r.Code = FaultStatus(faultStatus), ReasonFault, faultStatus
		r.At = now.Add(delay)
		return append(out, r)
	}
	if reason := s.errorReason(job.ID); reason != "" {
		s.errors++
		r.Status, r.Reason = Error, reason
		r.At, r.Service = now.Add(s.cfg.ErrorTime), s.cfg.ErrorTime
		return append(out, r)
	}
	if reason := s.refusal(); reason != "" {
		s.rejected++
		r.Status, r.Reason = Rejected, reason
		return append(out, r)
	}
	w := waiting{
		id: job.ID, work: job.Work, key: job.Key, deadline: job.Deadline, kind: job.Kind,
		enq: now, inflight: s.q.n + s.svc.busy() + 1, gen: s.limGen, delay: delay,
	}
	if w.work < 0 {
		w.work = max(s.cfg.Work.Sample(s.src), 0)
	}
	if s.svc.idle() && s.q.n == 0 {
		s.start(now, w)
		return out
	}
	return s.enqueue(now, w, out)
}

// errorReason decides whether the job is answered with a fast 500.
func (s *Server) errorReason(id uint64) string {
	switch {
	case s.cfg.Fail:
		return "fail"
	case s.cfg.Errors > 0 && rng.HashFloat(s.cfg.Seed, id, s.errSalt) < s.cfg.Errors:
		return "error"
	}
	return ""
}

// refusal returns why an arriving job is rejected at once, or "".
func (s *Server) refusal() string {
	n := s.q.n + s.svc.busy()
	switch {
	case s.cfg.MaxOutstanding > 0 && n >= s.cfg.MaxOutstanding:
		return "max-outstanding"
	case s.cfg.Limit != nil && n >= s.cfg.Limit.Limit():
		return "limit"
	case s.cfg.QueueCap > 0 && !s.cfg.LIFO && s.q.n >= s.cfg.QueueCap:
		return "queue-full"
	}
	return ""
}

// enqueue queues w at now, evicting the oldest job from a full LIFO queue.
func (s *Server) enqueue(now clock.Instant, w waiting, out []Reply) []Reply {
	if s.cfg.QueueCap > 0 && s.q.n >= s.cfg.QueueCap {
		out = s.evictOldest(now, out)
	}
	s.q.pushBack(w)
	assert.That(s.cfg.QueueCap == 0 || s.q.n <= s.cfg.QueueCap, "server: a bounded queue holds more than its capacity")
	s.maxQueue = max(s.maxQueue, s.q.n)
	return out
}

// evictOldest ends the oldest queued job Rejected "lifo-evicted" at now.
func (s *Server) evictOldest(now clock.Instant, out []Reply) []Reply {
	w := s.q.popFront()
	s.rejected++
	return s.end(w.reply(Rejected, "lifo-evicted", now), w.inflight, w.gen, w.delay, out)
}
