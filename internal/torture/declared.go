package torture

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// The settings the lab file declares are drawn from its declaration: the
// leaves of a section (labfile.Leaves) and what its checks allow at each
// (Lab.AllowedAt: a range, the typical part of it a lab of a few seconds
// takes, or words). Each part of a section, a setting of its own or a
// sub-section with every field (the breaker, a server's gc), is one swarm
// feature. So a setting added to the lab file is drawn with no edit here.

// part is what one swarm coin turns on in a section: a setting of the
// section itself, or a sub-section with all its fields.
type part struct {
	key    string // its name in the section: timeout, breaker
	sub    bool   // a sub-section: leaves are its fields
	leaves []labfile.Leaf
}

// drawnApart are the declared settings drawn elsewhere, each for a reason:
// what the generator's limits or the rest of the lab decide.
var drawnApart = map[string]bool{
	// the tier's size (the limits) and its algorithm
	"balancers.count": true, "balancers.algorithm": true,
	// an aperture needs an algorithm of the p2c family (constrained)
	"balancers.aperture": true, "balancers.aperture_load": true,
	"clients.aperture": true, "clients.aperture_load": true,
	// what runs the tier live (an external proxy): the simulator ignores it
	"balancers.kind": true, "balancers.command": true,
	// open or closed loop: a rate drawn against the fleet's capacity, or
	// users within the limits that think (with a guard)
	"clients.mode": true, "clients.rate": true, "clients.users": true, "clients.think": true,
	// the work (its mean sizes the fleet's capacity), the profile
	// (constrained), the faults' shares (they sum to at most 1), the
	// hedge's two forms and the clients' own algorithm (client-side)
	"clients.work": true, "clients.profile": true, "clients.faults": true, "clients.hedge": true, "clients.algorithm": true,
	// a group's size (the limits), its name (unique) and its own work
	"servers.count": true, "servers.name": true, "servers.work": true,
	// a number of round trips or a duration
	"network.handshake": true,
	// the zone layer needs zones: drawn with them (zones)
	"balancers.locality": true,
}

// coinOdds are the parts whose coin is not the usual one (0.25 for a
// setting, 0.35 for a section): a setting that makes a lab degenerate
// comes up less often, a common one more.
var coinOdds = map[string]float64{
	"network.hop":     0.5,
	"servers.workers": 0.5,
	"servers.fail":    0.05, // every request a fast 500
}

// partsOf lists the parts of section the generator draws from the
// declaration, in the schema's order.
func partsOf(section string) []part {
	var out []part
	for _, l := range labfile.Leaves(section) {
		name := strings.TrimPrefix(l.Path, section+".")
		key, _, sub := strings.Cut(name, ".")
		if drawnApart[l.Path] || drawnApart[section+"."+key] {
			continue
		}
		if n := len(out); sub && n > 0 && out[n-1].sub && out[n-1].key == key {
			out[n-1].leaves = append(out[n-1].leaves, l)
			continue
		}
		if !sub {
			key = name
		}
		out = append(out, part{key: key, sub: sub, leaves: []labfile.Leaf{l}})
	}
	return out
}

// sections are the parts of every section drawn from the declaration.
var sections = map[string][]part{
	"network": partsOf("network"), "clients": partsOf("clients"),
	"balancers": partsOf("balancers"), "servers": partsOf("servers"),
}

// on flips the coin of each part of section: the parts a lab has.
func (g *gen) on(section string) []part {
	var out []part
	for _, p := range sections[section] {
		odds := 0.25
		if p.sub {
			odds = 0.35
		}
		if o, ok := coinOdds[section+"."+p.key]; ok {
			odds = o
		}
		if g.coin(feature(section, p.key), odds) {
			out = append(out, p)
		}
	}
	return out
}

// feature names the swarm feature of a part: its name with dashes, clients'
// with client- in front, but for the names the summaries have always used.
func feature(section, key string) string {
	name := strings.ReplaceAll(key, "_", "-")
	switch {
	case section == "clients" && key == "count":
		return "clients"
	case section == "clients":
		return "client-" + name
	case section == "balancers" && key == "load":
		return "shared-load"
	case section == "balancers" && (key == "timeout" || key == "refresh"):
		return "balancer-" + name
	}
	return name
}

// fill draws the values of parts into the section m (a section at path
// section, or one element of it): each setting, and each sub-section with
// every field drawn, kept when the lab file takes it (alone(m) is the
// smallest lab holding m). It records the keys kept in kept.
func (g *gen) fill(m *Map, section string, parts []part, alone func(Map) Map, kept map[string]bool) {
	for _, p := range parts {
		var v any = Map{}
		if !p.sub {
			var ok bool
			if v, ok = g.value(p.leaves[0]); !ok {
				continue
			}
		} else {
			sec := Map{}
			for _, l := range p.leaves {
				if x, ok := g.value(l); ok {
					sec.Set(strings.TrimPrefix(l.Path, section+"."+p.key+"."), x)
				}
			}
			v = sec
		}
		if keep(m, p.key, v, alone) {
			kept[p.key] = true
		}
	}
}

// drawSection draws the parts of section whose coins come up into m; a
// part the lab file took nowhere (sticky without an algorithm) is not
// counted as a feature of the lab.
func (g *gen) drawSection(m *Map, section string) {
	kept := map[string]bool{}
	on := g.on(section)
	g.fill(m, section, on, func(m Map) Map { return Map{{section, m}} }, kept)
	g.unused(section, on, kept)
}

// unused takes the features of the parts not kept off the lab's list.
func (g *gen) unused(section string, on []part, kept map[string]bool) {
	for _, p := range on {
		if !kept[p.key] {
			f := feature(section, p.key)
			g.features = slices.DeleteFunc(g.features, func(x string) bool { return x == f })
		}
	}
}

// keep sets key to v in m when the lab file takes m with it. A field of v
// that a rule between fields refuses (max_ejection below base_ejection, a
// gc pause not below its period) is left out, to its default, and the rest
// kept. It reports whether it kept v.
func keep(m *Map, key string, v any, alone func(Map) Map) bool {
	for range 8 {
		cand := deepCopy(*m).(Map)
		cand.Set(key, v)
		_, err := labyaml.Parse("draw", alone(cand).YAML())
		if err == nil {
			*m = cand
			return true
		}
		sec, ok := v.(Map)
		var le *labfile.Error
		if !ok || !errors.As(err, &le) {
			return false
		}
		_, field, found := strings.Cut(le.Field, "."+key+".")
		if !found || sec.Get(field) == nil {
			return false
		}
		v = without(sec, field)
	}
	return false
}

// allowed is what the lab file allows at each setting, as its checks say.
var allowed = labfile.Default().AllowedAt()

// The scale of a value drawn from a range that declares no typical part:
// from its least value up to this much above it (or its most, when less),
// so a lab of a few seconds sees its timers fire and its windows fill.
const (
	intSpan   = 10
	floatSpan = 3.0
	timeSpan  = 500 * time.Millisecond
)

// draw draws a value of the setting at path (a path without indexes).
func (g *gen) draw(path string) any {
	v, _ := g.valueAt(path, nil)
	return v
}

// value draws a value of leaf l from what the lab file allows at it (in
// its typical part, or its range at the scale above; one of its words;
// true for a boolean, a section's enabled). ok is false for a leaf with
// none of these (free text): it is left to its default.
func (g *gen) value(l labfile.Leaf) (v any, ok bool) { return g.valueAt(l.Path, l.Type) }

func (g *gen) valueAt(path string, t reflect.Type) (any, bool) {
	a := allowed[path]
	switch r := a.Range.(type) {
	case labfile.Range[int]:
		if r.ZeroOK && g.chance(0.2) {
			return 0, true
		}
		if ty, ok := a.Typical.(labfile.Range[int]); ok {
			return g.intIn(ty.Min, ty.Max), true
		}
		lo := r.Min
		if r.MinOpen {
			lo++
		}
		return g.intIn(lo, max(lo, min(r.Max, lo+intSpan))), true
	case labfile.Range[float64]:
		if r.ZeroOK && g.chance(0.2) {
			return 0.0, true
		}
		lo, hi := r.Min, min(r.Max, r.Min+floatSpan)
		if ty, ok := a.Typical.(labfile.Range[float64]); ok {
			lo, hi = ty.Min, ty.Max
		}
		if x := round(g.floatIn(lo, hi)); r.In(x) {
			return x, true
		}
		return hi, true
	case labfile.Range[time.Duration]:
		if r.ZeroOK && g.chance(0.2) {
			return time.Duration(0), true
		}
		if ty, ok := a.Typical.(labfile.Range[time.Duration]); ok {
			unit := time.Millisecond
			if ty.Max < 10*time.Millisecond { // whole microseconds
				unit = time.Microsecond
			}
			d := time.Duration(g.intIn(int(ty.Min/unit), int(ty.Max/unit))) * unit
			if !r.In(d) {
				d = ty.Max
			}
			return d, true
		}
		lo := (r.Min + time.Millisecond - 1) / time.Millisecond // whole milliseconds
		if r.MinOpen && lo*time.Millisecond == r.Min {
			lo++
		}
		hi := min(r.Max, r.Min+timeSpan) / time.Millisecond
		return g.ms(int(lo), int(max(lo, hi))), true
	}
	if len(a.Words) > 0 {
		return pick(g, a.Words), true
	}
	if t != nil && t.Kind() == reflect.Bool {
		return true, true
	}
	return nil, false
}
