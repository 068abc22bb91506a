package labfile

import (
	"fmt"

	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
)

// maxMixParts bounds a mixture's parts.
const maxMixParts = 100

// Algorithms are the balancing algorithms a lab may name (balancers.algorithm,
// clients.algorithm, compare settings and algorithm events): the core's
// registry, balance.Names.
var Algorithms = balance.Names

// Validate checks every range and cross-field rule of the lab, its compare
// settings and its script. Each problem names the field and the allowed
// values or range. The error is an *Error, or Errors when there are several.
// Positions are known only when the lab comes from a lab file
// (labyaml.Parse, which validates it with Complete); Validate on a lab built
// or changed in code reports fields only.
func (l *Lab) Validate() error {
	r := &reporter{}
	validateLab(l, r)
	return r.errs.result()
}

// Complete finishes a lab decoded from a lab file (labyaml.Parse): it
// fills the defaults of the fields the file leaves out (present reports
// whether the file gives a value at a dotted path) and checks the lab as
// Validate does, reporting each problem at its field's position in at, or
// at its nearest enclosing section's. The error is nil, an *Error, or
// Errors in file order, capped as Errors.Capped caps them.
func Complete(file string, lab *Lab, present func(path string) bool, at Positions) error {
	applyDefaults(lab, present)
	r := &reporter{file: file, pos: at}
	validateLab(lab, r)
	if len(r.errs) > 0 {
		r.errs.sortByPosition()
		return r.errs.Capped()
	}
	return nil
}

func validateLab(l *Lab, r *reporter) {
	validateCore(l, r)
	validateCaptions(l, r)
	validateScript(l, r)
	validateTierScript(l, r)
}

// validateCore checks the knobs, everything but compare and events,
// walking the lab's table (labKnobs, knobs.go).
func validateCore(l *Lab, r *reporter) {
	for _, k := range labKnobs(l) {
		k.check(r)
	}
}

// validateAperture checks section.aperture: in range, with an algorithm
// that draws random choices, and not together with a random subset; and
// section.aperture_load, which sizes an aperture.
func validateAperture(section, algorithm string, aperture, subset int, load float64, r *reporter) {
	p := section + ".aperture"
	check(r, p+"_load", Bounds.ApertureLoad, load)
	if load > 0 && aperture == 0 {
		r.add(p+"_load", "sizes an aperture: set %s too (the smallest window), got aperture_load %s", p, num(load))
	}
	check(r, p, Bounds.Aperture, aperture)
	switch {
	case !Bounds.Aperture.In(aperture):
	case aperture == 0:
	case !balance.SupportsAperture(algorithm):
		r.add(p, "works with the algorithms that draw random choices (%s); %s.algorithm is %s",
			strings.Join(balance.ApertureAlgorithms, ", "), section, Quote(algorithm))
	case subset > 0:
		r.add(p, "and %s.subset are two ways to choose a balancer's servers: set one of them (subset is %d)", section, subset)
	}
}

// checkHedge returns what is wrong with a hedge setting, or "".
func checkHedge(h string) string {
	const want = `must be "" (off), a positive duration like 50ms, or a percentile pNN with 0 < NN < 100 like p95`
	if h == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(h, "p"); ok {
		nn, err := strconv.ParseFloat(rest, 64)
		if err != nil || !(nn > 0 && nn < 100) {
			return fmt.Sprintf("%s; got %s", want, Quote(h))
		}
		return ""
	}
	d, err := time.ParseDuration(h)
	if err != nil || d <= 0 {
		return fmt.Sprintf("%s; got %s", want, Quote(h))
	}
	if !Bounds.Work.In(d) {
		return "a delay " + Bounds.Work.msg(d)
	}
	return ""
}

// validateName checks a group's optional name: only for a group of one,
// unique, and not shaped like the generated names s1, s2, ...
func validateName(p string, g *ServerGroup, seen map[string]string, r *reporter) {
	if g.Name == "" {
		return
	}
	if g.Count != 1 {
		r.add(p+".name", "a name is only for a group of one server (count is %d); larger groups are named s1, s2, ...", g.Count)
		return
	}
	if msg := checkServerName(g.Name); msg != "" {
		r.add(p+".name", "%s", msg)
		return
	}
	if isGeneratedName(g.Name) {
		r.add(p+".name", "names s1, s2, ... are reserved for unnamed servers; got %q", g.Name)
		return
	}
	if other, dup := seen[g.Name]; dup {
		r.add(p+".name", "name %q is already used by %s", g.Name, other)
		return
	}
	seen[g.Name] = p
}

// checkServerName returns what is wrong with a server name, or "".
func checkServerName(name string) string {
	if name == "all" {
		return `"all" is reserved (an event target meaning every server)`
	}
	if len(name) > 64 {
		return fmt.Sprintf("a name is at most 64 characters, got %d", len(name))
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && strings.ContainsRune("_.-", c)
		if !ok {
			return fmt.Sprintf("a name is letters, digits and _ . - (starting with a letter or digit); got %s", Quote(name))
		}
	}
	return ""
}

// isGeneratedName reports whether name has the form s<digits>.
func isGeneratedName(name string) bool {
	digits, ok := strings.CutPrefix(name, "s")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
