package labfile_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

const zonedLab = `name: zoned
zones:
  - {name: a, region: east}
  - {name: b, region: east}
  - {name: c, region: west}
network: {hop: 1ms, cross_zone: {hop: 3ms}}
clients: {zones: [a, b, b]}
balancers: {count: 3, zones: [a, b, c]}
servers:
  - {count: 2, zone: c}
  - {count: 2}
`

// A lab with zones: its links are filled where the file leaves them out,
// the members that name no zone are in the first, and everything is placed
// as written; it writes itself back as it reads.
func TestZonesParse(t *testing.T) {
	l, err := labyaml.Parse("z.yaml", []byte(zonedLab))
	if err != nil {
		t.Fatal(err)
	}
	n := l.Network
	if n.CrossZone != (labfile.Link{Hop: 3 * time.Millisecond}) || n.CrossRegion != (labfile.Link{Hop: 40 * time.Millisecond}) {
		t.Errorf("links %+v and %+v, want cross_zone 3ms as written and cross_region's default 40ms", n.CrossZone, n.CrossRegion)
	}
	if got := l.ServerZones(); !slices.Equal(got, []int{2, 2, 0, 0}) {
		t.Errorf("servers in zones %v, want [2 2 0 0] (a group without a zone is in the first)", got)
	}
	if got := l.ClientZones(); !slices.Equal(got, []int{0, 1, 1}) {
		t.Errorf("clients in zones %v", got)
	}
	if got := l.ZoneRegions(); !slices.Equal(got, []int{0, 0, 1}) {
		t.Errorf("regions %v, want [0 0 1]", got)
	}
	data, err := labyaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	back, err := labyaml.Parse("back.yaml", data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if got := back.Clone(); !slices.Equal(got.Zones, l.Zones) || !slices.Equal(got.Balancers.Zones, l.Balancers.Zones) || got.Servers[1].Zone != "a" {
		t.Errorf("written and read back: %+v, %v, %q", got.Zones, got.Balancers.Zones, got.Servers[1].Zone)
	}
}

// A lab without zones is today's lab: no link is filled, and it writes
// itself without a word of zones.
func TestZonelessLabHasNoZones(t *testing.T) {
	l, err := labyaml.Parse("flat.yaml", []byte("servers: [{count: 2}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l.Network.CrossZone != (labfile.Link{}) || l.Network.CrossRegion != (labfile.Link{}) || l.ServerZones() != nil || l.ClientZones() != nil {
		t.Errorf("a lab without zones got links %+v %+v", l.Network.CrossZone, l.Network.CrossRegion)
	}
	data, err := labyaml.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, word := range []string{"zone", "cross_"} {
		if strings.Contains(string(data), word) {
			t.Errorf("a lab without zones writes %q:\n%s", word, data)
		}
	}
}

// Each mistake about zones is reported at its line and column, with what
// is allowed.
func TestZonesErrors(t *testing.T) {
	for _, c := range []struct{ lab, want string }{
		{"zones: [{name: a}, {name: a}]\n", `z.yaml:1:27: zones[1].name: zone "a" is declared twice (first as zones[0])`},
		{"zones: [{name: a}, {region: x}]\n", "z.yaml:1:21: zones[1].name: a zone needs a name"},
		{"zones: [{name: 'a b'}]\n", "z.yaml:1:16: zones[0].name: a name is letters, digits"},
		{"zones: [{name: a, region: 'x/y'}]\n", "z.yaml:1:27: zones[0].region: a name is letters, digits"},
		{"zones: [{name: a}, {name: b}]\nservers: [{zone: bb}]\n", `z.yaml:2:18: servers[0].zone: must be one of a, b; got "bb" (did you mean "b"?)`},
		{"servers: [{zone: b}]\n", `z.yaml:1:18: servers[0].zone: places the group in zone "b", but the lab declares no zones`},
		{"zones: [{name: a}]\nclients: {zones: [a, q]}\n", `z.yaml:2:22: clients.zones[1]: must be one of a; got "q"`},
		{"balancers: {zones: [a]}\n", "z.yaml:1:13: balancers.zones: places the balancers in zones, but the lab declares none"},
		{"zones: [{name: a}]\nbalancers: {count: 1, zones: [a, a]}\n", "z.yaml:2:23: balancers.zones: lists 2 zones for 1 balancers"},
		{"zones: [{name: a}]\nnetwork: {cross_zone: {hop: 11s}}\n", "z.yaml:2:29: network.cross_zone.hop: must be in [0s, 10s], got 11s"},
	} {
		_, err := labyaml.Parse("z.yaml", []byte(c.lab))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v\nwant %s", c.lab, err, c.want)
		}
	}
}
