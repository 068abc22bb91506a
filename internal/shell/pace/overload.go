package pace

// When a process's CPU is saturated, the precise path loses: its loop
// goroutine waits in the run queue like every other, and then each woken
// wait waits there again, while Go's timers are run by the scheduler itself
// at every scheduling point; its system calls (timerfd_settime, read) cost
// CPU the process does not have. bench/timing.sh saw the lb's hops end tens
// of milliseconds late at 5,000 requests/s on a loaded box, against ~10 ms
// on Go's timers. So the loop watches how late it fires (an exponential
// average over the last firings, weight 1/16); past behindLate it sends
// new Sleeps and Waits to Go's timers for behindFor, then tries again.
// Timers (the backend's core timer, the loadgen's loop timer) stay: one
// each.
const (
	behindLate = 1_000_000     // ns: the average firing lateness that means overload
	behindFor  = 1_000_000_000 // ns on Go's timers before trying again
)

// noteFired feeds the lateness of one firing at now; s.mu is held.
func (s *Scheduler) noteFired(now, late int64) {
	s.ewma += (late - s.ewma) / 16
	if s.ewma > behindLate {
		s.ewma = 0
		s.falls++
		s.behind.Store(now + behindFor)
	}
}

// isBehind reports whether waits go to Go's timers for now.
func (s *Scheduler) isBehind() bool {
	b := s.behind.Load()
	return b != 0 && mono() < b
}
