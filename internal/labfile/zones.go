package labfile

import (
	"slices"

	"github.com/lblab/lblab/internal/core/balance"
	"strconv"
	"strings"
	"time"
)

// Zone is one zone of the lab, named so that servers, balancers and
// clients can be placed in it, and the region it lies in. Two zones of one
// region are joined by network.cross_zone, two regions by
// network.cross_region; within a zone a hop is network.hop. A lab that
// declares no zones is one zone: every hop is network.hop, as before zones
// existed.
type Zone struct {
	Name   string `yaml:"name"`
	Region string `yaml:"region,omitempty"` // "" (the default): the lab's one region
}

// Link is the one-way hop between two zones: Hop plus a uniform extra in
// [0, Jitter], drawn as network.jitter is.
type Link struct {
	Hop    time.Duration `yaml:"hop"`
	Jitter time.Duration `yaml:"jitter"`
}

// maxZones bounds the zones a lab declares, and the entries of a
// clients.zones or balancers.zones list.
const maxZones = 64

// Zoned reports whether the lab declares zones.
func (l *Lab) Zoned() bool { return len(l.Zones) > 0 }

// ZoneIndex is the position of the zone called name in the lab's zones, or
// -1 when it declares none of that name.
func (l *Lab) ZoneIndex(name string) int {
	for i, z := range l.Zones {
		if z.Name == name {
			return i
		}
	}
	return -1
}

// zoneNames lists the names of the lab's zones, in file order, each once.
func (l *Lab) zoneNames() []string {
	var out []string
	for _, z := range l.Zones {
		if !slices.Contains(out, z.Name) {
			out = append(out, z.Name)
		}
	}
	return out
}

// zoneKnobs are the zones' lines of the settings table: the declarations
// (names and regions), the places of the balancers and the clients, and
// their defaults (the first zone) in a lab that declares zones. Each
// server group's zone is checked with the group (groupZone).
func zoneKnobs(l *Lab) []knob {
	return []knob{
		rule(func(r *reporter) { validateZones(l, r) }),
		filler(func(d defaulter) {
			if !l.Zoned() {
				return
			}
			first := l.Zones[0].Name
			if len(l.Clients.Zones) == 0 && d.absent("clients.zones") {
				l.Clients.Zones = []string{first}
			}
			if len(l.Balancers.Zones) == 0 && d.absent("balancers.zones") {
				l.Balancers.Zones = []string{first}
			}
		}),
		rule(func(r *reporter) {
			validatePlaces(l, "clients.zones", l.Clients.Zones, l.Clients.Count, "client ids", r)
		}),
		rule(func(r *reporter) {
			validatePlaces(l, "balancers.zones", l.Balancers.Zones, l.Balancers.Count, "balancers", r)
		}),
		rule(func(r *reporter) {
			if p := l.Balancers.Locality.Policy; p != "" && p != balance.LocalityNone && !l.Zoned() {
				r.add("balancers.locality.policy", "%s routing chooses among zones, but the lab declares none: add zones (zones: [{name: a}, {name: b}]) and place the servers in them", p)
			}
		}),
	}
}

// validateZones checks the zones' declarations: at most maxZones, each
// with a name of its own (letters, digits and _ . -) and a region of the
// same form, or none.
func validateZones(l *Lab, r *reporter) {
	if len(l.Zones) > maxZones {
		r.add("zones", "a lab has at most %d zones, got %d", maxZones, len(l.Zones))
		return
	}
	seen := map[string]int{}
	for i, z := range l.Zones {
		p := IndexPath("zones", i)
		switch {
		case z.Name == "":
			r.add(p+".name", "a zone needs a name (- {name: a, region: east})")
		case checkZoneName(z.Name) != "":
			r.add(p+".name", "%s", checkZoneName(z.Name))
		default:
			if j, dup := seen[z.Name]; dup {
				r.add(p+".name", "zone %s is declared twice (first as %s)", Quote(z.Name), IndexPath("zones", j))
			}
			seen[z.Name] = i
		}
		if z.Region != "" && checkZoneName(z.Region) != "" {
			r.add(p+".region", "%s", checkZoneName(z.Region))
		}
	}
}

// checkZoneName returns what is wrong with a zone's or a region's name, or
// "": it is a server's name's form (checkServerName), "all" included,
// which a zone drill's target may not mean.
func checkZoneName(name string) string { return checkServerName(name) }

// validatePlaces checks a list of zones members are placed in: each a
// zone the lab declares, at most one entry per member (count of them).
func validatePlaces(l *Lab, path string, zones []string, count int, members string, r *reporter) {
	if len(zones) == 0 {
		return
	}
	if !l.Zoned() {
		r.add(path, "places the %s in zones, but the lab declares none: add zones (zones: [{name: %s}])", members, quoteName(zones[0]))
		return
	}
	if len(zones) > min(max(count, 1), maxZones) {
		r.add(path, "lists %d zones for %d %s: at most one entry per member (and %d)", len(zones), count, members, maxZones)
		return
	}
	for i, z := range zones {
		checkZoneRef(l, IndexPath(path, i), z, r)
	}
}

// groupZone is server group p's zone check.
func groupZone(l *Lab, p string, g *ServerGroup) rule {
	return func(r *reporter) {
		if g.Zone == "" {
			return
		}
		if !l.Zoned() {
			r.add(p+".zone", "places the group in zone %s, but the lab declares no zones: add zones (zones: [{name: %s}])", Quote(g.Zone), quoteName(g.Zone))
			return
		}
		checkZoneRef(l, p+".zone", g.Zone, r)
	}
}

// checkZoneRef checks that name, at path, is one of the lab's zones.
func checkZoneRef(l *Lab, path, name string, r *reporter) {
	if l.ZoneIndex(name) < 0 {
		r.oneOf(path, name, l.zoneNames()...)
	}
}

// quoteName is a name for an example in a message: as it is when it has a
// name's form, else a placeholder.
func quoteName(name string) string {
	if checkZoneName(name) != "" {
		return "a"
	}
	return name
}

// fillGroupZone gives a server group of a zoned lab the first zone when it
// names none.
func fillGroupZone(l *Lab, p string, g *ServerGroup) filler {
	return func(d defaulter) {
		if l.Zoned() && g.Zone == "" && d.absent(p+".zone") {
			g.Zone = l.Zones[0].Name
		}
	}
}

// ServersIn lists, of the servers called names (those present), the ones
// in zone: by the lab's groups, a server the lab does not name (added by a
// script) being in the last server's zone.
func (l *Lab) ServersIn(zone string, names []string) []string {
	want := l.ZoneIndex(zone)
	if want < 0 {
		return nil
	}
	zones, byName := l.ServerZones(), map[string]int{}
	for i, ns := range l.ExpandServers() {
		byName[ns.Name] = zones[i]
	}
	var out []string
	for _, n := range names {
		z, ok := byName[n]
		if !ok && len(zones) > 0 {
			z = zones[len(zones)-1]
		}
		if z == want {
			out = append(out, n)
		}
	}
	return out
}

// ServerZones is each server's zone, as an index into the lab's zones, in
// the order of ExpandServers; nil when the lab declares no zones.
func (l *Lab) ServerZones() []int {
	if !l.Zoned() {
		return nil
	}
	var out []int
	for _, g := range l.Servers {
		z := max(l.ZoneIndex(g.Zone), 0)
		for j := 0; j < g.Count && len(out) < maxServers; j++ {
			out = append(out, z)
		}
	}
	return out
}

// zonesOf turns a list of zone names into indexes (an unknown name, which
// validation refuses, is the first zone).
func (l *Lab) zonesOf(names []string) []int {
	out := make([]int, len(names))
	for i, n := range names {
		out[i] = max(l.ZoneIndex(n), 0)
	}
	return out
}

// ClientZones and BalancerZones are the zones (indexes into the lab's
// zones) the client ids and the balancers are spread over in turn: member
// m is in the list's entry m mod its length. nil when the lab declares no
// zones.
func (l *Lab) ClientZones() []int {
	if !l.Zoned() {
		return nil
	}
	return l.zonesOf(orFirst(l.Clients.Zones))
}

// BalancerZones: see ClientZones.
func (l *Lab) BalancerZones() []int {
	if !l.Zoned() {
		return nil
	}
	return l.zonesOf(orFirst(l.Balancers.Zones))
}

// ZoneRegions is each zone's region as an index (zones of one region
// share it; the zones without a region are one region).
func (l *Lab) ZoneRegions() []int {
	out := make([]int, len(l.Zones))
	seen := map[string]int{}
	for i, z := range l.Zones {
		r, ok := seen[z.Region]
		if !ok {
			r = len(seen)
			seen[z.Region] = r
		}
		out[i] = r
	}
	return out
}

// orFirst is a list of places, or the first zone's alone when it is empty
// (a lab built in code, without defaults).
func orFirst(names []string) []string {
	if len(names) == 0 {
		return []string{""}
	}
	return names
}

// BalancerName is the name of balancer number i (from 0) of the tier, as
// the live lab starts it and as it signs what it forwards (lb1, lb2, ...).
func BalancerName(i int) string { return "lb" + strconv.Itoa(i+1) }

// BalancerIndex is BalancerName's inverse: the number of the balancer
// called name, and whether name is one of that form.
func BalancerIndex(name string) (int, bool) {
	digits, ok := strings.CutPrefix(name, "lb")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 1 || digits != strconv.Itoa(n) {
		return 0, false
	}
	return n - 1, true
}

// HopSetting reports whether path sets a hop the live processes inject
// (network.hop and jitter, and the links between zones): each process
// applies a set of one to the hops it sends.
func HopSetting(path string) bool {
	return path == "network.hop" || path == "network.jitter" || path == "network.partition" ||
		strings.HasPrefix(path, "network.cross_zone.") || strings.HasPrefix(path, "network.cross_region.")
}
