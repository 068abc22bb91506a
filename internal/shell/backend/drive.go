package backend

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// waiter is a request handler blocked until its job's reply is dispatched.
type waiter struct {
	ch     chan outcome // buffered 1: dispatch never blocks
	req    uint64       // X-Lab-Request, when it is a number
	hasReq bool
	kind   server.Kind // X-Lab-Attempt, for /admin/cancel's attempt filter
}

// outcome is a reply with the server's load when it was produced.
type outcome struct {
	server.Reply
	load load.Report // the server's load report as it replied
}

// apply runs f on the core at the current instant under the lock, delivers
// the replies it produced (and any a setter left pending), dispatches them
// to their waiters and re-arms the timer.
func (b *Backend) apply(f func(now clock.Instant, out []server.Reply) []server.Reply) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.applyLocked(f)
}

func (b *Backend) applyLocked(f func(now clock.Instant, out []server.Reply) []server.Reply) {
	now := b.now()
	b.out = f(now, b.out[:0])
	b.out = b.core.Advance(now, b.out) // setters keep their replies pending until a call like this
	// A deadline already past (a job of a few nanoseconds, done before we
	// got here) is met now rather than by the timer, which would cost a
	// timer firing and a goroutine switch for nothing. Bounded, in case.
	for i := 0; i < 64; i++ {
		t, ok := b.core.NextDeadline()
		if !ok {
			break
		}
		if now = b.now(); t > now {
			break
		}
		b.out = b.core.Advance(now, b.out)
	}
	b.dispatchLocked(now)
	b.idleAfterLocked()
	b.rearmLocked()
}

// arrive registers w under a fresh job id and offers the job to the core.
// Job ids are the backend's own, so attempts that share an X-Lab-Request
// (a retry arriving while its timed-out predecessor still queues) never
// collide, and each attempt draws its error share afresh as in the sim.
func (b *Backend) arrive(job server.Job, w *waiter) uint64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextID++
	job.ID = b.nextID
	if job.Pick == 0 { // no X-Lab-Request: a fault draws by the job number
		job.Pick = job.ID
	}
	w.kind = job.Kind
	b.waiters[job.ID] = w
	b.applyLocked(func(now clock.Instant, out []server.Reply) []server.Reply {
		return b.core.Arrive(now, job, out)
	})
	return job.ID
}

// cancel removes job id from the queue (a job in service or already
// answered is left alone).
func (b *Backend) cancel(id uint64) {
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		return b.core.Cancel(now, id, out)
	})
}

// cancelRequest cancels every queued job that carries X-Lab-Request req
// (and, when only is true, X-Lab-Attempt kind) and returns how many there
// were.
func (b *Backend) cancelRequest(req uint64, kind server.Kind, only bool) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	b.applyLocked(func(now clock.Instant, out []server.Reply) []server.Reply {
		for id, w := range b.waiters {
			if w.hasReq && w.req == req && (!only || w.kind == kind) {
				out = b.core.Cancel(now, id, out)
				if k := len(out); k > 0 && out[k-1].ID == id && out[k-1].Status == server.Cancelled {
					n++
				}
			}
		}
		return out
	})
	return n
}

// killCore takes the core down: every queued and in-service job ends Lost.
func (b *Backend) killCore() {
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		return b.core.Kill(now, out)
	})
}

// dispatchLocked hands each reply in b.out to its waiter.
func (b *Backend) dispatchLocked(now clock.Instant) {
	if len(b.out) == 0 {
		return
	}
	rep := b.core.Report(now)
	for _, r := range b.out {
		w, ok := b.waiters[r.ID]
		if !ok {
			continue
		}
		delete(b.waiters, r.ID)
		w.ch <- outcome{Reply: r, load: rep}
	}
}

// rearmLocked arms the one timer at the core's next deadline.
func (b *Backend) rearmLocked() {
	t, ok := b.core.NextDeadline()
	if !ok {
		if b.armed {
			b.timer.Stop()
			b.armed = false
		}
		return
	}
	if b.armed && t == b.armedAt {
		return
	}
	b.timer.ResetAt(b.wallTime(t))
	b.armed, b.armedAt = true, t
}

// onTimer advances the core to now. A stale firing (the timer was re-armed
// while this waited for the lock) only advances early, which is harmless.
func (b *Backend) onTimer() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.armed = false
	b.applyLocked(func(_ clock.Instant, out []server.Reply) []server.Reply { return out })
}

// leaves returns the instant a reply reaches the balancer: its At (a fast
// error leaves after ErrorTime) plus the hop back, drawn for the attempt's
// pick number as the simulator draws it (a request without X-Lab-Request
// draws by the backend's own job number). Counted from At, not from when
// the reply was dispatched, so a core timer that fired a little late is
// made up for by the hold, as the simulator's hop event starts at At.
func (b *Backend) leaves(r server.Reply, info reqInfo) clock.Instant {
	pick := r.ID
	if info.hasReq {
		pick = policy.PickNumber(info.req, info.try)
	}
	net := b.backTo(info.from, policy.Network{Hop: b.cfg.Hop, Jitter: b.cfg.Jitter, Seed: b.cfg.Seed})
	return r.At.Add(net.Delay(pick, policy.ServerBack))
}

// wallTime converts an instant of the backend's clock to wall time.
func (b *Backend) wallTime(t clock.Instant) time.Time { return b.clk.Epoch().Add(t.Duration()) }
