package sim

import (
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/scenarios"
)

// loadScenario parses a built-in scenario.
func loadScenario(t *testing.T, name string) *labfile.Lab {
	t.Helper()
	lab, err := scenarios.Lab(name)
	if err != nil {
		t.Fatalf("scenario %s: %v", name, err)
	}
	return lab
}

// compareScenario runs every compare setting of a scenario (the lab as
// written when it has none) with invariant checks on and its series, checks
// every claim of its narration on the report (before, during and after its
// trigger: scenarios/stories.go) and returns the report.
func compareScenario(t *testing.T, name string) *report.Report {
	t.Helper()
	lab := loadScenario(t, name)
	rep, err := Compare(lab, allSettings(lab), Options{Check: true, Series: true})
	if err != nil {
		t.Fatalf("scenario %s: %v", name, err)
	}
	assertClaims(t, name, rep, false)
	return rep
}

// allSettings is the lab's compare settings, or the lab as written.
func allSettings(lab *labfile.Lab) []labfile.Setting {
	if len(lab.Compare) > 0 {
		return lab.Compare
	}
	return []labfile.Setting{{Name: lab.Balancers.Algorithm}}
}

// assertClaims fails the test for every claim of scenario name's narration
// that does not hold on rep; robustOnly skips the claims that hold on some
// seeds only (docs/scenarios.md says which).
func assertClaims(t *testing.T, name string, rep *report.Report, robustOnly bool) {
	t.Helper()
	results, err := scenarios.Check(name, rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Holds() || robustOnly && r.Some {
			continue
		}
		t.Errorf("%s seed %d, %s the trigger: %q does not hold (%s): %v", name, rep.Seed, r.Phase, r.Says, r.Checks, r.Err)
	}
}

// run returns the named run of rep or fails the test.
func runOf(t *testing.T, rep *report.Report, name string) *report.Run {
	t.Helper()
	r := rep.Find(name)
	if r == nil {
		t.Fatalf("no run %q in %s", name, rep.Lab)
	}
	return r
}

// share returns server name's share of run r's attempts.
func share(t *testing.T, r *report.Run, server string) float64 {
	t.Helper()
	for _, s := range r.Servers {
		if s.Name == server {
			return s.Share
		}
	}
	t.Fatalf("no server %q in run %s", server, r.Name)
	return 0
}

// goodputBetween is the share of requests offered in [from, to) seconds
// that succeeded, from the run's series.
func goodputBetween(r *report.Run, from, to float64) float64 {
	var offered, ok uint64
	for _, b := range r.Series {
		if b.T >= from && b.T < to {
			offered += b.Offered
			ok += b.Succeeded
		}
	}
	if offered == 0 {
		return 0
	}
	return float64(ok) / float64(offered)
}
