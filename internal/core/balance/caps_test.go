package balance

import "testing"

// An algorithm whose pick looks at every member declares it (Caps.Scans):
// the cost estimate charges each pick of such an algorithm a visit per
// member, and the simulator's guard counts them, so an algorithm that
// scans without saying so runs past its budget unseen (ring-hash-bounded
// did: its capacity adds up every member's load, 10 times its estimated
// CPU on 2,000 servers). Over 1,000 members, a pick of a scanning
// algorithm asks at least half of them whether they are eligible, and a
// pick of any other at most a tenth.
func TestScansAsDeclared(t *testing.T) {
	const n, picks = 1000, 200
	for _, name := range Names {
		a := build(t, name, n)
		v := newView(n, 0)
		for i := 0; i < picks; i++ {
			if j := a.Pick(ms(i), Request{Seq: uint64(i), Key: uint64(i) * 0x9e3779b97f4a7c15}, v); j >= 0 {
				v.tb.Stats[j].Outstanding++ // some load, so that load-aware picks differ
			}
		}
		per := float64(v.oks) / picks
		scans := CapsOf(name).Scans
		t.Logf("%-22s %6.1f members asked a pick (Scans %v)", name, per, scans)
		if scans && per < n/2 {
			t.Errorf("%s declares Scans but a pick asked %.1f of %d members", name, per, n)
		}
		if !scans && per > n/10 {
			t.Errorf("%s does not declare Scans but a pick asked %.1f of %d members: declare it (Caps.Scans), so the estimate and the guard count its visits", name, per, n)
		}
	}
}
