// Package slowstart ramps a server's weight up after it joins or comes back,
// so a cold cache or JIT is not flooded (Envoy's slow_start_config, HAProxy's
// slowstart). It is a pure function of the time since the server (re)joined;
// a Ramp keeps that instant per server and is handed the time.
//
// The factor a server's weight is multiplied by, elapsed t after it joined,
// is Envoy's
//
//	f(t) = max(Floor, (t / Window)^(1 / Aggression))   for t < Window
//	f(t) = 1                                           after
//
// Aggression 1 is a linear ramp; above 1 the weight rises fast at first and
// slowly at the end, below 1 slowly at first. Floor keeps a joining server
// from getting nothing (Envoy's min_weight_percent, 10% by default there).
package slowstart

import (
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Limits of Config's fields.
const (
	MinAggression = 0.1
	MaxAggression = 10
)

// Config is the ramp, validated by New.
type Config struct {
	Window     time.Duration // how long the ramp lasts, > 0
	Floor      float64       // the least factor, in (0, 1]
	Aggression float64       // curve exponent, in [MinAggression, MaxAggression]; 1 = linear
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.Window <= 0:
		return fmt.Errorf("slowstart: Window is %v, must be > 0", c.Window)
	case !(c.Floor > 0 && c.Floor <= 1):
		return fmt.Errorf("slowstart: Floor is %g, must be in (0, 1]", c.Floor)
	case !(c.Aggression >= MinAggression && c.Aggression <= MaxAggression):
		return fmt.Errorf("slowstart: Aggression is %g, must be in [%g, %g] (1 = linear)", c.Aggression, float64(MinAggression), float64(MaxAggression))
	}
	return nil
}

// Factor is f(elapsed) above: in [Floor, 1], 1 once Window has passed.
func (c Config) Factor(elapsed time.Duration) float64 {
	if elapsed >= c.Window {
		return 1
	}
	x := math.Max(float64(elapsed), 0) / float64(c.Window)
	if c.Aggression != 1 {
		x = math.Pow(x, 1/c.Aggression)
	}
	return math.Max(c.Floor, x)
}

// Ramp keeps, per server (by global index), when its current ramp began.
//
// Not safe for concurrent use; the driver serializes calls.
type Ramp struct {
	cfg   Config
	since []clock.Instant // ramp start; clock.Never when not ramping
}

// New returns a ramp over no servers (see Resize).
func New(cfg Config) (*Ramp, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Ramp{cfg: cfg}, nil
}

// SetConfig changes the ramp's settings; ramps under way go on under them.
func (r *Ramp) SetConfig(cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	r.cfg = cfg
	return nil
}

// Resize makes room for n servers; new ones are not ramping (Start them).
func (r *Ramp) Resize(n int) {
	for len(r.since) < n {
		r.since = append(r.since, clock.Never)
	}
}

// Start begins server i's ramp at now (it joined or came back).
func (r *Ramp) Start(now clock.Instant, i int) {
	if i >= 0 && i < len(r.since) {
		r.since[i] = now
	}
}

// Factor is server i's weight factor at now; 1 when it is not ramping.
func (r *Ramp) Factor(now clock.Instant, i int) float64 {
	if i < 0 || i >= len(r.since) || r.since[i] == clock.Never {
		return 1
	}
	f := r.cfg.Factor(now.Sub(r.since[i]))
	if f >= 1 {
		r.since[i] = clock.Never
	}
	return f
}
