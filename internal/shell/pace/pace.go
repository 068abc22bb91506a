// Package pace times the live processes' injected waits — network hops,
// service times, the backend's held answers, the loadgen's pacing — so that
// each ends when it is meant to, not up to a millisecond later.
//
// Why not Go's own timers: the runtime sleeps in epoll_wait, whose timeout is
// whole milliseconds (runtime/netpoll_epoll.go rounds a wait under 1 ms up
// to 1 ms and truncates a longer one), so a timer fires up to 1 ms after its
// instant. A lab of 5 ms hops would carry a 10-20% error in the very thing
// it shows. What epoll does deliver at once is a file descriptor becoming
// readable, and a Linux timerfd becomes readable at its instant to the
// nanosecond (an hrtimer, with no timer slack).
//
// So a Scheduler keeps every pending wait of the process in one min-heap of
// deadlines and one timerfd armed at the earliest. A single goroutine reads
// the timerfd through Go's netpoller (no thread of its own, no CPU while it
// waits) and, when it fires, wakes every wait that is due. The cost is one
// heap operation per wait, one timerfd_settime when a wait becomes the
// earliest, and one wake-up per batch of waits due together; with no wait
// pending the goroutine is gone, so an idle process pays nothing.
// (docs/architecture.md, "The shells: precise waits".)
//
// Waits never end early: each ends at or after its deadline. The
// Scheduler's statistics record how late each kind of wait ended
// (Stats), which bench/timing.sh reads from the processes' logs.
//
// Runtime is the same interface on Go's own timers: the shells' tests that
// run in a testing/synctest bubble use it (the bubble's fake clock moves
// only Go's timers), and the benchmark uses it as the peer.
package pace

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Kind says what a wait is for, for the statistics.
type Kind uint8

const (
	// Hop is a network hop a process sleeps: the lb's legs, the loadgen's
	// client leg, a cancellation's legs.
	Hop Kind = iota
	// Service is the backend core's next deadline: a job's end, a GC
	// pause's end, a queue timeout.
	Service
	// Answer is the backend holding an answer until its instant plus the
	// hop back.
	Answer
	// Pacing is the loadgen loop's timer: arrivals, think times, backoffs,
	// hedges, deadlines.
	Pacing
	numKinds
)

var kindNames = [numKinds]string{"hop", "service", "answer", "pacing"}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// Env is the environment variable that, set to "runtime", makes Default
// return Runtime: the benchmark's switch between the two mechanisms in
// the real processes.
const Env = "LBLAB_WAITS"

// base is instant 0 of every Scheduler's monotonic clock.
var base = time.Now()

// mono is nanoseconds since base, from the monotonic clock.
func mono() int64 { return int64(time.Since(base)) }

// instant converts a wall time (with its monotonic reading) to mono.
func instant(t time.Time) int64 { return int64(t.Sub(base)) }

// Scheduler times waits. Use Default (precise) or Runtime (Go's timers).
type Scheduler struct {
	runtime bool // Go's own timers: no heap, no alarm

	mu       sync.Mutex
	heap     heap
	running  bool  // the loop goroutine is alive
	sleeping bool  // ... and waiting on the alarm, armed at armed
	armed    int64 // the deadline the alarm is set for while sleeping
	alarm    alarm
	alarmAt  int64 // the alarm's instant: armed - lead; 0 when set to wake the loop to exit
	lead     int64 // how early the alarm is armed this sleep (spin.go)
	spin     spinner
	tally    tally
	// behind: until this instant (mono) Sleep and Wait use Go's timers,
	// because the loop fell behind (overload.go).
	behind atomic.Int64
	ewma   int64 // the loop's recent firing lateness, ns (overload.go)
	falls  int64 // how often it fell behind
}

var (
	defaultOnce sync.Once
	defaultS    *Scheduler
)

// Runtime is the Scheduler on Go's own timers.
var Runtime = &Scheduler{runtime: true}

// Default returns the process's precise Scheduler, made at first use
// (Runtime when $LBLAB_WAITS is "runtime", or where no timerfd can be
// made: then the waits are as late as Go's timers).
func Default() *Scheduler {
	defaultOnce.Do(func() { defaultS = choose(os.Getenv(Env)) })
	return defaultS
}

// choose is Default's choice for the value of $LBLAB_WAITS.
func choose(env string) *Scheduler {
	if env == "runtime" {
		return Runtime
	}
	s, err := newScheduler()
	if err != nil {
		return Runtime
	}
	return s
}

// Or returns s, or Default when s is nil: the shells' configs leave it nil.
func Or(s *Scheduler) *Scheduler {
	if s == nil {
		return Default()
	}
	return s
}

// newScheduler makes a precise Scheduler with its own alarm.
func newScheduler() (*Scheduler, error) {
	a, err := newAlarm()
	if err != nil {
		return nil, err
	}
	return &Scheduler{alarm: a}, nil
}

// Precise reports whether s is a precise scheduler (not Go's timers).
func (s *Scheduler) Precise() bool { return !s.runtime }

// Sleep blocks for d.
func (s *Scheduler) Sleep(k Kind, d time.Duration) {
	if d > 0 {
		s.wait(k, mono()+int64(d), nil)
	}
}

// SleepUntil blocks until t.
func (s *Scheduler) SleepUntil(k Kind, t time.Time) {
	s.wait(k, instant(t), nil)
}

// Wait blocks for d, or until cancel is closed: true when d passed.
func (s *Scheduler) Wait(k Kind, d time.Duration, cancel <-chan struct{}) bool {
	if d <= 0 {
		return true
	}
	return s.wait(k, mono()+int64(d), cancel)
}

// WaitUntil blocks until t, or until cancel is closed: true when t came.
func (s *Scheduler) WaitUntil(k Kind, t time.Time, cancel <-chan struct{}) bool {
	return s.wait(k, instant(t), cancel)
}

var entries = sync.Pool{New: func() any { return &entry{ch: make(chan struct{}, 1), idx: -1} }}

func (s *Scheduler) wait(k Kind, at int64, cancel <-chan struct{}) bool {
	if at <= mono() {
		return true
	}
	if s.runtime || s.isBehind() {
		return s.runtimeWait(k, at, cancel)
	}
	e := entries.Get().(*entry)
	e.at, e.kind = at, k
	s.push(e)
	select {
	case <-e.ch:
		s.tally.record(k, mono()-at)
		entries.Put(e)
		return true
	case <-cancel:
		s.remove(e) // under the lock: fired (a value in ch) or removed, never both
		select {
		case <-e.ch:
		default:
		}
		entries.Put(e)
		return false
	}
}

func (s *Scheduler) runtimeWait(k Kind, at int64, cancel <-chan struct{}) bool {
	d := time.Duration(at - mono())
	if cancel == nil {
		time.Sleep(d)
	} else {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-cancel:
			t.Stop()
			return false
		}
	}
	s.tally.record(k, mono()-at)
	return true
}

// push queues e and makes sure the loop will wake for it.
func (s *Scheduler) push(e *entry) {
	s.mu.Lock()
	s.pushLocked(e)
	s.mu.Unlock()
}

func (s *Scheduler) pushLocked(e *entry) {
	s.heap.push(e)
	switch {
	case !s.running:
		s.running = true
		go s.loop()
	case s.sleeping && e.at < s.armed:
		s.arm(e.at)
	}
}

// remove takes e out of the heap if it is still there; true if it was.
func (s *Scheduler) remove(e *entry) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removeLocked(e)
}

// removeLocked: when that empties the heap, the sleeping loop is woken to
// exit, so that no goroutine outlives the last wait.
func (s *Scheduler) removeLocked(e *entry) bool {
	if e.idx < 0 {
		return false
	}
	s.heap.remove(e)
	if len(s.heap) == 0 && s.sleeping {
		s.alarmAt = 0
		s.alarm.set(0) // a past instant: at once
	}
	return true
}

// arm sets the alarm for deadline at, lead early; s.mu is held.
func (s *Scheduler) arm(at int64) {
	s.armed, s.alarmAt = at, at-s.lead
	s.alarm.set(s.alarmAt)
}

// loop wakes due waits until none is left.
func (s *Scheduler) loop() {
	s.mu.Lock()
	for {
		now := mono()
		for len(s.heap) > 0 && s.heap[0].at <= now {
			e := s.heap.pop()
			s.noteFired(now, now-e.at)
			s.fire(e)
		}
		if len(s.heap) == 0 {
			s.running = false
			s.mu.Unlock()
			return
		}
		next := s.heap[0].at
		s.lead = s.spin.early(now)
		if next-now <= s.lead { // close enough: finish by spinning
			s.mu.Unlock()
			runtime.Gosched()
			s.mu.Lock()
			s.spin.spent(mono() - now)
			continue
		}
		s.sleeping = true
		s.arm(next)
		s.mu.Unlock()
		err := s.alarm.wait()
		s.mu.Lock()
		s.sleeping = false
		if woke := mono(); s.alarmAt != 0 && woke >= s.alarmAt {
			s.spin.observe(woke - s.alarmAt)
		}
		if err != nil { // the alarm is broken: finish on Go's timers
			s.mu.Unlock()
			time.Sleep(time.Duration(next - mono()))
			s.mu.Lock()
		}
	}
}

// fire hands a due entry over: its channel gets a value (it has room: an
// entry fires at most once per push), or its function starts. s.mu is held.
func (s *Scheduler) fire(e *entry) {
	if e.f != nil {
		go e.run(s, e.at, e.f)
		return
	}
	if e.timer {
		s.tally.record(e.kind, mono()-e.at)
	}
	select {
	case e.ch <- struct{}{}:
	default:
	}
}
