package pace

import "time"

// Timer is a wait that can be moved or stopped: one that runs a function
// (AfterFunc), or one that sends on its channel C (NewTimer). On the
// precise Scheduler a Reset or Stop leaves no stale value in C and no
// stale call behind it; on Runtime a firing already under way when Reset
// or Stop is called may still deliver (as with time.AfterFunc), so callers
// treat a tick as "look again", which every shell does.
type Timer struct {
	C <-chan struct{} // NewTimer's: a value when it fires (capacity 1)

	s  *Scheduler
	e  entry       // precise
	rt *time.Timer // Runtime
	at int64       // Runtime: the instant it is armed for
}

// AfterFunc runs f on its own goroutine once d has passed.
func (s *Scheduler) AfterFunc(k Kind, d time.Duration, f func()) *Timer {
	t := &Timer{s: s, e: entry{idx: -1, kind: k, f: f}}
	if s.runtime {
		t.at = mono() + int64(d)
		t.rt = time.AfterFunc(d, func() { s.tally.record(k, mono()-t.at); f() })
		return t
	}
	t.Reset(d)
	return t
}

// NewTimer returns a stopped timer whose channel C receives a value when it
// fires; arm it with Reset or ResetAt.
func (s *Scheduler) NewTimer(k Kind) *Timer {
	ch := make(chan struct{}, 1)
	t := &Timer{C: ch, s: s, e: entry{idx: -1, kind: k, ch: ch, timer: true}}
	if s.runtime {
		t.rt = time.AfterFunc(time.Hour, func() {
			s.tally.record(k, mono()-t.at)
			select {
			case ch <- struct{}{}:
			default:
			}
		})
		t.rt.Stop()
	}
	return t
}

// Reset arms t to fire after d (at once when d <= 0); true if it was pending.
func (t *Timer) Reset(d time.Duration) bool { return t.resetAt(mono() + int64(d)) }

// ResetAt arms t to fire at t; true if it was pending. Re-arming a pending
// timer at the instant it already has costs only the lock.
func (t *Timer) ResetAt(at time.Time) bool { return t.resetAt(instant(at)) }

func (t *Timer) resetAt(at int64) bool {
	s := t.s
	if s.runtime {
		pending := t.rt.Stop()
		t.drain()
		t.at = at
		t.rt.Reset(time.Duration(at - mono()))
		return pending
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	pending := t.e.idx >= 0
	if pending && t.e.at == at {
		return true
	}
	t.drain()
	if at <= mono() {
		// Already due (a loop that fell behind re-arms for the past): fire
		// here, not by a round trip through the loop goroutine, which would
		// make a late caller later still.
		if pending {
			s.removeLocked(&t.e) // wakes an idle loop to exit
		}
		t.e.at = at
		s.fire(&t.e)
		return pending
	}
	if pending {
		s.heap.remove(&t.e)
	}
	t.e.at = at
	s.pushLocked(&t.e)
	return pending
}

// Stop disarms t; true if it was pending (it then will not fire).
func (t *Timer) Stop() bool {
	s := t.s
	if s.runtime {
		pending := t.rt.Stop()
		t.drain()
		return pending
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t.drain()
	return s.removeLocked(&t.e)
}

// drain empties C (a fired value not yet received).
func (t *Timer) drain() {
	if t.e.ch == nil {
		return
	}
	select {
	case <-t.e.ch:
	default:
	}
}
