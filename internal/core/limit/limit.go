// Package limit holds adaptive concurrency limits after Netflix's
// concurrency-limits library: AIMD (AIMDLimit) and Gradient2 (Gradient2Limit).
// A server rejects a request at once when queued + in service has reached
// Limit(), and reports every request it admitted through OnSample when that
// request ends, so a limit learns only from the traffic it let in.
//
// The limits are pure state machines: time is handed in, nothing is read from
// the wall clock. They are not safe for concurrent use; the driver serializes
// calls.
package limit

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Limit is an adaptive concurrency limit fed with samples of admitted requests.
type Limit interface {
	Limit() int
	// OnSample reports one admitted request: its response time rtt (queue + service at the server),
	// the number in flight (queued + in service) when it was admitted, whether it was dropped
	// (failed or timed out) and whether it had to queue.
	OnSample(now clock.Instant, rtt time.Duration, inflight int, dropped, queued bool)
	Name() string
}

// Defaults shared by both limits when a bound is left at zero (the lab file's
// limiter defaults).
const (
	DefaultInitial = 20
	DefaultMin     = 1
	DefaultMax     = 200
)

// bounds applies the defaults to initial, min and max and checks
// 1 <= min <= initial <= max. A defaulted initial is clamped into [min, max];
// an explicit one outside it is an error.
func bounds(kind string, initial, lo, hi int) (int, int, int, error) {
	if lo == 0 {
		lo = DefaultMin
	}
	if hi == 0 {
		hi = DefaultMax
	}
	if lo < 1 {
		return 0, 0, 0, fmt.Errorf("limit: %s Min = %d, must be >= 1", kind, lo)
	}
	if hi < lo {
		return 0, 0, 0, fmt.Errorf("limit: %s Max = %d, must be >= Min (%d)", kind, hi, lo)
	}
	if initial == 0 {
		initial = min(max(DefaultInitial, lo), hi)
	}
	if initial < lo || initial > hi {
		return 0, 0, 0, fmt.Errorf("limit: %s Initial = %d, must be in [Min, Max] = [%d, %d]", kind, initial, lo, hi)
	}
	return initial, lo, hi, nil
}

// inRange reports whether lo < x < hi (open) or lo < x <= hi (closedHi),
// false for NaN.
func inRange(x, lo, hi float64, closedHi bool) bool {
	if closedHi {
		return x > lo && x <= hi
	}
	return x > lo && x < hi
}
