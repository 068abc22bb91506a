package sim

import (
	"math"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// zoneLab is a balancer in zone a in front of a server in a and one in b,
// round robin, work a constant 1 ms: every other attempt crosses to b.
const zoneLab = `
name: zones
duration: 10s
zones: [{name: a}, {name: b}]
network: {hop: 1ms, cross_zone: {hop: 20ms}}
clients: {rate: 50, zones: [a], work: {dist: constant, mean: 1ms}}
balancers: {algorithm: round-robin, zones: [a]}
servers:
  - {name: near, zone: a}
  - {name: far, zone: b}
`

// The hop between a balancer and a server of another zone is the
// cross-zone link's, both ways: an attempt to the near server takes 4 hops
// of 1 ms and its 1 ms of work, one to the far server 2 hops of 1 ms, 2 of
// 20 ms and its work; half the attempts and requests crossed, and the
// report says so. The same lab without zones crosses nothing and reports
// no cross-zone figures.
func TestZonesDelayAndCrossing(t *testing.T) {
	res, err := Run(parseLab(t, zoneLab), Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	if r.Latency.P50 < 4.9 || r.Latency.Max > 43.1 || r.Latency.Max < 42.9 {
		t.Errorf("latency p50 %.2f ms, max %.2f ms: want 5 ms near and 43 ms far", r.Latency.P50, r.Latency.Max)
	}
	if want := (5.0 + 43.0) / 2; math.Abs(r.Latency.Mean-want) > 0.1 {
		t.Errorf("mean latency %.2f ms, want %.1f (half near, half far)", r.Latency.Mean, want)
	}
	c := r.CrossZone
	if c == nil {
		t.Fatal("a lab with zones reports no cross-zone figures")
	}
	if c.AttemptShare < 0.499 || c.AttemptShare > 0.501 || c.RequestShare != c.AttemptShare || c.Attempts != r.Attempts/2 {
		t.Errorf("crossed %+v of %d attempts, want half of them", *c, r.Attempts)
	}

	flat := parseLab(t, zoneLab)
	flat.Zones, flat.Clients.Zones, flat.Balancers.Zones = nil, nil, nil
	for i := range flat.Servers {
		flat.Servers[i].Zone = ""
	}
	res, err = Run(flat, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Run; r.CrossZone != nil || math.Abs(r.Latency.Mean-5) > 0.01 {
		t.Errorf("without zones: mean %.2f ms (want 5), cross-zone %+v (want none)", r.Latency.Mean, r.CrossZone)
	}
}

// Clients balancing themselves cross on their one hop to the server: a
// client in zone b picking round robin over a server in a and one in b
// crosses on half of its attempts, and a client's balancer hop does not
// exist. Two tiers' balancers: each client goes to its zone's balancer, so
// a lab whose servers are all in the clients' zone crosses nothing.
func TestZonesClientSideAndRouting(t *testing.T) {
	lab := parseLab(t, zoneLab)
	lab.Clients.Algorithm, lab.Clients.Zones = "round-robin", []string{"b"}
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Run.CrossZone; c == nil || c.AttemptShare < 0.45 || c.AttemptShare > 0.55 {
		t.Errorf("client-side from zone b: crossed %+v, want about half", c)
	}
	if r := res.Run; math.Abs(r.Latency.Mean-(3+41)/2.0) > 1 {
		t.Errorf("client-side from zone b: mean %.2f ms, want about 22 (3 ms to far, 41 ms to near)", r.Latency.Mean)
	}

	lab = parseLab(t, zoneLab)
	lab.Clients.Zones, lab.Balancers.Count, lab.Balancers.Zones = []string{"a", "b"}, 2, []string{"b", "a"}
	lab.Servers[1].Zone = "a"
	res, err = Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	// clients of zone b reach their balancer (zone b, the only one there)
	// across; those of a stay: half the requests, each one crossing once
	if c := res.Run.CrossZone; c == nil || c.RequestShare < 0.45 || c.RequestShare > 0.55 {
		t.Errorf("two zones of clients, servers in a: crossed %+v, want the half from b", c)
	}
}

// A zone drill is its server drill on every server of the zone: zone-down
// a (s1, s2) for 2 s, then zone-slow b (s3 and s4) to a quarter for 2 s,
// give the run that the four kills, restarts, slows and restores give, to
// the request.
func TestZoneDrillsActOnTheirZone(t *testing.T) {
	const base = `
duration: 8s
zones: [{name: a}, {name: b}]
clients: {rate: 200}
balancers: {algorithm: round-robin}
servers: [{count: 2, zone: a}, {count: 2, zone: b}]
`
	zoned := parseLab(t, base+`events:
  - {at: 1s, action: zone-down, target: a, for: 2s}
  - {at: 4s, action: zone-slow, target: b, speed: 0.25, for: 2s}
`)
	each := parseLab(t, base+`events:
  - {at: 1s, action: kill, target: s1, for: 2s}
  - {at: 1s, action: kill, target: s2, for: 2s}
  - {at: 4s, action: slow, target: s3, speed: 0.25, for: 2s}
  - {at: 4s, action: slow, target: s4, speed: 0.25, for: 2s}
`)
	var runs [2]*report.Run
	for i, lab := range []*labfile.Lab{zoned, each} {
		res, err := Run(lab, Options{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		runs[i] = &res.Run
	}
	z, e := runs[0], runs[1]
	if z.Errors == 0 || z.Latency.P99 <= 20 {
		t.Errorf("the zone drills did nothing: %d errors, p99 %.1f ms", z.Errors, z.Latency.P99)
	}
	if z.Requests != e.Requests || z.Errors != e.Errors || z.Latency != e.Latency || z.Servers[0].Sent != e.Servers[0].Sent || z.Servers[2].Sent != e.Servers[2].Sent {
		t.Errorf("zone drills: %d requests, %d errors, %+v; the same drills per server: %d, %d, %+v",
			z.Requests, z.Errors, z.Latency, e.Requests, e.Errors, e.Latency)
	}
}

// link-delay degrades the link between the zones from its instant: the far
// server's attempts take 2 x 50 ms on it instead of 2 x 20 ms, and,
// time-boxed, the link heals after.
func TestLinkDelay(t *testing.T) {
	lab := parseLab(t, zoneLab+"events: [{at: 0s, action: link-delay, hop: 50ms, for: 5s}]\n")
	res, err := Run(lab, Options{Check: true, Series: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	if r.Latency.Max < 102.9 || r.Latency.Max > 103.1 {
		t.Errorf("max latency %.2f ms, want 103 (the far server over the degraded link)", r.Latency.Max)
	}
	var late float64 // the longest latency of the last 4 s: after the link healed
	for _, b := range r.Series {
		if b.T >= 6 {
			late = max(late, b.P99)
		}
	}
	if late < 42.9 || late > 43.1 {
		t.Errorf("p99 after the time box %.2f ms, want 43 (the link back at 20 ms)", late)
	}
}

// partition cuts the link between the zones for its time box: the balancer,
// in a, has every attempt to the far server (in b) refused at once, half of
// them under round robin, and none after heal.
func TestPartition(t *testing.T) {
	lab := parseLab(t, zoneLab+"events: [{at: 2s, action: partition, for: 3s}]\n")
	res, err := Run(lab, Options{Check: true, Series: true})
	if err != nil {
		t.Fatal(err)
	}
	var in, inOK, out, outOK uint64
	for _, b := range res.Run.Series {
		switch {
		case b.T >= 2 && b.T < 5:
			in, inOK = in+b.Offered, inOK+b.Succeeded
		default:
			out, outOK = out+b.Offered, outOK+b.Succeeded
		}
	}
	// (a bin counts the requests started in it and those that succeeded in
	// it: a few at the window's edges count on either side)
	if in == 0 || math.Abs(float64(inOK)/float64(in)-0.5) > 0.03 || outOK+4 < out {
		t.Errorf("partitioned: %d of %d succeeded (want half); else %d of %d (want all)", inOK, in, outOK, out)
	}
	if e := res.Run.Errors; e < in/2-2 || e > in/2+2 {
		t.Errorf("%d errors, want the %d or so attempts to the far server while partitioned", e, in/2)
	}
}
