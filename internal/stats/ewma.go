package stats

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// EWMA is a time-decayed moving average: a sample observed dt after the last
// one gets weight 1 - exp(-dt/tau), so the average forgets at the same rate
// whatever the request rate (Finagle's and Linkerd's latency EWMA).
// The zero value is empty; Tau must be set.
type EWMA struct {
	Tau   time.Duration
	value float64
	last  clock.Instant
	set   bool
}

// NewEWMA returns an empty average with decay constant tau.
func NewEWMA(tau time.Duration) EWMA { return EWMA{Tau: tau} }

// Observe folds sample x taken at now into the average.
func (e *EWMA) Observe(now clock.Instant, x float64) {
	if !e.set {
		e.value, e.last, e.set = x, now, true
		return
	}
	w := e.weight(now)
	e.value = e.value*w + x*(1-w)
	e.last = now
}

func (e *EWMA) weight(now clock.Instant) float64 {
	dt := now.Sub(e.last)
	if dt <= 0 {
		dt = 0
	}
	return math.Exp(-float64(dt) / float64(e.Tau))
}

// SetTau changes the decay constant at now, keeping the average: the time
// since the last sample counts at the old constant up to now and at the new
// one after (the last sample's instant is moved so that one constant spans
// the whole gap), so the next sample weighs what it would have had the
// constant changed exactly at now.
func (e *EWMA) SetTau(now clock.Instant, tau time.Duration) {
	if e.set && now > e.last && tau != e.Tau {
		gap := float64(now.Sub(e.last)) * float64(tau) / float64(e.Tau)
		e.last = now.Add(-time.Duration(gap))
	}
	e.Tau = tau
}

// Value returns the current average (0 when empty).
func (e *EWMA) Value() float64 { return e.value }

// Set reports whether any sample was observed.
func (e *EWMA) Set() bool { return e.set }

// PeakEWMA follows Finagle's peak EWMA: a sample above the average replaces
// it at once, a lower one is folded in with time decay, so the average reacts
// to a slowdown immediately and forgets it gradually.
type PeakEWMA struct{ EWMA }

// NewPeakEWMA returns an empty peak average with decay constant tau.
func NewPeakEWMA(tau time.Duration) PeakEWMA { return PeakEWMA{EWMA{Tau: tau}} }

// Observe folds x taken at now into the average, jumping to any higher value.
func (p *PeakEWMA) Observe(now clock.Instant, x float64) {
	if !p.set || x > p.value {
		p.value, p.last, p.set = x, now, true
		return
	}
	p.EWMA.Observe(now, x)
}

// ObservePair folds x taken at now into an average and a peak average that
// have the same decay constant and have seen the same samples: one exp then
// serves both (an answer updates both on every pick's return). The result is
// exactly that of calling each one's Observe.
func ObservePair(e *EWMA, p *PeakEWMA, now clock.Instant, x float64) {
	if !e.set || !p.set || e.last != p.last || e.Tau != p.Tau {
		e.Observe(now, x)
		p.Observe(now, x)
		return
	}
	w := e.weight(now)
	e.value = e.value*w + x*(1-w)
	if x > p.value {
		p.value = x
	} else {
		p.value = p.value*w + x*(1-w)
	}
	e.last, p.last = now, now
}

// At returns the average decayed to now as if a zero sample were pending:
// Finagle decays the cost between samples so an idle slow server is retried.
func (p *PeakEWMA) At(now clock.Instant) float64 {
	if !p.set {
		return 0
	}
	return p.value * p.weight(now)
}
