package loadgen

import (
	"context"
	"testing"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// With zones, each client sends to its zone's balancer (client ids in
// a, a, b in turn; lb1 is in a, lb2 in b), and the runtime counts what crossed: lb1's
// answers name server y, of zone b, so every request of a zone-a client
// crossed; lb2's name z, a server the lab does not have (so in the last
// server's zone, b), so none of zone b's did. The report's cross_zone and
// the metrics agree.
func TestZonesRouteAndCount(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
duration: 1s
zones: [{name: a}, {name: b}]
network: {hop: 1ms, cross_zone: {hop: 2ms}}
clients: {rate: 200, zones: [a, a, b]}
balancers: {count: 2, zones: [a, b]}
servers: [{name: x, zone: a}, {name: y, zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	lb1, lb2 := newFake(t, "y", false, okAfterWork), newFake(t, "z", false, okAfterWork)
	rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("mx", lb1, lb2)}, Dial: dialer(lb1, lb2)})
	for i, f := range []*fake{lb1, lb2} {
		for _, g := range f.got() {
			if zone := g.Client % 3 / 2; zone != i { // ids 0, 1 mod 3 in a, 2 in b
				t.Fatalf("client %d (zone %c) sent to lb%d", g.Client, 'a'+zone, i+1)
			}
		}
	}
	run := rep.Runs[0]
	c := run.CrossZone
	if c == nil || c.Requests != uint64(len(lb1.got())) || c.Attempts != c.Requests || len(lb1.got()) == 0 || len(lb2.got()) == 0 {
		t.Fatalf("crossed %+v; lb1 had %d requests, lb2 %d", c, len(lb1.got()), len(lb2.got()))
	}
	text := scrape(t, r.Admin())
	for series, want := range map[string]uint64{
		`lblab_client_cross_zone_requests_total{target="mx"}`: c.Requests,
		`lblab_client_cross_zone_attempts_total{target="mx"}`: c.Attempts,
	} {
		if got := value(text, series); got != float64(want) {
			t.Errorf("%s = %v, the report says %d", series, got, want)
		}
	}
}

// A set of a link between zones mid-run is the loadgen's (the hop from a
// client to a balancer of another zone): applied, as network.hop is.
func TestZoneLinkSetApplies(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
duration: 1s
zones: [{name: a}, {name: b}]
clients: {rate: 100}
servers: [{zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	f := newFake(t, "s1", false, okAfterWork)
	r, err := New(Config{Lab: lab, Targets: []Target{toFakes("mx", f)}, Dial: dialer(f)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { r.Run(context.Background()); close(done) }()
	code, out := call(t, r.Admin(), "POST", "/admin/set", `{"path":"network.cross_zone.hop","value":"50ms"}`)
	if code != 200 || out["applied"] != true {
		t.Errorf("POST /admin/set network.cross_zone.hop: %d %v, want it applied", code, out)
	}
	<-done
}

// Partitioned, a client whose balancer is in another zone (zone a has
// none) has every attempt refused at once: nothing reaches the balancer,
// every attempt is an error, and every one crossed.
func TestPartitionCutsTheClientsHop(t *testing.T) {
	lab, err := labyaml.Parse("z.yaml", []byte(`
duration: 1s
zones: [{name: a}, {name: b}]
network: {partition: true}
clients: {rate: 100, zones: [a]}
balancers: {zones: [b]}
servers: [{zone: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	lb1 := newFake(t, "s1", false, okAfterWork)
	rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("mx", lb1)}, Dial: dialer(lb1)})
	run := rep.Runs[0]
	if n := len(lb1.got()); n != 0 || run.Requests == 0 || run.Errors != run.Attempts || run.CrossZone == nil || run.CrossZone.Attempts != run.Attempts {
		t.Errorf("the balancer got %d requests; %d requests, %d attempts, %d errors, crossed %+v: want every attempt an error, none sent",
			n, run.Requests, run.Attempts, run.Errors, run.CrossZone)
	}
}
