// Package clock defines the instants every core is handed. A core never reads
// the time itself: the simulator passes virtual instants, the shell wall ones.
package clock

import "time"

// Instant is nanoseconds since the driver's epoch (the start of a run).
type Instant int64

// Never is an instant later than any real one; cores use it for "no deadline".
const Never Instant = 1<<63 - 1

// Add returns i moved forward by d.
func (i Instant) Add(d time.Duration) Instant { return i + Instant(d) }

// Sub returns the duration i - j.
func (i Instant) Sub(j Instant) time.Duration { return time.Duration(i - j) }

// Before reports whether i is strictly earlier than j.
func (i Instant) Before(j Instant) bool { return i < j }

// Seconds returns i as seconds since the epoch.
func (i Instant) Seconds() float64 { return float64(i) / 1e9 }

// Duration returns i as the duration since the epoch.
func (i Instant) Duration() time.Duration { return time.Duration(i) }

func (i Instant) String() string { return time.Duration(i).String() }

// Clock gives the current instant.
type Clock interface {
	Now() Instant
}

// Wall is a Clock that reads the wall clock (monotonic) relative to its start.
type Wall struct{ start time.Time }

// NewWall returns a wall clock whose epoch is now.
func NewWall() *Wall { return &Wall{start: time.Now()} }

// Now returns the time elapsed since the clock was made.
func (w *Wall) Now() Instant { return Instant(time.Since(w.start)) }

// Epoch returns the wall time of instant 0.
func (w *Wall) Epoch() time.Time { return w.start }

// Manual is a Clock set by hand, for tests.
type Manual struct{ T Instant }

// Now returns the instant last set.
func (m *Manual) Now() Instant { return m.T }

// Advance moves the clock forward by d.
func (m *Manual) Advance(d time.Duration) { m.T = m.T.Add(d) }
