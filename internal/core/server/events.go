package server

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
)

type event uint8

const (
	evNone    event = iota
	evFinish        // the job at the top of the service heap finishes
	evClock         // a pause starts or ends
	evTimeout       // the oldest queued job's queue timeout expires
)

// Advance appends everything due at or before now: completions (each freeing
// a worker for the next queued job), queue timeouts and expired drops.
func (s *Server) Advance(now clock.Instant, out []Reply) []Reply {
	return s.catchUp(now, out)
}

// catchUp delivers the pending replies and then advances to now.
func (s *Server) catchUp(now clock.Instant, out []Reply) []Reply {
	if len(s.pending) > 0 { // rare (a setter's replies): skip the copy's runtime call
		out = append(out, s.pending...)
		s.pending = s.pending[:0]
	}
	return s.advance(now, out)
}

// settle advances to now, keeping the replies for later (for the setters).
func (s *Server) settle(now clock.Instant) { s.pending = s.advance(now, s.pending) }

// advance handles the events due at or before now in time order; at equal
// instants a finish comes first (the freed worker may serve a job whose
// queue timeout falls at that instant), then a pause change, then a timeout.
func (s *Server) advance(now clock.Instant, out []Reply) []Reply {
	now = max(now, s.last)
	for {
		t, ev := s.nextEvent()
		if t > now {
			break
		}
		s.tick(t)
		switch ev {
		case evFinish:
			out = s.finish(t, out)
		case evClock:
			s.wc.step(t)
		case evTimeout:
			w := s.q.popFront()
			s.rejected++
			out = s.end(w.reply(Rejected, "queue-timeout", t), w.inflight, w.gen, w.delay, out)
		}
	}
	s.last = now
	s.tick(now) // what a caller then changes at now falls after it
	return out
}

// nextEvent returns the earliest event and its instant (Never, evNone if none).
func (s *Server) nextEvent() (clock.Instant, event) {
	t, ev := clock.Never, evNone
	if s.svc.busy() > 0 {
		t, ev = s.wc.finishAt(s.svc.top().target), evFinish
	}
	if c := s.wc.next(); c < t {
		t, ev = c, evClock
	}
	if d := s.timeoutAt(); d < t {
		t, ev = d, evTimeout
	}
	return t, ev
}

// timeoutAt is when the oldest queued job times out (Never if none).
func (s *Server) timeoutAt() clock.Instant {
	if s.q.n == 0 || s.cfg.QueueTimeout <= 0 {
		return clock.Never
	}
	return s.q.at(0).enq.Add(s.cfg.QueueTimeout)
}

// finish completes the job at the top of the heap at t and refills its worker.
func (s *Server) finish(t clock.Instant, out []Reply) []Reply {
	a := s.svc.pop() // read before startNext, whose push may reuse the slot
	s.meter.busy = s.svc.busy()
	r := reply(a.id, a.kind, OK, "", t, a.enq, a.start)
	r.Hit = a.hit
	s.completed++
	if s.cfg.Probed { // what it found on arrival, itself not counted
		s.hist.add(a.inflight-1, r.Queue+r.Service)
	}
	out = s.end(r, a.inflight, a.gen, a.delay, out)
	return s.startNext(t, out)
}

// startNext fills idle workers from the queue at t: FIFO takes the oldest,
// LIFO the newest. With DropExpired, a job whose deadline is at or before t
// ends Dropped instead of starting.
func (s *Server) startNext(t clock.Instant, out []Reply) []Reply {
	for s.svc.idle() && s.q.n > 0 {
		var w waiting
		if s.cfg.LIFO {
			w = s.q.popBack()
		} else {
			w = s.q.popFront()
		}
		if s.cfg.DropExpired && w.deadline != 0 && t >= w.deadline {
			s.dropped++
			out = s.end(w.reply(Dropped, ReasonExpired, t), w.inflight, w.gen, w.delay, out)
			continue
		}
		s.start(t, w)
	}
	return out
}

// start puts w on an idle worker at t. A cache hit costs HitFactor of the
// work; a miss costs all of it and caches the key.
func (s *Server) start(t clock.Instant, w waiting) {
	cost := float64(w.work)
	hit := false
	if s.cache.enabled() {
		s.lookups++
		if hit = s.cache.lookup(w.key); hit {
			s.hits++
			cost *= s.cfg.HitFactor
		}
	}
	s.seq++
	s.svc.push(active{
		id: w.id, kind: w.kind, enq: w.enq, start: t, target: s.wc.at(t) + cost,
		seq: s.seq, inflight: w.inflight, gen: w.gen, hit: hit, delay: w.delay,
	})
	s.meter.busy = s.svc.busy()
}

// end appends r for an admitted job and feeds it to the limit that admitted
// it: rtt = queue + service, dropped = not OK, queued = it waited. A fault's
// delay then holds the answer back: the server is done with the job, its
// caller hears delay later.
func (s *Server) end(r Reply, inflight int, gen uint32, delay time.Duration, out []Reply) []Reply {
	if l := s.cfg.Limit; l != nil && gen == s.limGen {
		l.OnSample(r.At, r.Queue+r.Service, inflight, r.Status != OK, r.Queue > 0)
	}
	r.At = r.At.Add(delay)
	return append(out, r)
}

// reply is the reply for a queued job that leaves the queue at t unserved.
func (w *waiting) reply(st Status, reason string, t clock.Instant) Reply {
	return reply(w.id, w.kind, st, reason, t, w.enq, clock.Never)
}
