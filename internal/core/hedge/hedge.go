// Package hedge decides when a client sends a hedged request: a second copy
// of a request still unanswered after a delay, to a different server, taking
// whichever answer comes first (Dean & Barroso, "The Tail at Scale", 2013).
// Hedging at the 95th percentile of latency costs about 5% more requests and
// cuts the tail that a slow server or a pause adds; hedging earlier buys
// little more and multiplies the work.
package hedge

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Defaults for a quantile hedger.
const (
	DefaultWindow     = 1000
	DefaultMinSamples = 20
	MaxWindow         = 1_000_000
)

// Config sets either a fixed delay or a live quantile, not both.
type Config struct {
	// Delay is a fixed hedge delay, > 0 when set.
	Delay time.Duration
	// Quantile, in (0, 1), hedges after that quantile of recent successful
	// latencies (0.95 = p95).
	Quantile float64
	// Window is how many recent latencies are kept, in [1, 1e6]; 0 = 1000.
	Window int
	// MinSamples is how many latencies are needed before any hedge, in
	// [1, Window]; 0 = min(20, Window).
	MinSamples int
}

// Parse reads a lab file's hedge setting: "" or "off" = no hedging (on is
// false), a Go duration such as "50ms" = fixed delay, "p95" or "p99.9" = that
// percentile of recent successful latencies. Window and MinSamples are left
// zero (New applies the defaults).
func Parse(s string) (cfg Config, on bool, err error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || s == "off":
		return Config{}, false, nil
	case s[0] == 'p' || s[0] == 'P':
		p, err := strconv.ParseFloat(s[1:], 64)
		if err != nil || !(p > 0 && p < 100) {
			return Config{}, false, fmt.Errorf("hedge: %q: a percentile must be p followed by a number in (0, 100), like p95 or p99.9", s)
		}
		// Rounding to 12 decimals makes p99.9 exactly 0.999, not 0.9990000000000001.
		return Config{Quantile: math.Round(p*1e10) / 1e12}, true, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return Config{}, false, fmt.Errorf("hedge: %q: want off, a duration > 0 like 50ms, or a percentile like p95", s)
	}
	return Config{Delay: d}, true, nil
}

// withDefaults validates c and fills in zero Window and MinSamples.
func (c Config) withDefaults() (Config, error) {
	switch {
	case c.Delay < 0:
		return c, fmt.Errorf("hedge: Delay is %v, must be > 0", c.Delay)
	case !(c.Quantile >= 0 && c.Quantile < 1):
		return c, fmt.Errorf("hedge: Quantile is %g, must be in (0, 1)", c.Quantile)
	case c.Delay > 0 && c.Quantile > 0:
		return c, fmt.Errorf("hedge: set either Delay (%v) or Quantile (%g), not both", c.Delay, c.Quantile)
	case c.Delay == 0 && c.Quantile == 0:
		return c, fmt.Errorf("hedge: set Delay (> 0) or Quantile (in (0, 1))")
	}
	if c.Window == 0 {
		c.Window = DefaultWindow
	}
	if c.Window < 1 || c.Window > MaxWindow {
		return c, fmt.Errorf("hedge: Window is %d, must be in [1, %d] (0 = %d)", c.Window, MaxWindow, DefaultWindow)
	}
	if c.MinSamples == 0 {
		c.MinSamples = min(DefaultMinSamples, c.Window)
	}
	if c.MinSamples < 1 || c.MinSamples > c.Window {
		return c, fmt.Errorf("hedge: MinSamples is %d, must be in [1, Window=%d] (0 = %d)", c.MinSamples, c.Window, DefaultMinSamples)
	}
	return c, nil
}

// Hedger gives the hedge delay: fixed, or the Quantile of the last Window
// successful latencies.
//
// The quantile is the nearest-rank one, sorted[ceil(q×n) - 1] over the n
// samples held. To keep Observe cheap it is recomputed (copy and quickselect,
// O(W)) only every max(1, Window/16) observations, and at once when
// MinSamples is first reached, which amortises to O(16) per observation. The
// price is staleness: the delay may miss up to the newest Window/16 samples,
// about 6% of the window. Deterministic: the same samples in the same order
// give the same delays.
//
// Not safe for concurrent use; the driver serializes calls.
type Hedger struct {
	cfg     Config
	ring    []time.Duration // the last len(ring) samples, oldest at next once full
	next    int             // slot for the next sample
	n       int             // samples held
	since   int             // observations since the last recompute
	every   int             // recompute period, max(1, Window/16)
	scratch []time.Duration // sort buffer
	delay   time.Duration   // last computed quantile
	known   bool            // delay is valid
}

// New returns a hedger for cfg (see Config for defaults and ranges).
func New(cfg Config) (*Hedger, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	h := &Hedger{cfg: c}
	if c.Delay > 0 {
		h.delay, h.known = c.Delay, true
		return h, nil
	}
	h.ring = make([]time.Duration, c.Window)
	h.scratch = make([]time.Duration, 0, c.Window)
	h.every = max(1, c.Window/16)
	return h, nil
}

// Config returns the settings in use, defaults filled in.
func (h *Hedger) Config() Config { return h.cfg }

// Observe records a successful request's latency (negative counts as 0).
// A fixed-delay hedger ignores it.
func (h *Hedger) Observe(latency time.Duration) {
	if h.cfg.Delay > 0 {
		return
	}
	h.ring[h.next] = max(latency, 0)
	h.next++
	if h.next == len(h.ring) {
		h.next = 0
	}
	if h.n < len(h.ring) {
		h.n++
	}
	h.since++
	if h.n < h.cfg.MinSamples {
		return
	}
	if !h.known || h.since >= h.every {
		h.recompute()
	}
}

func (h *Hedger) recompute() {
	h.scratch = append(h.scratch[:0], h.ring[:h.n]...)
	i := int(math.Ceil(h.cfg.Quantile*float64(h.n)-1e-9)) - 1 // the epsilon absorbs q×n rounding
	h.delay = selectKth(h.scratch, min(max(i, 0), h.n-1))
	h.known = true
	h.since = 0
}

// Delay returns how long after sending a request to send its hedge; false
// means not yet known (fewer than MinSamples latencies observed): no hedge.
func (h *Hedger) Delay() (time.Duration, bool) { return h.delay, h.known }
