package loadgen

import (
	"testing"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
)

// Live, a rate profile and fault shares replay the simulator's stream: the
// same requests (those the profile's arrivals put before the end), each
// carrying its fault as X-Lab-Fault.
func TestProfileAndFaultsReplayTheStream(t *testing.T) {
	lab := testLab(t, map[string]string{"seed": "11"})
	lab.Clients.Profile = &labfile.Profile{Shape: labfile.ShapeSteps, Levels: []float64{300, 0}, Every: lab.Duration / 2}
	lab.Clients.Faults = []labfile.FaultShare{{Share: 0.25, Delay: 2e6}, {Share: 0.25, Status: 404}}
	if err := lab.Validate(); err != nil {
		t.Fatal(err)
	}
	f := newFake(t, "b1", false, okAfterWork)
	rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("", f)}, Dial: dialer(f)})
	run := rep.Runs[0]
	checkAccounted(t, run)
	s, _, err := assemble.Stream(lab)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]string{}
	for r := s.Next(); r.At < clock.Instant(lab.Duration); r = s.Next() {
		if r.At >= clock.Instant(lab.Duration/2) {
			t.Fatalf("request %d arrives at %v, when the profile is at 0", r.Seq, r.At)
		}
		want[r.Seq] = map[bool]string{true: "delay=2ms", false: ""}[r.Fault.Delay > 0]
		if r.Fault.Status != 0 {
			want[r.Seq] = "status=404"
		}
	}
	gots := f.got()
	if len(gots) != len(want) || int(run.Requests) != len(want) || len(want) < 100 {
		t.Fatalf("%d received, %d reported, the stream has %d", len(gots), run.Requests, len(want))
	}
	faults := 0
	for _, g := range gots {
		w, ok := want[g.Seq]
		if !ok || g.Fault != w {
			t.Fatalf("request %d carried fault %q, the stream says %q (present %v)", g.Seq, g.Fault, w, ok)
		}
		if w != "" {
			faults++
		}
	}
	if faults < len(want)/3 || faults > 2*len(want)/3 {
		t.Errorf("%d of %d requests carried a fault, want about half", faults, len(want))
	}
}
