package balance

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// orcaShares picks n times at now and returns each member's share.
func orcaShares(a Algorithm, v View, now clock.Instant, n int) []float64 {
	out := make([]float64, v.Len())
	for range n {
		if j := a.Pick(now, Request{}, v); j >= 0 {
			out[j] += 1 / float64(n)
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.01 }

// gRFC A58's weights, blackout, expiration, mean for the unweighted and
// round robin below two weights, on the stride scheduler: s3 serves as
// many requests per second as s1 and s2 at half their utilization, so it
// weighs twice as much; s4 reports nothing and weighs the mean.
func TestWRROrcaFollowsA58(t *testing.T) {
	a := mustNew(t, Config{Name: "wrr-orca", Seed: 1, Salt: 2, ORCA: ORCA{Blackout: 10 * time.Second,
		Expiration: 3 * time.Minute, Update: time.Second, ErrorPenalty: 1}})
	a.Update(names(4))
	v := newView(4, load.Local)
	r := a.(Reporter)
	report := func(at clock.Instant) {
		for j, util := range []float64{0.5, 0.5, 0.25} {
			r.Reported(j, load.Report{At: at, Valid: true, RPS: 100, Utilization: util})
		}
	}
	report(ms(0))
	if got := orcaShares(a, v, ms(5000), 4000); !near(got[0], 0.25) || !near(got[2], 0.25) {
		t.Errorf("in the blackout: %v, want round robin", got)
	}
	for s := 1; s <= 12; s++ {
		report(ms(1000 * s))
	}
	// weights 200, 200, 400 and the mean 266.7 for s4: shares 0.1875, 0.1875, 0.375, 0.25
	got := orcaShares(a, v, ms(12000), 65535)
	if !near(got[0], 0.1875) || !near(got[1], 0.1875) || !near(got[2], 0.375) || !near(got[3], 0.25) {
		t.Errorf("after the blackout: %v, want 0.1875 0.1875 0.375 0.25", got)
	}
	// s3 answers errors: eps 100 of rps 100 with penalty 1 gives 100 / (0.25 + 1) = 80
	r.Reported(2, load.Report{At: ms(12500), Valid: true, RPS: 100, Utilization: 0.25, EPS: 100})
	got = orcaShares(a, v, ms(14000), 65535)
	if !(got[2] < got[0]) {
		t.Errorf("with errors s3 still gets %v", got)
	}
	// an ineligible member is never picked
	v.down[0] = true
	if got := orcaShares(a, v, ms(14500), 1000); got[0] != 0 {
		t.Errorf("an ineligible member got %v", got[0])
	}
	v.down[0] = false
	// three minutes with no report: every weight expires, round robin again
	if got := orcaShares(a, v, ms(12500+180000), 4000); !near(got[0], 0.25) || !near(got[2], 0.25) {
		t.Errorf("expired: %v, want round robin", got)
	}
	// reports without rps or utilization carry no weight
	for j := range 3 {
		r.Reported(j, load.Report{At: ms(200000), Valid: true, RPS: 0, Utilization: 0.5})
	}
	if got := orcaShares(a, v, ms(215000), 4000); !near(got[0], 0.25) {
		t.Errorf("no weight from empty reports: %v", got)
	}
}

// The scheduler follows a member list change by name: a weight survives it.
func TestWRROrcaKeepsWeightsByName(t *testing.T) {
	a := mustNew(t, Config{Name: "wrr-orca", ORCA: ORCA{Expiration: time.Minute, Update: time.Second, ErrorPenalty: 1}})
	a.Update(names(3))
	r := a.(Reporter)
	for j, util := range []float64{0.2, 0.4, 0.4} {
		r.Reported(j, load.Report{At: ms(0), Valid: true, RPS: 100, Utilization: util})
	}
	a.Update(names(3)[1:]) // s1 leaves: s2 and s3 weigh the same
	v := newView(2, load.Local)
	if got := orcaShares(a, v, ms(1), 1000); !near(got[0], 0.5) {
		t.Errorf("after s1 left: %v", got)
	}
	if _, err := New(Config{Name: "wrr-orca", ORCA: ORCA{Expiration: time.Minute, Update: time.Millisecond}}); err == nil {
		t.Error("an update period under 100 ms was taken")
	}
}
