package policy

import (
	"fmt"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/rng"
)

// allZones is the view's mask when every zone may be picked.
const allZones = ^uint64(0)

// saltLocality salts the locality layer's draw of a pick, apart from the
// algorithm's own draws.
const saltLocality = 0x10ca_0000_0000_0013

// zoning is the balancer's locality layer: the policy with its defaults,
// each server's zone, and what the layer knows of each zone at a pick.
type zoning struct {
	loc      balance.LocalityConfig
	zoneOf   []int32             // by global server index: its zone (0 in a lab of one zone)
	zst      []balance.ZoneState // by zone; Level and Callers fixed, the counts per pick
	masks    []uint64            // the pick's masks, in the order tried
	pickMask uint64              // the zones the last pick chose among (PickZones)
}

// checkLocality is what is wrong with cfg's locality layer, or nil.
func checkLocality(cfg BalancerConfig) error {
	loc, err := cfg.Locality.WithDefaults()
	if err != nil {
		return fmt.Errorf("locality: %w", err)
	}
	if !loc.Active() {
		return nil
	}
	if cfg.Zones == nil {
		return fmt.Errorf("locality: %s routing needs zones: the lab declares none", loc.Policy)
	}
	if n := cfg.Zones.Count(); n > balance.MaxZones {
		return fmt.Errorf("locality: %d zones, at most %d", n, balance.MaxZones)
	}
	return nil
}

// setLocality takes cfg's layer: its policy and the zones' fixed facts
// (each one's distance from this balancer's, its callers' share).
func (b *Balancer) setLocality(cfg BalancerConfig) error {
	if err := checkLocality(cfg); err != nil {
		return err
	}
	b.cfg.Locality, b.cfg.Zones, b.cfg.Zone, b.cfg.ClientSide = cfg.Locality, cfg.Zones, cfg.Zone, cfg.ClientSide
	b.loc, _ = cfg.Locality.WithDefaults()
	b.zst = b.zst[:0]
	if z := cfg.Zones; z != nil {
		callers := z.Callers(cfg.ClientSide)
		for zone := range z.Count() {
			b.zst = append(b.zst, balance.ZoneState{Level: z.Level(cfg.Zone, int32(zone)), Callers: callers[zone]})
		}
	}
	for i := range b.zoneOf {
		b.zoneOf[i] = b.serverZone(i)
	}
	return nil
}

// serverZone is global server i's zone (0 without zones).
func (b *Balancer) serverZone(i int) int32 {
	if b.cfg.Zones == nil {
		return 0
	}
	return b.cfg.Zones.Server(int32(i))
}

// pickZoned is the algorithm's pick through the locality layer: in each
// set of zones the layer chooses, in order, then in every zone. With the
// layer off it is the algorithm's pick.
func (b *Balancer) pickZoned(now clock.Instant, req balance.Request) int {
	b.pickMask = allZones
	if !b.loc.Active() {
		return b.algo.Pick(now, req, &b.view)
	}
	b.visits += uint64(len(b.members)) // the zones' states scan every member
	b.masks = b.loc.Masks(b.zoneStates(now), rng.HashFloat(b.cfg.Seed, req.Seq, b.cfg.Salt^saltLocality), b.masks[:0])
	for _, m := range b.masks {
		b.view.mask = m
		j := b.algo.Pick(now, req, &b.view)
		b.view.mask = allZones
		if j >= 0 {
			b.pickMask = m
			return j
		}
	}
	return b.algo.Pick(now, req, &b.view)
}

// zoneStates counts, per zone, the members, the healthy ones, and the
// eligible ones with their requests in flight, at now.
func (b *Balancer) zoneStates(now clock.Instant) []balance.ZoneState {
	for z := range b.zst {
		s := &b.zst[z]
		s.Members, s.Healthy, s.Eligible, s.Outstanding = 0, 0, 0, 0
	}
	for _, i := range b.members {
		z := b.zoneOf[i]
		assert.That(int(z) < len(b.zst), "locality: a server's zone is past the lab's zones")
		s := &b.zst[z]
		s.Members++
		if b.healthy[i] && !b.Ejected(i) {
			s.Healthy++
		}
		if b.ok(now, i, b.view.exclude) {
			s.Eligible++
			s.Outstanding += float64(b.loads.Stats[i].Outstanding)
		}
	}
	return b.zst
}

// PickZones reports whether server i is in the zones the last Pick chose
// its server among: every server when the layer is off or fell back to
// every zone. An algorithm's bound (ring-hash-bounded's capacity) holds
// over those servers, the ones its View showed.
func (b *Balancer) PickZones(i int) bool {
	if b.pickMask == allZones || i < 0 || i >= len(b.zoneOf) {
		return true
	}
	return b.pickMask&(1<<uint(b.zoneOf[i])) != 0
}
