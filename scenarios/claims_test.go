package scenarios

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
)

// Every scenario declares claims, every claim quotes its narration (parts
// joined by " ... " each appear in it, in order) and says what it checks.
func TestEveryScenarioHasClaimsQuotingItsNarration(t *testing.T) {
	for name := range claims() {
		if _, err := Get(name); err != nil {
			t.Errorf("claims for %q, which is not a scenario", name)
		}
	}
	for _, name := range Names() {
		data, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		lab, err := labyaml.Parse(name+".yaml", data)
		if err != nil {
			t.Fatal(err)
		}
		cs := Claims(name)
		if len(cs) == 0 {
			t.Errorf("%s: no claims", name)
		}
		narration := strings.Join(strings.Fields(lab.Narration), " ")
		for _, c := range cs {
			rest := narration
			for _, part := range strings.Split(c.Says, " ... ") {
				i := strings.Index(rest, part)
				if i < 0 {
					t.Errorf("%s: claim %q: %q is not in the narration (after what it quoted before)", name, c.Says, part)
					break
				}
				rest = rest[i+len(part):]
			}
			if c.Checks == "" || c.check == nil || c.Phase == "" {
				t.Errorf("%s: claim %q lacks its phase, its description or its check", name, c.Says)
			}
			if len(lab.Events) == 0 && c.Phase != Throughout {
				t.Errorf("%s: claim %q is %s a trigger, but the lab has no script", name, c.Says, c.Phase)
			}
		}
	}
}

// A claim on a figure only the simulator measures is unmeasured on a
// report that lacks it (a live one), not failed: ch-bounded's keys moved.
func TestSimulatorOnlyFiguresAreUnmeasuredWhenMissing(t *testing.T) {
	lab, err := Lab("ch-bounded")
	if err != nil {
		t.Fatal(err)
	}
	rep := &report.Report{Mode: "live", Lab: lab.Name}
	for _, s := range lab.Compare {
		rep.Runs = append(rep.Runs, report.Run{Name: s.Name})
	}
	results, err := Check("ch-bounded", rep)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range results {
		if strings.Contains(r.Checks, "keys moved") {
			found = true
			if !r.Unmeasured() {
				t.Errorf("the keys-moved claim on a report without them: %v, want unmeasured", r.Err)
			}
		}
	}
	if !found {
		t.Fatal("ch-bounded has no claim on the keys moved")
	}
}
