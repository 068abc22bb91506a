package server

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
)

// Cancel removes the job id from the queue at now and appends its Cancelled
// reply; a job already in service (or unknown) is left alone. A cancelled
// job is not reported to the limit: its client, not the server, gave up.
// It scans the queue: O(queued).
func (s *Server) Cancel(now clock.Instant, id uint64, out []Reply) []Reply {
	out = s.catchUp(now, out)
	i := s.q.find(id)
	if i < 0 {
		return out
	}
	w := s.q.removeAt(i)
	return append(out, w.reply(Cancelled, ReasonCancelled, s.last))
}

// Kill takes the server down at now: every queued and in-service job ends
// Lost "killed" (in service first, then the queue oldest first) and arrivals
// are Refused until Restart. Replies already handed out with a later At (fast
// errors) stand. Lost jobs are not reported to the limit.
func (s *Server) Kill(now clock.Instant, out []Reply) []Reply {
	out = s.catchUp(now, out)
	return s.kill(s.last, out)
}

func (s *Server) kill(now clock.Instant, out []Reply) []Reply {
	if !s.up {
		return out
	}
	for _, idx := range s.svc.heap {
		a := &s.svc.slots[idx]
		r := reply(a.id, a.kind, Lost, "killed", now, a.enq, a.start)
		r.Hit = a.hit
		out = append(out, r)
	}
	for i := 0; i < s.q.n; i++ {
		out = append(out, s.q.at(i).reply(Lost, "killed", now))
	}
	s.lost += uint64(s.svc.busy() + s.q.n)
	s.svc.clear()
	s.meter.busy = 0
	s.q.clear()
	s.up = false
	return out
}

// Restart brings the server up at now, empty, with its cache cleared and no
// pause running; run-time settings (speed, errors, queue, limit) are kept.
// Restarting a server that is up kills it first: its jobs end Lost, delivered
// with the next reply-returning call.
func (s *Server) Restart(now clock.Instant) {
	s.settle(now)
	s.pending = s.kill(s.last, s.pending)
	s.up = true
	s.cache.clear()
	s.wc.resume(s.last)
}

// SetSpeed changes the speed from now on; work already done stands and the
// remaining work of jobs in service runs at the new speed.
func (s *Server) SetSpeed(now clock.Instant, speed float64) error {
	if err := checkSpeed(speed); err != nil {
		return fmt.Errorf("server %q: %w", s.cfg.Name, err)
	}
	s.settle(now)
	s.wc.setSpeed(s.last, speed)
	s.cfg.Speed = speed
	return nil
}

// Pause stops all work from now for d (an on-demand GC pause), or extends a
// pause already running to end at now + d if that is later.
func (s *Server) Pause(now clock.Instant, d time.Duration) {
	s.settle(now)
	s.wc.rebase(s.last)
	s.wc.pauseUntil(s.last.Add(d))
}

// SetFail turns fail mode (every arrival a fast 500) on or off from now.
func (s *Server) SetFail(now clock.Instant, on bool) {
	s.settle(now)
	s.cfg.Fail = on
}

// SetErrors sets the share of fast 500s, in [0, 1], from now.
func (s *Server) SetErrors(now clock.Instant, share float64) error {
	if err := checkShare(share); err != nil {
		return fmt.Errorf("server %q: %w", s.cfg.Name, err)
	}
	s.settle(now)
	s.cfg.Errors = share
	return nil
}

// SetLimit replaces the concurrency limit (nil = none) from now. Jobs
// admitted before are not reported to the new limit.
func (s *Server) SetLimit(now clock.Instant, l limit.Limit) {
	s.settle(now)
	s.cfg.Limit = l
	s.limGen++
}

// SetWorkers changes the number of workers from now. More workers start
// queued jobs at once; fewer take no job away: the jobs in service all
// finish as they would have, and no job starts while the busy workers are
// at or over the new count (so busy may exceed Workers until they have).
func (s *Server) SetWorkers(now clock.Instant, n int) error {
	if n < 1 || n > MaxWorkers {
		return fmt.Errorf("server %q: workers = %d, must be in [1, %d]", s.cfg.Name, n, MaxWorkers)
	}
	s.settle(now)
	s.cfg.Workers = n
	s.svc.resize(n)
	if s.up {
		s.pending = s.startNext(s.last, s.pending)
	}
	return nil
}

// SetQueue changes the queue capacity (0 = unbounded), the discipline and
// drop-expired from now. If the queue is now over capacity, the excess ends
// as the new discipline would treat it: LIFO evicts the oldest jobs
// ("lifo-evicted"), FIFO rejects the newest ("queue-full").
func (s *Server) SetQueue(now clock.Instant, capacity int, lifo, dropExpired bool) error {
	if capacity < 0 || capacity > MaxQueueCap {
		return fmt.Errorf("server %q: queue.capacity = %d, must be in [0, %d] (0 = unbounded)", s.cfg.Name, capacity, MaxQueueCap)
	}
	s.settle(now)
	s.cfg.QueueCap, s.cfg.LIFO, s.cfg.DropExpired = capacity, lifo, dropExpired
	for capacity > 0 && s.q.n > capacity {
		if lifo {
			s.pending = s.evictOldest(s.last, s.pending)
			continue
		}
		w := s.q.popBack()
		s.rejected++
		s.pending = s.end(w.reply(Rejected, "queue-full", s.last), w.inflight, w.gen, w.delay, s.pending)
	}
	return nil
}

// SetMaxOutstanding changes the cap on queued + in service (0 = none) from
// now. A lower cap takes no job away: arrivals are rejected until the
// server is under it.
func (s *Server) SetMaxOutstanding(now clock.Instant, n int) error {
	if n < 0 {
		return fmt.Errorf("server %q: max_outstanding = %d, must be >= 0 (0 = no limit)", s.cfg.Name, n)
	}
	s.settle(now)
	s.cfg.MaxOutstanding = n
	return nil
}

// SetQueueTimeout changes how long a job may wait in the queue (0 = no
// limit) from now. Jobs that have already waited at least the new timeout
// end Rejected "queue-timeout" at now, oldest first, as they would have
// had the timeout been in force; the rest time out at their enqueue + d.
func (s *Server) SetQueueTimeout(now clock.Instant, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("server %q: queue_timeout = %v, must be >= 0 (0 = none)", s.cfg.Name, d)
	}
	s.settle(now)
	s.cfg.QueueTimeout = d
	for d > 0 && s.q.n > 0 && s.q.at(0).enq.Add(d) <= s.last {
		w := s.q.popFront()
		s.rejected++
		s.pending = s.end(w.reply(Rejected, "queue-timeout", s.last), w.inflight, w.gen, w.delay, s.pending)
	}
	return nil
}

// SetErrorTime changes how long a fast error takes (0 = DefaultErrorTime)
// for the errors drawn from now; errors already answered keep theirs.
func (s *Server) SetErrorTime(now clock.Instant, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("server %q: error_time = %v, must be >= 0", s.cfg.Name, d)
	}
	if d == 0 {
		d = DefaultErrorTime
	}
	s.settle(now)
	s.cfg.ErrorTime = d
	return nil
}

// SetHitFactor changes the cost of a cache hit, a share of the work in
// [0, 1], for the jobs that start from now; jobs in service keep theirs.
func (s *Server) SetHitFactor(now clock.Instant, f float64) error {
	if !(f >= 0 && f <= 1) {
		return fmt.Errorf("server %q: cache.hit_factor = %g, must be in [0, 1]", s.cfg.Name, f)
	}
	s.settle(now)
	s.cfg.HitFactor = f
	return nil
}

// SetCacheSize replaces the key cache with an empty one of size keys (0 =
// none) from now: a resized cache starts cold, as a restarted server's
// does. The jobs in service keep the cost their lookup gave them.
func (s *Server) SetCacheSize(now clock.Instant, size int) error {
	if size < 0 || size > MaxCacheSize {
		return fmt.Errorf("server %q: cache.size = %d, must be in [0, %d] (0 = none)", s.cfg.Name, size, MaxCacheSize)
	}
	s.settle(now)
	s.cache = newLRU(size)
	s.cfg.CacheSize = size
	return nil
}
