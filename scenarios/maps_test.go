package scenarios

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/report"
)

// metastable-map's monotone claim reads each setting's verdict on its own
// slowdown: it holds when only the deep, long cells stay down, and fails,
// naming the pair, when a milder cell stays down beside a harsher one that
// recovered.
func TestMetastableMapMonotoneClaim(t *testing.T) {
	lab, err := Lab("metastable-map")
	if err != nil {
		t.Fatal(err)
	}
	bins := func(back bool) []report.Bin {
		var out []report.Bin
		for i := range 120 {
			b := report.Bin{T: float64(i) * 0.25, Offered: 100, Succeeded: 100, P99: 100}
			if b.T >= 5 && (!back || b.T < 9.5) {
				b.Succeeded, b.Failed = 5, 95
			}
			out = append(out, b)
		}
		return out
	}
	monotone := func(down ...string) error {
		rep := &report.Report{Mode: "sim", Lab: lab.Name, DurationS: 30}
		for _, s := range lab.Compare {
			stuck := false
			for _, d := range down {
				stuck = stuck || d == s.Name
			}
			rep.Runs = append(rep.Runs, report.Run{Name: s.Name, Series: bins(!stuck)})
		}
		results, err := Check("metastable-map", rep)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if strings.HasPrefix(r.Says, "Recovery is monotone") {
				return r.Err
			}
		}
		t.Fatal("no monotone claim")
		return nil
	}
	if err := monotone("0.6x-1.5s", "0.5x-1.5s", "0.5x-4s"); err != nil {
		t.Errorf("the map's own shape: %v", err)
	}
	if err := monotone("0.6x-0.5s", "0.5x-4s"); err == nil || !strings.Contains(err.Error(), "0.6x-1.5s was survived but the milder 0.6x-0.5s was not") {
		t.Errorf("a milder cell down beside a harsher one back: %v", err)
	}
}
