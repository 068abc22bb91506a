package workload

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Shape is the form of a load profile.
type Shape uint8

// The shapes (k6's ramping executors and vegeta's pacers have the first
// two; sine and spike are the usual test loads of a daily cycle and a burst).
const (
	Ramp  Shape = iota + 1 // From to To, linearly over Over, then To
	Steps                  // Levels[i] during [i·Every, (i+1)·Every), the last one after
	Sine                   // Mean + Amplitude·sin(2πt/Period)
	Spike                  // Base, but Peak during [At, At+For)
)

var shapeNames = [...]string{Ramp: "ramp", Steps: "steps", Sine: "sine", Spike: "spike"}

// String names the shape as the lab file does.
func (s Shape) String() string {
	if int(s) < len(shapeNames) && shapeNames[s] != "" {
		return shapeNames[s]
	}
	return fmt.Sprintf("shape(%d)", s)
}

// Profile is a level that changes with the time since the start of the
// run: the open-loop arrival rate (per second) or the closed-loop number of
// users. Value is a pure function of that time, so both clocks see the same
// level at the same instant. Only the fields of its Shape are used.
type Profile struct {
	Shape Shape

	From, To float64       // ramp
	Over     time.Duration // ramp: > 0

	Levels []float64     // steps: at least one
	Every  time.Duration // steps: > 0

	Mean, Amplitude float64       // sine: Mean > 0, 0 <= Amplitude <= Mean
	Period          time.Duration // sine: > 0

	Base, Peak float64       // spike
	At, For    time.Duration // spike: At >= 0, For > 0
}

// Check returns what is wrong with p (levels must be finite and >= 0), or nil.
func (p *Profile) Check() error {
	bad := func(v float64) bool { return !(v >= 0) || math.IsInf(v, 1) }
	switch p.Shape {
	case Ramp:
		switch {
		case bad(p.From) || bad(p.To):
			return fmt.Errorf("ramp: from %g and to %g must be finite and >= 0", p.From, p.To)
		case p.Over <= 0:
			return fmt.Errorf("ramp: over must be > 0, got %v", p.Over)
		}
	case Steps:
		if len(p.Levels) == 0 {
			return errors.New("steps: needs at least one level")
		}
		for i, v := range p.Levels {
			if bad(v) {
				return fmt.Errorf("steps: level %d is %g, must be finite and >= 0", i, v)
			}
		}
		if p.Every <= 0 {
			return fmt.Errorf("steps: every must be > 0, got %v", p.Every)
		}
	case Sine:
		switch {
		case !(p.Mean > 0) || math.IsInf(p.Mean, 1):
			return fmt.Errorf("sine: mean must be finite and > 0, got %g", p.Mean)
		case !(p.Amplitude >= 0 && p.Amplitude <= p.Mean):
			return fmt.Errorf("sine: amplitude must be in [0, mean %g] (the level never goes below 0), got %g", p.Mean, p.Amplitude)
		case p.Period <= 0:
			return fmt.Errorf("sine: period must be > 0, got %v", p.Period)
		}
	case Spike:
		switch {
		case bad(p.Base) || bad(p.Peak):
			return fmt.Errorf("spike: base %g and peak %g must be finite and >= 0", p.Base, p.Peak)
		case p.At < 0 || p.For <= 0:
			return fmt.Errorf("spike: at must be >= 0 and for > 0, got at %v for %v", p.At, p.For)
		}
	default:
		return fmt.Errorf("unknown shape %d", p.Shape)
	}
	return nil
}

// Value is the level at t after the start of the run.
func (p *Profile) Value(t time.Duration) float64 {
	s := t.Seconds()
	if p.Shape == Sine {
		return p.Mean + p.Amplitude*math.Sin(2*math.Pi*s/p.Period.Seconds())
	}
	segs := p.segments()
	i := findSegment(segs, s)
	return segs[i].at(s)
}

// Max is the highest level the profile reaches.
func (p *Profile) Max() float64 {
	if p.Shape == Sine {
		return p.Mean + p.Amplitude
	}
	m := 0.0
	for _, g := range p.segments() {
		m = max(m, g.v0)
	}
	if p.Shape == Ramp {
		m = max(m, p.To)
	}
	return m
}

// segment is a piece of a piecewise-linear profile: level v0 at start,
// changing by slope per second until the next segment's start (the last
// segment is constant and never ends).
type segment struct {
	start, v0, slope float64 // seconds, level, level per second
}

func (g segment) at(s float64) float64 { return g.v0 + g.slope*(s-g.start) }

// segments lays ramp, steps and spike out as pieces (sine is not one).
func (p *Profile) segments() []segment {
	switch p.Shape {
	case Ramp:
		over := p.Over.Seconds()
		return []segment{{0, p.From, (p.To - p.From) / over}, {over, p.To, 0}}
	case Steps:
		out := make([]segment, len(p.Levels))
		for i, v := range p.Levels {
			out[i] = segment{float64(i) * p.Every.Seconds(), v, 0}
		}
		return out
	case Spike:
		at := p.At.Seconds()
		return []segment{{0, p.Base, 0}, {at, p.Peak, 0}, {at + p.For.Seconds(), p.Base, 0}}
	}
	return []segment{{0, 0, 0}}
}

// findSegment is the index of the segment that holds s (the first when s
// is before every start).
func findSegment(segs []segment, s float64) int {
	i := 0
	for i+1 < len(segs) && segs[i+1].start <= s {
		i++
	}
	return i
}

// Advance returns the instant t >= from at which the integral of the level
// over [from, t] reaches area (in level·seconds), or clock.Never when the
// level stays too low for ever. It is the inverse of the integrated rate,
// Λ⁻¹(Λ(from) + area), which turns unit-rate exponential gaps into the
// arrivals of a Poisson process of rate Value(t) (Stream.Next).
//
// Ramp, steps and spike are piecewise linear, so each piece inverts in
// closed form: within a piece of level v and slope k, v·x + k·x²/2 = a gives
// x = 2a / (v + √(v² + 2ka)) (stable for k of either sign and for k = 0).
// Sine has Λ(t) = Mean·t + Amplitude·Period/(2π)·(1 − cos(2πt/Period)),
// inverted by Newton's method inside a bisection bracket (each whole period
// adds exactly Mean·Period, which bounds the answer).
func (p *Profile) Advance(from clock.Instant, area float64) clock.Instant {
	a := from.Seconds()
	var t float64
	if p.Shape == Sine {
		t = p.sineAdvance(a, area)
	} else {
		t = advanceSegments(p.segments(), a, area)
	}
	if math.IsInf(t, 1) || t >= float64(clock.Never-from)/1e9+a {
		return clock.Never
	}
	return from + clock.Instant(max(0, math.Round((t-a)*1e9)))
}

func advanceSegments(segs []segment, a, area float64) float64 {
	for i := findSegment(segs, a); i < len(segs); i++ {
		g := segs[i]
		t0, v0 := max(a, g.start), g.at(max(a, g.start))
		end := math.Inf(1)
		if i+1 < len(segs) {
			end = segs[i+1].start
		}
		piece := math.Inf(1) // the area up to the end of this piece
		if !math.IsInf(end, 1) {
			piece = (v0 + g.at(end)) / 2 * (end - t0)
		} else if v0 <= 0 {
			return math.Inf(1) // a last piece at level 0: no more
		}
		if piece >= area {
			disc := max(0, v0*v0+2*g.slope*area)
			den := v0 + math.Sqrt(disc)
			if den <= 0 {
				return t0
			}
			return min(t0+2*area/den, end)
		}
		area -= piece
	}
	return math.Inf(1)
}

func (p *Profile) sineAdvance(a, area float64) float64 {
	period := p.Period.Seconds()
	w := 2 * math.Pi / period
	integral := func(t float64) float64 { // Λ(t) − Λ(a)
		return p.Mean*(t-a) + p.Amplitude/w*(math.Cos(w*a)-math.Cos(w*t))
	}
	lo, hi := a, a+(math.Floor(area/(p.Mean*period))+1)*period
	t := a + area/p.Mean
	for range 100 {
		f := integral(t) - area
		if math.Abs(f) <= 1e-12*max(1, area) {
			return t
		}
		if f < 0 {
			lo = t
		} else {
			hi = t
		}
		if hi-lo < 1e-10 {
			return hi
		}
		next := (lo + hi) / 2
		if v := p.Mean + p.Amplitude*math.Sin(w*t); v > 0 {
			if n := t - f/v; n > lo && n < hi { // Newton, when it stays in the bracket
				next = n
			}
		}
		t = next
	}
	return t
}
