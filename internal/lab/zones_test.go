package lab

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// A zone-down takes down every backend of its zone, and only those: with
// s1 in a and s2, s3 in b under round robin, after zone-down b at 1 s two
// attempts in three fail, and the zone's own hops carry on.
func TestZoneDownMidRun(t *testing.T) {
	ctx := ctxFor(t, 60*time.Second)
	lab, err := labyaml.Parse("zones.yaml", []byte(`
name: zones
duration: 4s
zones: [{name: a}, {name: b}]
network: {hop: 2ms, cross_zone: {hop: 4ms}}
clients: {rate: 150, work: {mean: 8ms}}
balancers: {algorithm: round-robin}
servers: [{count: 1, workers: 2, zone: a}, {count: 2, workers: 2, zone: b}]
events: [{at: 1s, action: zone-down, target: b}]
`))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, lab, []labfile.Setting{{Name: "rr"}}, RunOptions{Options: testOptions(t), Series: true})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	var late, lateOK uint64
	for _, b := range run.Series {
		if b.T >= 1.5 {
			late += b.Offered
			lateOK += b.Succeeded
		}
	}
	if ok := float64(lateOK) / float64(max(late, 1)); late == 0 || ok < 0.2 || ok > 0.5 {
		t.Errorf("after zone-down b, %d of %d requests succeeded: want about a third (s1 alone, in a)", lateOK, late)
	}
	if len(run.Log) == 0 || run.Log[0].Text != "zone-down b" {
		t.Errorf("log %+v, want zone-down b first", run.Log)
	}
	if c := run.CrossZone; c == nil || c.AttemptShare < 0.5 {
		t.Errorf("crossed %+v: the balancer, in a, sends two in three attempts to b", c)
	}
}
