package balance

import (
	"fmt"
	"math"

	"github.com/lblab/lblab/internal/assert"
)

// Locality is the zone layer over an algorithm: before the algorithm picks,
// the layer chooses the zones it may pick in, from what the balancer knows
// of each zone (ZoneState) and one uniform draw. The algorithm then picks
// among the members of those zones as it would among all (the driver hides
// the others from its View), so the layer goes with every algorithm.
type Locality string

// The locality policies.
const (
	// LocalityNone: no layer; the algorithm picks over every zone.
	LocalityNone Locality = "none"
	// LocalityLocal: the balancer's own zone only, every zone when none of
	// its members there is eligible.
	LocalityLocal Locality = "local"
	// LocalityZoneAware: Envoy's zone-aware routing. When the local zone
	// holds at least the share of the healthy servers that the calling
	// fleet has there, everything stays local; else that ratio stays and
	// the rest spills to the zones whose share of the servers exceeds
	// their share of the callers, in proportion to the excess. Off (every
	// zone) below MinClusterSize servers.
	LocalityZoneAware Locality = "zone-aware"
	// LocalityFailover: priority levels by distance (the local zone, the
	// other zones of its region, the other regions), as Envoy's and gRPC
	// xDS's priorities: a level whose healthy share is h takes
	// min(1, Overprovisioning x h) of what the levels before it left,
	// normalized when the levels together cannot take it all.
	LocalityFailover Locality = "failover"
	// LocalityRings: ServiceRouter's locality rings, each holding the one
	// before it (the local zone, its region, everything): the first ring
	// whose eligible members average fewer than Threshold outstanding
	// requests takes the pick; past the last, every zone.
	LocalityRings Locality = "rings"
)

// Localities lists the policies, the default first.
var Localities = []Locality{LocalityNone, LocalityLocal, LocalityZoneAware, LocalityFailover, LocalityRings}

// LocalityConfig is the layer's policy and its settings (the zero value:
// none).
type LocalityConfig struct {
	Policy Locality
	// MinClusterSize: zone-aware routing is off while the balancer has
	// fewer members than this (Envoy's min_cluster_size).
	MinClusterSize int
	// Overprovisioning: failover's factor on a level's healthy share.
	Overprovisioning float64
	// Threshold: rings' bound on the mean outstanding requests per eligible
	// member of a ring, at or above which it spills to the next.
	Threshold float64
}

// Defaults and bounds of LocalityConfig: Envoy's min_cluster_size and
// overprovisioning factor; a ring spills at four requests in flight per
// server, by default.
const (
	DefaultMinClusterSize   = 6
	DefaultOverprovisioning = 1.4
	DefaultRingThreshold    = 4.0
	// MaxZones is the most zones the layer tells apart: a mask is a uint64.
	MaxZones = 64
)

// Active reports whether the layer chooses zones at all.
func (c LocalityConfig) Active() bool { return c.Policy != "" && c.Policy != LocalityNone }

// ZoneState is what a balancer knows of one zone at a pick.
type ZoneState struct {
	// Level is the zone's distance from the balancer's own: 0 its own, 1
	// another zone of its region, 2 another region.
	Level int8
	// Callers is the calling fleet's share in the zone (the balancers of
	// the tier, or the clients when they balance themselves), in [0, 1].
	Callers float64
	// Members are the balancer's members in the zone; Healthy those of
	// them in rotation (health checks, outlier ejection); Eligible those
	// it could pick now (also breaker ready and not a hedge's sibling).
	Members, Healthy, Eligible int
	// Outstanding is the requests in flight to its eligible members, as
	// the balancer's load table counts them.
	Outstanding float64
}

// Levels is how many distances ZoneState.Level tells apart.
const Levels = 3

// Masks appends to dst the sets of zones (bit z: zone z of zones) a pick
// tries, in order; the driver tries each, then every zone. Nothing (every
// zone at once) when the layer is off or nothing distinguishes a zone.
// draw is uniform in [0, 1), the pick's own.
func (c LocalityConfig) Masks(zones []ZoneState, draw float64, dst []uint64) []uint64 {
	assert.That(len(zones) <= MaxZones, "locality: more zones than a mask holds")
	assert.That(draw >= 0 && draw < 1, "locality: the draw is not in [0, 1)")
	local := -1
	for z := range zones {
		if zones[z].Level == 0 {
			assert.That(local < 0, "locality: two local zones")
			local = z
		}
	}
	if !c.Active() || local < 0 {
		return dst
	}
	switch c.Policy {
	case LocalityLocal:
		return append(dst, 1<<local)
	case LocalityZoneAware:
		return c.zoneAware(zones, local, draw, dst)
	case LocalityFailover:
		return c.failover(zones, draw, dst)
	case LocalityRings:
		return c.rings(zones, dst)
	}
	return dst
}

// zoneAware is Envoy's zone-aware routing (LocalityZoneAware).
func (c LocalityConfig) zoneAware(zones []ZoneState, local int, draw float64, dst []uint64) []uint64 {
	members, healthy := 0, 0
	for _, z := range zones {
		members += z.Members
		healthy += z.Healthy
	}
	if members < c.MinClusterSize || healthy == 0 {
		return dst
	}
	share := func(z ZoneState) float64 { return float64(z.Healthy) / float64(healthy) }
	mine, callers := share(zones[local]), zones[local].Callers
	if callers <= 0 || mine >= callers {
		return append(dst, 1<<local) // direct: the local zone has its share
	}
	stay := mine / callers
	if draw < stay {
		return append(dst, 1<<local)
	}
	var spare float64
	for z, s := range zones {
		if z != local {
			spare += max(0, share(s)-s.Callers)
		}
	}
	if spare <= 0 {
		return dst
	}
	at := (draw - stay) / (1 - stay) * spare // uniform in [0, spare)
	last := -1
	for z, s := range zones {
		if z == local || share(s) <= s.Callers {
			continue
		}
		last = z
		if at -= share(s) - s.Callers; at < 0 {
			return append(dst, 1<<z)
		}
	}
	return append(dst, 1<<last) // rounding
}

// failover is priority failover with an overprovisioning factor
// (LocalityFailover).
func (c LocalityConfig) failover(zones []ZoneState, draw float64, dst []uint64) []uint64 {
	var members, healthy [Levels]int
	var mask [Levels]uint64
	for z, s := range zones {
		members[s.Level] += s.Members
		healthy[s.Level] += s.Healthy
		if s.Members > 0 {
			mask[s.Level] |= 1 << z
		}
	}
	var health [Levels]float64
	total := 0.0
	for l := range health {
		if members[l] > 0 {
			health[l] = min(1, c.Overprovisioning*float64(healthy[l])/float64(members[l]))
			total += health[l]
		}
	}
	if total == 0 {
		return dst
	}
	left := 1.0
	for l := range health {
		take := min(health[l], left)
		if total < 1 {
			take = health[l] / total // the levels cannot take it all: normalized
		}
		left -= take
		if draw < take && mask[l] != 0 {
			return append(dst, mask[l])
		}
		draw -= take
	}
	return dst // rounding: every zone
}

// rings are ServiceRouter's locality rings (LocalityRings).
func (c LocalityConfig) rings(zones []ZoneState, dst []uint64) []uint64 {
	var eligible [Levels]int
	var outstanding [Levels]float64
	var mask [Levels]uint64
	for z, s := range zones {
		for r := int(s.Level); r < Levels; r++ { // ring r holds the levels up to r
			eligible[r] += s.Eligible
			outstanding[r] += s.Outstanding
			mask[r] |= 1 << z
		}
	}
	from := -1
	for r := range Levels {
		if r > 0 && mask[r] == mask[r-1] {
			continue // the same ring again
		}
		if eligible[r] > 0 && outstanding[r]/float64(eligible[r]) < c.Threshold {
			from = r
			break
		}
	}
	if from < 0 {
		return dst // every ring over its bound: every zone
	}
	for r := from; r < Levels; r++ {
		if r == from || mask[r] != mask[r-1] {
			dst = append(dst, mask[r])
		}
	}
	return dst
}

// ok reports whether every field is in its range (Policy "" is none).
func (c LocalityConfig) ok() bool {
	switch c.Policy {
	case "", LocalityNone, LocalityLocal, LocalityZoneAware, LocalityFailover, LocalityRings:
	default:
		return false
	}
	return c.MinClusterSize >= 1 && c.Overprovisioning >= 1 && !math.IsInf(c.Overprovisioning, 0) &&
		c.Threshold > 0 && !math.IsInf(c.Threshold, 0)
}

// WithDefaults is c with its zero fields at their defaults, or an error
// naming the field out of its range.
func (c LocalityConfig) WithDefaults() (LocalityConfig, error) {
	if c.Policy == "" {
		c.Policy = LocalityNone
	}
	if c.MinClusterSize == 0 {
		c.MinClusterSize = DefaultMinClusterSize
	}
	if c.Overprovisioning == 0 {
		c.Overprovisioning = DefaultOverprovisioning
	}
	if c.Threshold == 0 {
		c.Threshold = DefaultRingThreshold
	}
	if !c.ok() {
		return c, errLocality(c)
	}
	return c, nil
}

func errLocality(c LocalityConfig) error {
	return fmt.Errorf("balance: locality %q with min cluster size %d, overprovisioning %g, threshold %g: want one of %v, a size >= 1, a factor >= 1 and a threshold > 0",
		c.Policy, c.MinClusterSize, c.Overprovisioning, c.Threshold, Localities)
}
