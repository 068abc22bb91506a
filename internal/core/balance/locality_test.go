package balance

import (
	"math"
	"testing"
)

// shares draws n evenly spaced draws through Masks and returns how often
// each first mask came (the empty slice counts as mask 0: every zone).
func zoneShares(t *testing.T, c LocalityConfig, zones []ZoneState, n int) map[uint64]float64 {
	t.Helper()
	out := map[uint64]float64{}
	for k := range n {
		m := c.Masks(zones, (float64(k)+0.5)/float64(n), nil)
		first := uint64(0)
		if len(m) > 0 {
			first = m[0]
		}
		out[first] += 1 / float64(n)
	}
	return out
}

func closeTo(a, b float64) bool { return math.Abs(a-b) < 0.002 }

func zoneAware() LocalityConfig {
	c, _ := LocalityConfig{Policy: LocalityZoneAware}.WithDefaults()
	return c
}

func TestZoneAwareSpillsTheResidual(t *testing.T) {
	// A (local) has a third of the healthy servers and half the callers:
	// 2/3 of its traffic stays, the rest goes to B, the only zone with more
	// servers than callers; C has fewer and takes nothing.
	zones := []ZoneState{
		{Level: 0, Callers: 0.5, Members: 2, Healthy: 2},
		{Level: 1, Callers: 0.25, Members: 3, Healthy: 3},
		{Level: 1, Callers: 0.25, Members: 1, Healthy: 1},
	}
	got := zoneShares(t, zoneAware(), zones, 3000)
	if !closeTo(got[1], 2.0/3) || !closeTo(got[2], 1.0/3) || got[4] != 0 {
		t.Fatalf("zone-aware: local %.3f, B %.3f, C %.3f; want 0.667, 0.333, 0", got[1], got[2], got[4])
	}
	// Two zones with spare split the residual by their spare.
	zones[2] = ZoneState{Level: 2, Callers: 0, Members: 1, Healthy: 1} // spare 1/6 beside B's 1/4
	got = zoneShares(t, zoneAware(), zones, 3000)
	if !closeTo(got[1], 2.0/3) || !closeTo(got[2], 1.0/3*0.6) || !closeTo(got[4], 1.0/3*0.4) {
		t.Fatalf("zone-aware: local %.3f, B %.3f, C %.3f; want 0.667, 0.2, 0.133", got[1], got[2], got[4])
	}
}

func TestZoneAwareStaysLocalOrTurnsOff(t *testing.T) {
	even := []ZoneState{
		{Level: 0, Callers: 0.5, Members: 3, Healthy: 3},
		{Level: 1, Callers: 0.5, Members: 3, Healthy: 3},
	}
	if got := zoneShares(t, zoneAware(), even, 100); !closeTo(got[1], 1) {
		t.Fatalf("the local zone has its share: want every pick local, got %v", got)
	}
	// Below min_cluster_size the layer is off: no mask.
	small := []ZoneState{
		{Level: 0, Callers: 0.5, Members: 1, Healthy: 1},
		{Level: 1, Callers: 0.5, Members: 4, Healthy: 4},
	}
	if got := zoneShares(t, zoneAware(), small, 100); !closeTo(got[0], 1) {
		t.Fatalf("5 servers under min_cluster_size 6: want the layer off, got %v", got)
	}
	// A local zone with nothing healthy sends everything away.
	down := []ZoneState{
		{Level: 0, Callers: 0.5, Members: 3, Healthy: 0},
		{Level: 1, Callers: 0.5, Members: 3, Healthy: 3},
	}
	if got := zoneShares(t, zoneAware(), down, 100); !closeTo(got[2], 1) {
		t.Fatalf("local zone down: want every pick in the other, got %v", got)
	}
}

func TestFailoverOverprovisions(t *testing.T) {
	c, _ := LocalityConfig{Policy: LocalityFailover}.WithDefaults()
	level := func(localHealthy, otherHealthy int) map[uint64]float64 {
		return zoneShares(t, c, []ZoneState{
			{Level: 0, Members: 4, Healthy: localHealthy},
			{Level: 1, Members: 4, Healthy: otherHealthy},
			{Level: 2, Members: 4, Healthy: 4},
		}, 4000)
	}
	for _, tc := range []struct {
		local, other        int
		want0, want1, want2 float64
	}{
		{3, 4, 1, 0, 0},         // 0.75 x 1.4 > 1: all stays
		{2, 4, 0.7, 0.3, 0},     // 0.5 x 1.4 = 0.7, the rest to the region
		{0, 4, 0, 1, 0},         // the local zone down: its region takes all
		{1, 1, 0.35, 0.35, 0.3}, // 0.35 each, the far region the rest
	} {
		got := level(tc.local, tc.other)
		if !closeTo(got[1], tc.want0) || !closeTo(got[2], tc.want1) || !closeTo(got[4], tc.want2) {
			t.Errorf("healthy %d and %d of 4: levels took %.3f %.3f %.3f, want %.3f %.3f %.3f",
				tc.local, tc.other, got[1], got[2], got[4], tc.want0, tc.want1, tc.want2)
		}
	}
	// Every level short: normalized over what they can take.
	got := zoneShares(t, c, []ZoneState{{Level: 0, Members: 10, Healthy: 1}, {Level: 1, Members: 10, Healthy: 3}}, 4000)
	if !closeTo(got[1], 0.25) || !closeTo(got[2], 0.75) {
		t.Fatalf("0.14 and 0.42 healthy: want 0.25 and 0.75 after normalizing, got %v", got)
	}
}

func TestRingsSpillAtTheirThreshold(t *testing.T) {
	c, _ := LocalityConfig{Policy: LocalityRings, Threshold: 2}.WithDefaults()
	zones := []ZoneState{
		{Level: 0, Eligible: 2, Outstanding: 3}, // 1.5 a server: under 2
		{Level: 1, Eligible: 2, Outstanding: 8}, // the region ring: 11/4
		{Level: 2, Eligible: 4, Outstanding: 0}, // everything: 11/8
	}
	if got := c.Masks(zones, 0.5, nil); len(got) != 3 || got[0] != 1 || got[1] != 3 || got[2] != 7 {
		t.Fatalf("local ring under its bound: want [1 3 7], got %v", got)
	}
	zones[0].Outstanding = 4 // 2 a server: spill; the region's ring is at 12/4, spill; all at 12/8
	if got := c.Masks(zones, 0.5, nil); len(got) != 1 || got[0] != 7 {
		t.Fatalf("local and region rings at their bound: want [7], got %v", got)
	}
	zones[2].Outstanding = 100
	if got := c.Masks(zones, 0.5, nil); len(got) != 0 {
		t.Fatalf("every ring over its bound: want every zone (no mask), got %v", got)
	}
	// One region: the region's ring is the global one, tried once.
	one := []ZoneState{{Level: 0, Eligible: 1, Outstanding: 5}, {Level: 1, Eligible: 3}}
	if got := c.Masks(one, 0.5, nil); len(got) != 1 || got[0] != 3 {
		t.Fatalf("one region: want [3], got %v", got)
	}
}

func TestLocalityLocalAndNone(t *testing.T) {
	zones := []ZoneState{{Level: 1, Members: 2}, {Level: 0, Members: 2}}
	loc, _ := LocalityConfig{Policy: LocalityLocal}.WithDefaults()
	if got := loc.Masks(zones, 0.3, nil); len(got) != 1 || got[0] != 2 {
		t.Fatalf("local: want [2], got %v", got)
	}
	none, _ := LocalityConfig{}.WithDefaults()
	if none.Policy != LocalityNone || none.Active() || len(none.Masks(zones, 0.3, nil)) != 0 {
		t.Fatalf("the zero config: want none and no masks, got %+v", none)
	}
	for _, bad := range []LocalityConfig{{Policy: "nearest"}, {Overprovisioning: 0.5}, {Threshold: -1}, {MinClusterSize: -1}} {
		if _, err := bad.WithDefaults(); err == nil {
			t.Errorf("%+v: want an error", bad)
		}
	}
}
