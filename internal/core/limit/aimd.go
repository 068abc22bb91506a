package limit

import (
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// AIMDConfig configures an AIMD limit. Zero fields take defaults: Initial 20,
// Min 1, Max 200, Backoff 0.9, SlowRTT none.
type AIMDConfig struct {
	Initial, Min, Max int
	Backoff           float64       // multiplicative decrease, in (0, 1); default 0.9
	SlowRTT           time.Duration // a response slower than this (5 x mean service time) counts as a drop; 0 = none
}

// AIMD is an additive-increase, multiplicative-decrease limit after Netflix's
// AIMDLimit:
//
//	dropped, or rtt > SlowRTT:   limit = floor(limit x Backoff)
//	otherwise, if inflight x 2 >= limit:   limit = limit + 1
//
// then clamped to [Min, Max]. "In use" is Netflix's test inflight x 2 >= limit
// (inflight counts the sampled request itself): the limit keeps growing while
// at least half of it is occupied, so it can rise ahead of demand instead of
// only when it already binds.
//
// Unlike AIMDLimit it decreases at most once per round of admitted requests:
// after a decrease, the next `limit` samples (the new limit) cannot decrease
// it again, so one burst of slow responses from requests admitted under the
// old limit counts as one congestion signal, as in TCP's once-per-RTT
// backoff. Those samples may still increase it.
//
// Invariant: Min <= Limit() <= Max. Not safe for concurrent use; the driver
// serializes calls.
type AIMD struct {
	limit, lo, hi int
	backoff       float64
	slow          time.Duration
	cooldown      int // samples still to come before another decrease is allowed
}

// NewAIMD validates cfg and returns the limit at cfg.Initial.
func NewAIMD(cfg AIMDConfig) (*AIMD, error) {
	initial, lo, hi, err := bounds("aimd", cfg.Initial, cfg.Min, cfg.Max)
	if err != nil {
		return nil, err
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 0.9
	}
	if !inRange(cfg.Backoff, 0, 1, false) {
		return nil, fmt.Errorf("limit: aimd Backoff = %g, must be in (0, 1)", cfg.Backoff)
	}
	if cfg.SlowRTT < 0 {
		return nil, fmt.Errorf("limit: aimd SlowRTT = %v, must be >= 0 (0 = none)", cfg.SlowRTT)
	}
	return &AIMD{limit: initial, lo: lo, hi: hi, backoff: cfg.Backoff, slow: cfg.SlowRTT}, nil
}

// Limit returns the current limit.
func (a *AIMD) Limit() int { return a.limit }

// Name returns "aimd".
func (a *AIMD) Name() string { return "aimd" }

// OnSample applies one admitted request's outcome; queued is not used.
func (a *AIMD) OnSample(_ clock.Instant, rtt time.Duration, inflight int, dropped, _ bool) {
	if dropped || (a.slow > 0 && rtt > a.slow) {
		if a.cooldown > 0 {
			a.cooldown--
			return
		}
		a.limit = max(int(math.Floor(float64(a.limit)*a.backoff)), a.lo)
		a.cooldown = a.limit
		return
	}
	if a.cooldown > 0 {
		a.cooldown--
	}
	if inflight*2 >= a.limit {
		a.limit = min(a.limit+1, a.hi)
	}
}
