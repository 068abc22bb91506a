package stats

import "github.com/lblab/lblab/internal/clock"

// TimeAverage integrates a step function N(t) (for example, requests in the
// system) so its time average can be read: the L of Little's law L = λW.
type TimeAverage struct {
	start, last clock.Instant
	value       float64
	area        float64 // integral of value dt, in value·ns
	started     bool
}

// Set records that the value changed to v at now.
func (t *TimeAverage) Set(now clock.Instant, v float64) {
	t.advance(now)
	t.value = v
}

// Add changes the value by dv at now.
func (t *TimeAverage) Add(now clock.Instant, dv float64) { t.Set(now, t.value+dv) }

func (t *TimeAverage) advance(now clock.Instant) {
	if !t.started {
		t.start, t.last, t.started = now, now, true
		return
	}
	if now > t.last {
		t.area += t.value * float64(now-t.last)
		t.last = now
	}
}

// Value returns the current value.
func (t *TimeAverage) Value() float64 { return t.value }

// Mean returns the time average from the first change up to now.
func (t *TimeAverage) Mean(now clock.Instant) float64 {
	if !t.started || now <= t.start {
		return t.value
	}
	area := t.area
	if now > t.last {
		area += t.value * float64(now-t.last)
	}
	return area / float64(now-t.start)
}
