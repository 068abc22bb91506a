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
	data, err := scenarios.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	lab, err := labfile.Parse(name+".yaml", data)
	if err != nil {
		t.Fatalf("scenario %s: %v", name, err)
	}
	return lab
}

// compareScenario runs every compare setting of a scenario with invariant
// checks on and returns the report.
func compareScenario(t *testing.T, name string, series bool) *report.Report {
	t.Helper()
	lab := loadScenario(t, name)
	rep, err := Compare(lab, lab.Compare, Options{Check: true, Series: series})
	if err != nil {
		t.Fatalf("scenario %s: %v", name, err)
	}
	return rep
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

// meanHitRatio is the cache hit ratio over all servers, weighted by attempts.
func meanHitRatio(r *report.Run) float64 { return r.HitRatio() }
