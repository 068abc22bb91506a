package labfile

import (
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
)

// balancerKnobs is the balancer tier's table: each setting once, with its
// path, its default (the core's constant where the core declares one) and
// what its check allows, in the order validation reports them. Filling
// defaults (applyDefaults) and validating (validateCore) both walk it, and
// what reads settings generically (the lb's settings API, the torture
// generator, the docs check) reads the schema's leaves and the checks from
// there, so a balancer setting is its field in schema.go and its line here
// (and a range in Bounds if it takes a kind of value of its own). A rule
// between fields is a rule line, checked where it stands.
func balancerKnobs(b *Balancers) []knob {
	const p = "balancers."
	o, s, h := &b.Outlier, &b.SlowStart, &b.Health
	return []knob{
		ranged(p+"count", &b.Count, 1, Bounds.Balancers),
		words(p+"algorithm", &b.Algorithm, "p2c", Algorithms...),
		words(p+"load", &b.Load, LocalLoad, LocalLoad, SharedLoad),
		ranged(p+"refresh", &b.Refresh, 500*time.Millisecond, Bounds.Period),
		ranged(p+"timeout", &b.Timeout, 0, Bounds.Timeout),
		ranged(p+"subset", &b.Subset, 0, Bounds.Subset),
		ranged(p+"choices", &b.Choices, balance.DefaultChoices, Bounds.Choices),
		words(p+"hash_on", &b.HashOn, HashKey, HashKey, HashClient),
		ranged(p+"vnodes", &b.VNodes, balance.DefaultVNodes, Bounds.VNodes),
		ranged(p+"epsilon", &b.Epsilon, balance.DefaultEpsilon, Bounds.Epsilon),
		ranged(p+"decay", &b.Decay, load.DefaultDecay, Bounds.Decay),
		ranged(p+"failure_penalty", &b.FailurePenalty, 0, Bounds.Timeout),
		ranged(p+"default_rtt", &b.DefaultRTT, 0, Bounds.Timeout),

		ranged(p+"breaker.window", &b.Breaker.Window, 20, Bounds.Window),
		ranged(p+"breaker.threshold", &b.Breaker.Threshold, 0.5, Bounds.Threshold),
		ranged(p+"breaker.open", &b.Breaker.Open, time.Second, Bounds.Pause),
		ranged(p+"breaker.probes", &b.Breaker.Probes, 3, Bounds.Probes),

		// aperture and aperture_load (default 0): checked with the clients' (validateAperture)
		rule(func(r *reporter) { validateAperture("balancers", b.Algorithm, b.Aperture, b.Subset, b.ApertureLoad, r) }),
		rule(func(r *reporter) {
			if b.Replacement && b.Aperture > 0 {
				r.add(p+"replacement", "draws from the whole fleet: it does not go with balancers.aperture (%d)", b.Aperture)
			}
		}),

		ranged(p+"outlier.consecutive_failures", &o.ConsecutiveFailures, 5, Bounds.ConsecutiveFailures),
		ranged(p+"outlier.interval", &o.Interval, time.Second, Bounds.OutlierInterval),
		ranged(p+"outlier.base_ejection", &o.BaseEjection, 5*time.Second, Bounds.Ejection),
		ranged(p+"outlier.max_ejection", &o.MaxEjection, time.Minute, Bounds.Ejection).unless(func(r *reporter) bool {
			if o.MaxEjection >= o.BaseEjection {
				return false
			}
			r.add(p+"outlier.max_ejection", "must be at least base_ejection (%v), got %v", o.BaseEjection, o.MaxEjection)
			return true
		}),
		ranged(p+"outlier.max_ejection_share", &o.MaxEjectionShare, 0.2, Bounds.EjectionShare),
		ranged(p+"outlier.success_rate_k", &o.SuccessRateK, 1.9, Bounds.OutlierK),
		ranged(p+"outlier.latency_k", &o.LatencyK, 1.9, Bounds.OutlierK),
		ranged(p+"outlier.min_requests", &o.MinRequests, 10, Bounds.MinRequests),

		ranged(p+"slow_start.window", &s.Window, 10*time.Second, Bounds.RampWindow),
		ranged(p+"slow_start.floor", &s.Floor, 0.1, Bounds.RampFloor),
		ranged(p+"slow_start.aggression", &s.Aggression, 1, Bounds.Aggression),

		ranged(p+"health.interval", &h.Interval, time.Second, Bounds.Period),
		ranged(p+"health.fails", &h.Fails, 2, Bounds.Checks),
		ranged(p+"health.passes", &h.Passes, 2, Bounds.Checks),
	}
}

// knob is one line of a settings table: it fills its default and checks
// its value.
type knob interface {
	fill(d defaulter)
	check(r *reporter)
}

// rangedKnob is a number or a duration with a default and a range.
type rangedKnob[T int | float64 | time.Duration] struct {
	path string
	p    *T
	def  T
	in   Range[T]
	// before, when not nil, checks a rule between fields first; when it
	// reports, the range is not checked (one error for the field).
	before func(r *reporter) bool
}

func ranged[T int | float64 | time.Duration](path string, p *T, def T, in Range[T]) rangedKnob[T] {
	return rangedKnob[T]{path: path, p: p, def: def, in: in}
}

// unless puts a rule between fields before the range check.
func (k rangedKnob[T]) unless(rule func(r *reporter) bool) rangedKnob[T] {
	k.before = rule
	return k
}

func (k rangedKnob[T]) fill(d defaulter) { def(d, k.p, k.path, k.def) }

func (k rangedKnob[T]) check(r *reporter) {
	if k.before != nil && k.before(r) {
		r.allow(k.path, Allowed{Range: k.in})
		return
	}
	check(r, k.path, k.in, *k.p)
}

// wordKnob is a setting that takes one of a few words.
type wordKnob[T ~string] struct {
	path  string
	p     *T
	def   T
	words []T
}

func words[T ~string](path string, p *T, def T, allowed ...T) wordKnob[T] {
	return wordKnob[T]{path, p, def, allowed}
}

func (k wordKnob[T]) fill(d defaulter)  { def(d, k.p, k.path, k.def) }
func (k wordKnob[T]) check(r *reporter) { oneOfEnum(r, k.path, *k.p, k.words...) }

// rule is a check of several fields at its place in the table.
type rule func(r *reporter)

func (rule) fill(defaulter)      {}
func (f rule) check(r *reporter) { f(r) }
