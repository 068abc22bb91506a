package limit

import (
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Gradient2Config configures a Gradient2 limit. Zero fields take defaults:
// Initial 20, Min 1, Max 200, Smoothing 0.2, ShortWindow 10, Tolerance 1.5.
type Gradient2Config struct {
	Initial, Min, Max int
	Smoothing         float64 // weight of each new estimate, in (0, 1]; default 0.2
	ShortWindow       int     // samples in the short-term RTT average, >= 1; default 10
	Tolerance         float64 // short RTT may exceed the baseline by this factor before the limit falls, >= 1; default 1.5
}

// BaselineWindow is the number of samples the long-term baseline averages
// over (Gradient2Limit's long window).
const BaselineWindow = 600

// Gradient2 is a latency-gradient limit after Netflix's Gradient2Limit. With
// short the average RTT over about ShortWindow samples and baseline the
// average RTT of requests that did not queue, each sample sets
//
//	gradient = clamp(Tolerance x baseline / short, 0.5, 1)
//	new      = limit x gradient + sqrt(limit)
//	limit    = limit x (1 - Smoothing) + new x Smoothing,  clamped to [Min, Max]
//
// so the limit grows by about Smoothing x sqrt(limit) per sample while
// responses stay within Tolerance of the baseline, and shrinks by up to half
// (smoothed) when queueing inflates them.
//
// Gradient2Limit keeps its baseline as a plain 600-sample average of every
// RTT, which creeps upward during a long overload; here the baseline averages
// only requests that did not queue, which is what that average stands for: the
// response time of an unloaded server. Until one such sample arrives the limit
// holds. Also unlike Gradient2Limit, the limit moves on every sample, even
// when most of it is unused, and drops are sampled like any other response.
//
// Invariant: Min <= Limit() <= Max. Not safe for concurrent use; the driver
// serializes calls.
type Gradient2 struct {
	est              float64
	lo, hi           int
	smoothing, toler float64
	short, baseline  expAvg
}

// NewGradient2 validates cfg and returns the limit at cfg.Initial.
func NewGradient2(cfg Gradient2Config) (*Gradient2, error) {
	initial, lo, hi, err := bounds("gradient2", cfg.Initial, cfg.Min, cfg.Max)
	if err != nil {
		return nil, err
	}
	if cfg.Smoothing == 0 {
		cfg.Smoothing = 0.2
	}
	if cfg.ShortWindow == 0 {
		cfg.ShortWindow = 10
	}
	if cfg.Tolerance == 0 {
		cfg.Tolerance = 1.5
	}
	switch {
	case !inRange(cfg.Smoothing, 0, 1, true):
		return nil, fmt.Errorf("limit: gradient2 Smoothing = %g, must be in (0, 1]", cfg.Smoothing)
	case cfg.ShortWindow < 1:
		return nil, fmt.Errorf("limit: gradient2 ShortWindow = %d, must be >= 1", cfg.ShortWindow)
	case !(cfg.Tolerance >= 1) || math.IsInf(cfg.Tolerance, 0):
		return nil, fmt.Errorf("limit: gradient2 Tolerance = %g, must be finite and >= 1", cfg.Tolerance)
	}
	return &Gradient2{
		est: float64(initial), lo: lo, hi: hi,
		smoothing: cfg.Smoothing, toler: cfg.Tolerance,
		short:    expAvg{window: cfg.ShortWindow},
		baseline: expAvg{window: BaselineWindow},
	}, nil
}

// Limit returns the integer part of the estimate, at least Min.
func (g *Gradient2) Limit() int { return max(int(g.est), g.lo) }

// Name returns "gradient2".
func (g *Gradient2) Name() string { return "gradient2" }

// OnSample folds one admitted request's response time into the averages and
// moves the limit; inflight and dropped are not used.
func (g *Gradient2) OnSample(_ clock.Instant, rtt time.Duration, _ int, _, queued bool) {
	x := float64(max(rtt, 0))
	g.short.add(x)
	if !queued {
		g.baseline.add(x)
	}
	if g.baseline.n == 0 {
		return
	}
	gradient := 1.0
	if g.short.v > 0 {
		gradient = min(max(g.toler*g.baseline.v/g.short.v, 0.5), 1)
	}
	next := g.est*gradient + math.Sqrt(g.est)
	g.est = g.est*(1-g.smoothing) + next*g.smoothing
	g.est = min(max(g.est, float64(g.lo)), float64(g.hi))
}

// expAvg is Netflix's ExpAvgMeasurement: the plain mean of the first window
// samples (a warm-up), then an exponential average with weight
// 2 / (window + 1) on each new sample.
type expAvg struct {
	window, n int
	v         float64
}

func (e *expAvg) add(x float64) {
	if e.n < e.window {
		e.n++
		e.v += (x - e.v) / float64(e.n)
		return
	}
	a := 2 / float64(e.window+1)
	e.v = e.v*(1-a) + x*a
}
