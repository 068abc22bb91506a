package balance

import (
	"math"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

// With two members, distinct choices always compare both and never pick the
// busier one; choices drawn with replacement are the same member half of the
// time, so the busier one is picked a quarter of the time (Envoy issue
// 11004). Both hold for every algorithm of the p2c family.
func TestReplacementPicksTheBusierOfTwoAQuarterOfTheTime(t *testing.T) {
	for _, name := range ApertureAlgorithms {
		for _, replace := range []bool{false, true} {
			a := mustNew(t, Config{Name: name, Seed: 3, Replacement: replace})
			a.Update([]Server{{Name: "idle"}, {Name: "busy"}})
			v := newView(2, load.Local)
			for range 5 {
				v.tb.Sent(0, 1)
				v.tb.Report(1, load.Report{At: 0, Valid: true, Queued: 5, InService: 0}) // p2c-stale reads the reported queue
			}
			v.tb.Report(0, load.Report{At: 0, Valid: true, Queued: 0, InService: 0})
			busy := 0.0
			for seq := uint64(0); seq < distPicks; seq++ {
				if a.Pick(0, Request{Seq: seq}, v) == 1 {
					busy++
				}
			}
			want := 0.0
			if replace {
				want = 0.25
			}
			if share := busy / distPicks; math.Abs(share-want) > 0.01 {
				t.Errorf("%s replacement=%v: the busier member got %.4f, want %.2f", name, replace, share, want)
			}
		}
	}
}

// An aperture draws distinct choices from its window whatever Replacement
// says (a client-side aperture with the tier's replacement): with a window
// of both members the busier is never picked.
func TestReplacementGivesWayToAnAperture(t *testing.T) {
	a := mustNew(t, Config{Name: "p2c", Seed: 3, Replacement: true, Aperture: 2, Peers: 1})
	a.Update([]Server{{Name: "idle"}, {Name: "busy"}})
	v := newView(2, load.Local)
	v.tb.Sent(0, 1)
	for seq := uint64(0); seq < 1000; seq++ {
		if a.Pick(0, Request{Seq: seq}, v) == 1 {
			t.Fatalf("seq %d: picked the busier member through an aperture", seq)
		}
	}
}
