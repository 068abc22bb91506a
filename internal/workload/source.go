package workload

import "github.com/lblab/lblab/internal/clock"

// Source is an open-loop request stream as the drivers consume it: the
// seeded generator (Stream) or a replayed trace (Replay). Drivers take one
// arrival at a time: they schedule the request Next returns and call Next
// again when it starts. A request at clock.Never means the stream is over
// (or paused).
type Source interface {
	// Next returns the next arrival.
	Next() Request
	// SetRate makes arrivals from now on come at rate per second. If the
	// arrival Next returned last is later than now it is withdrawn, and the
	// next Next returns it again (the generator redraws its instant, a
	// replay keeps it: a trace's arrivals are what they were).
	SetRate(now clock.Instant, rate float64)
	// Err is why the stream ended early (a bad line in a replayed trace),
	// or nil.
	Err() error
}

var (
	_ Source = (*Stream)(nil)
	_ Source = (*Replay)(nil)
)

// Err is always nil: the generator cannot fail.
func (s *Stream) Err() error { return nil }
