package server

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// workClock measures work done, in nanoseconds of work at speed 1:
//
//	W(t) = integral from 0 to t of rate(u) du,  rate = speed, or 0 while paused
//
// A job that starts at s with cost c finishes when W reaches W(s) + c, its
// target. All jobs in service share the clock, so the one with the smallest
// target finishes first whatever the speed does later, and a speed change or
// a pause never touches the jobs: only the clock's current segment changes.
//
// The clock is piecewise linear: within a segment starting at start with work
// w0, W(t) = w0 + (t - start) x rate. Segments change only at speed changes
// and at pause starts and ends, so every finish instant derived from the
// current segment is the same whenever it is asked for.
type workClock struct {
	speed  float64
	start  clock.Instant // start of the current segment
	w0     float64       // W(start)
	paused bool
	until  clock.Instant // end of the current pause, when paused
	every  time.Duration // periodic pauses at every, 2 x every, ...; 0 = none
	pause  time.Duration // length of a periodic pause
	nextGC clock.Instant // start of the next periodic pause; Never if none

	// finishAt's last answer: the driver asks for the same top job's finish
	// several times per event (to advance, then for its next deadline), and
	// the answer holds until the segment changes (every change clears it).
	memoTarget float64
	memoAt     clock.Instant
	memoOK     bool
}

func newWorkClock(speed float64, every, pause time.Duration) workClock {
	c := workClock{speed: speed, every: every, pause: pause, nextGC: clock.Never}
	if every > 0 {
		c.nextGC = clock.Instant(every)
	}
	return c
}

func (c *workClock) rate() float64 {
	if c.paused {
		return 0
	}
	return c.speed
}

// at returns W(t) for t in the current segment.
func (c *workClock) at(t clock.Instant) float64 {
	return c.w0 + float64(t-c.start)*c.rate()
}

// rebase starts a new segment at t.
func (c *workClock) rebase(t clock.Instant) {
	c.w0 = c.at(t)
	c.start = t
	c.memoOK = false
}

// finishAt returns the first instant at which W reaches target in the current
// segment (Never while paused). The tiny slack absorbs rounding so that
// exact inputs (for example speed 0.25) give exact instants.
func (c *workClock) finishAt(target float64) clock.Instant {
	if c.memoOK && target == c.memoTarget {
		return c.memoAt
	}
	at := c.finish(target)
	c.memoTarget, c.memoAt, c.memoOK = target, at, true
	return at
}

func (c *workClock) finish(target float64) clock.Instant {
	if c.paused {
		return clock.Never
	}
	d := target - c.w0
	if c.speed != 1 { // x/1 is x exactly: skip the division at full speed
		d /= c.speed
	}
	d = math.Ceil(d - 1e-6)
	switch {
	case d <= 0:
		return c.start
	case d >= float64(clock.Never-c.start):
		return clock.Never
	}
	return c.start + clock.Instant(d)
}

// next returns the next segment change: the end of the current pause or the
// start of the next periodic one.
func (c *workClock) next() clock.Instant {
	if c.paused && c.until < c.nextGC {
		return c.until
	}
	return c.nextGC
}

// step applies the segment change due at t (t == next()).
func (c *workClock) step(t clock.Instant) {
	c.rebase(t)
	if c.paused && t >= c.until {
		c.paused = false
	}
	if t >= c.nextGC {
		c.nextGC += clock.Instant(c.every)
		c.pauseUntil(t.Add(c.pause))
	}
}

// pauseUntil stops work from the current instant (the segment start) until
// end, or extends a pause already running.
func (c *workClock) pauseUntil(end clock.Instant) {
	if end <= c.start {
		return
	}
	c.memoOK = false
	if !c.paused || end > c.until {
		c.until = end
	}
	c.paused = true
}

// setSpeed changes the speed from t on.
func (c *workClock) setSpeed(t clock.Instant, speed float64) {
	c.rebase(t) // clears the memo
	c.speed = speed
}

// resume ends any pause at t (a restarted process is not in a pause).
func (c *workClock) resume(t clock.Instant) {
	c.rebase(t)
	c.paused = false
}
