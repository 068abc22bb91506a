package labfile

import "slices"

// KindLB is balancers.kind for lblab's own lb ("" is the same).
const KindLB = "lb"

// Tiers is what labfile is handed of the balancer tiers a lab may run in
// the lb's place (balancers.kind): labfile knows no proxy. The package
// that declares them (internal/proxies) hands them over with UseTiers
// when it is linked, and labfile checks a lab's kind against the list it
// was handed and lets the tiers refuse, at the lab's positions, what they
// cannot run.
type Tiers struct {
	// Kinds are the values balancers.kind takes besides lb.
	Kinds []string
	// Check refuses the lab's settings its tier cannot run; it is called
	// for every lab whose kind is lb or one of Kinds.
	Check func(l *Lab, refuse Refuse)
	// Script refuses the script's drills (events[i]) on the balancer tier
	// the lab's tier cannot take.
	Script func(l *Lab, refuse Refuse)
}

// Refuse reports a problem with the setting at a dotted path of the lab
// (balancers.algorithm, events[2].set.balancers.decay): from a lab file,
// it carries the file, line and column of the path, as labfile's own.
type Refuse func(path, format string, args ...any)

// tiers are the tiers handed over (UseTiers); none until then.
var tiers Tiers

// UseTiers hands labfile the balancer tiers besides lb. It is called once,
// from the package init of the one that declares them, before any lab is
// read.
func UseTiers(t Tiers) { tiers = t }

// Kinds are the values balancers.kind takes: lb and the tiers handed over.
func Kinds() []string { return append([]string{KindLB}, tiers.Kinds...) }

// validateTier checks balancers.kind against the kinds labfile was handed
// and lets the tiers refuse what the lab's cannot run.
func validateTier(l *Lab, r *reporter) {
	if k := l.Balancers.Kind; k != "" && k != KindLB && !slices.Contains(tiers.Kinds, k) {
		r.oneOf("balancers.kind", k, Kinds()...)
		return
	}
	if tiers.Check != nil {
		tiers.Check(l, r.add)
	}
}

// validateTierScript lets the tiers refuse the script's drills on the
// balancer tier the lab's cannot take.
func validateTierScript(l *Lab, r *reporter) {
	if tiers.Script != nil {
		tiers.Script(l, r.add)
	}
}
