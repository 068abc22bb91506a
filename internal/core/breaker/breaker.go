// Package breaker is the per-server circuit breaker a balancer keeps: a
// sans-I/O state machine that is handed the time and counts the last N
// results (Nygard's "Release It!" circuit breaker, as described by Fowler).
//
//	Closed --(window full and failed/total >= Threshold)--> Open
//	Open --(Open has elapsed)--> HalfOpen
//	HalfOpen --(all Probes probes succeed)--> Closed, with an empty window
//	HalfOpen --(one probe fails)--> Open
//
// Unlike sony/gobreaker, which reads the wall clock itself and counts in time
// buckets, this breaker counts a ring of the last Window results and never
// reads a clock, so the simulator can drive it in virtual time.
package breaker

import (
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// State is where a breaker is in its cycle.
type State uint8

const (
	// Closed lets every request through and counts results.
	Closed State = iota
	// Open lets nothing through until the open period ends.
	Open
	// HalfOpen lets a limited number of probe requests through.
	HalfOpen
)

// String returns closed, open or half-open.
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return fmt.Sprintf("state(%d)", uint8(s))
}

// Describe is the event-log line of server name's breaker going from one
// state to another: "breaker s2: closed -> open". The simulator, the lb
// and the loadgen's client-side breakers all write it.
func Describe(name string, from, to State) string {
	return "breaker " + name + ": " + from.String() + " -> " + to.String()
}

// Limits on Config.Window: at least 10 results, at most 10,000 (memory).
// The lab file checks its window against these.
const (
	MinWindow = 10
	MaxWindow = 10_000
)

// Config is a breaker's settings, validated once by New.
type Config struct {
	// Window is how many of the most recent results are counted, >= 10.
	Window int
	// Threshold is the failed share of a full window that trips, in (0, 1].
	Threshold float64
	// Open is how long the breaker stays open before probing, > 0.
	Open time.Duration
	// Probes is how many probe requests half-open lets through, >= 1; all
	// must succeed to close.
	Probes int
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Window < MinWindow || c.Window > MaxWindow:
		return fmt.Errorf("breaker: Window is %d, must be in [%d, %d]", c.Window, MinWindow, MaxWindow)
	case !(c.Threshold > 0 && c.Threshold <= 1):
		return fmt.Errorf("breaker: Threshold is %g, must be in (0, 1]", c.Threshold)
	case c.Open <= 0:
		return fmt.Errorf("breaker: Open is %v, must be > 0", c.Open)
	case c.Probes < 1:
		return fmt.Errorf("breaker: Probes is %d, must be >= 1", c.Probes)
	}
	return nil
}

// Breaker is one server's circuit breaker.
//
// Trip rule: while Closed, every result of a non-probe request goes into a
// ring of the last Window results; the breaker opens when the ring is full
// (it holds Window >= 10 results) and failed/Window >= Threshold. A
// half-filled window never trips, so a server is not judged on its first few
// answers. Results of non-probe requests that arrive while Open or HalfOpen
// are ignored (they were sent before the trip), and the window is frozen
// until the breaker closes again, when it starts empty.
//
// A probe result is credited to the current half-open period; a probe that
// was handed out in an earlier period and returns late is indistinguishable
// and counts too. Probe results while Closed or Open are ignored.
//
// Not safe for concurrent use; the driver serializes calls.
type Breaker struct {
	// OnChange, if set, is called on every transition with the instant the
	// breaker noticed it (for Open -> HalfOpen, the now of the call that
	// observed the open period had ended).
	OnChange func(now clock.Instant, from, to State)

	cfg       Config
	state     State
	openUntil clock.Instant // end of the open period, while Open
	handed    int           // probes handed out in this half-open period
	passed    int           // probes that succeeded in this half-open period
	win       window
}

// New returns a closed breaker with an empty window.
func New(cfg Config) (*Breaker, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Breaker{cfg: cfg, win: newWindow(cfg.Window)}, nil
}

// State returns the state at now. An Open breaker whose open period has
// ended (now >= open start + Open) becomes HalfOpen here, and OnChange is told.
func (b *Breaker) State(now clock.Instant) State {
	if b.state == Open && now >= b.openUntil {
		b.handed, b.passed = 0, 0
		b.set(now, HalfOpen)
	}
	return b.state
}

// Peek is State without its side effect: an Open breaker whose open period
// has ended reads HalfOpen, but stays Open until a call of State notices,
// so an observer (the virtual dashboard) changes nothing of a run.
func (b *Breaker) Peek(now clock.Instant) State {
	if b.state == Open && now >= b.openUntil {
		return HalfOpen
	}
	return b.state
}

// Ready reports whether Allow(now) would succeed, without handing out a
// probe. Its only side effect is the Open -> HalfOpen transition.
func (b *Breaker) Ready(now clock.Instant) bool {
	switch b.State(now) {
	case Closed:
		return true
	case HalfOpen:
		return b.handed < b.cfg.Probes
	}
	return false
}

// Allow asks to send a request at now. Closed: ok. Open: refused. HalfOpen:
// ok and probe while fewer than Probes probes have been handed out in this
// half-open period, refused after that. The caller must report a request it
// sent, with its probe flag, to Done.
func (b *Breaker) Allow(now clock.Instant) (ok, probe bool) {
	switch b.State(now) {
	case Closed:
		return true, false
	case HalfOpen:
		if b.handed < b.cfg.Probes {
			b.handed++
			return true, true
		}
	}
	return false, false
}

// Done reports the result of a request that Allow let through; probe is the
// flag Allow returned. Errors and timeouts are failures.
func (b *Breaker) Done(now clock.Instant, success, probe bool) {
	switch b.State(now) {
	case Closed:
		if !probe {
			b.record(now, !success)
		}
	case HalfOpen:
		if probe {
			b.probeDone(now, success)
		}
	}
}

// Release reports that a request Allow let through ended without a verdict:
// it was withdrawn before the server answered (a hedge's loser cancelled
// while queued). It is neither a success nor a failure. A probe's place in
// the half-open period is given back, so a later Allow can probe: without
// that, a cancelled probe would leave the breaker half-open with no probe
// out and the server would never get traffic again. Like a late probe
// result, a probe from an earlier half-open period is indistinguishable and
// frees a place in this one; the places handed out never fall below the
// probes that succeeded.
func (b *Breaker) Release(now clock.Instant, probe bool) {
	if probe && b.State(now) == HalfOpen && b.handed > b.passed {
		b.handed--
	}
}

func (b *Breaker) record(now clock.Instant, failed bool) {
	b.win.add(failed)
	f, n := b.win.counts()
	if n == b.cfg.Window && float64(f)/float64(n) >= b.cfg.Threshold {
		b.trip(now)
	}
}

func (b *Breaker) probeDone(now clock.Instant, success bool) {
	if !success {
		b.trip(now)
		return
	}
	b.passed++
	if b.passed >= b.cfg.Probes {
		b.win.reset()
		b.set(now, Closed)
	}
}

func (b *Breaker) trip(now clock.Instant) {
	b.openUntil = addSat(now, b.cfg.Open)
	b.handed, b.passed = 0, 0
	b.set(now, Open)
}

func (b *Breaker) set(now clock.Instant, to State) {
	from := b.state
	b.state = to
	if b.OnChange != nil && from != to {
		b.OnChange(now, from, to)
	}
}

// NextDeadline returns when the open period ends, if the breaker is Open:
// the driver calls State (or Allow) at that instant to move to HalfOpen.
func (b *Breaker) NextDeadline() (clock.Instant, bool) {
	if b.state == Open {
		return b.openUntil, true
	}
	return 0, false
}

// Failures returns the failed and total results in the current window. The
// window is frozen while Open or HalfOpen and empty right after closing.
func (b *Breaker) Failures() (failed, total int) { return b.win.counts() }

// addSat returns i + d, saturating at clock.Never.
func addSat(i clock.Instant, d time.Duration) clock.Instant {
	if d > 0 && int64(i) > math.MaxInt64-int64(d) {
		return clock.Never
	}
	return i.Add(d)
}
