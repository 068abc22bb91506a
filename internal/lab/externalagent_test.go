package lab

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/testbin"
	"github.com/lblab/lblab/scenarios"
)

// haproxyWeights are the servers' weights in HAProxy's own counters at the
// end of run (its stats CSV, in the run's log).
func haproxyWeights(t *testing.T, run *report.Run) map[string]int {
	t.Helper()
	re := regexp.MustCompile(`(\w+) \d+ sent, \d+ now, [^,]+, weight (\d+)`)
	for _, l := range run.Log {
		if m := re.FindAllStringSubmatch(l.Text, -1); m != nil {
			out := map[string]int{}
			for _, x := range m {
				out[x[1]], _ = strconv.Atoi(x[2])
			}
			return out
		}
	}
	for _, l := range run.Log {
		t.Log(l.Text)
	}
	t.Fatalf("%s: no HAProxy counters with weights in the log", run.Name)
	return nil
}

// wrr-orca through HAProxy: each server answers HAProxy's agent check with
// the weight its own load report gives it (gRFC A58's capacity, rps /
// utilization, over the fleet's mean nominal capacity). In mixed-fleet
// s1-s3 run at double speed: under round robin (the initial weights, 100
// each) each gets a sixth; with the agents' answers the slow half's
// weights fall to about 2/3 of the mean (67 against 133), and HAProxy
// sends the slow half about the third of the requests its weights say,
// as lb's wrr-orca and the simulator do. Every request is accounted for.
func TestExternalAgentWeights(t *testing.T) {
	proxyTool(t, "haproxy")
	lab, err := scenarios.Lab("mixed-fleet")
	if err != nil {
		t.Fatal(err)
	}
	lab.Captions = nil
	lab.Compare = []labfile.Setting{{Name: "round-robin", Algorithm: "round-robin"}, {Name: "wrr-orca", Algorithm: "wrr-orca"}}
	// no blackout, and the agents asked every 200 ms: the weights count
	// from the first report, so a run of a few seconds is weighted nearly
	// all through
	if err := lab.ApplyAll([][2]string{{"balancers.kind", "haproxy"}, {"duration", "4s"},
		{"balancers.orca.blackout_period", "0s"}, {"balancers.orca.weight_update_period", "200ms"}}); err != nil {
		t.Fatal(err)
	}
	pressure := testbin.CPUPressure()
	rep, err := Run(ctxFor(t, 90*time.Second), lab, lab.Compare, RunOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	starved := pressure()
	var failed []string
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
	slowShare := func(run *report.Run) float64 {
		accounted(t, "haproxy", run)
		return serverShare(t, run, "s4") + serverShare(t, run, "s5") + serverShare(t, run, "s6")
	}
	rr, orca := rep.Find("round-robin"), rep.Find("wrr-orca")
	rrSlow, orcaSlow := slowShare(rr), slowShare(orca)
	w := haproxyWeights(t, orca)
	fast, slow := w["s1"]+w["s2"]+w["s3"], w["s4"]+w["s5"]+w["s6"]
	t.Logf("the slow half's share %.3f under round robin, %.3f under wrr-orca; HAProxy's weights at the end %v (the slow half's %.3f of the sum); CPU pressure over the runs %.2f",
		rrSlow, orcaSlow, w, float64(slow)/float64(fast+slow), starved)
	if math.Abs(rrSlow-0.5) > 0.02 {
		fail("round robin: the slow half's share %.3f, want 0.5", rrSlow)
	}
	// each agent's weight: its capacity over the fleet's mean (400 and
	// 200 requests/s over 300: 133 and 67), measured over the last second
	// (about 120 requests of exponential work at a slow server: a spread of
	// some 9% each; measured 61-79 and 131-144)
	for _, s := range []string{"s1", "s2", "s3"} {
		if w[s] <= 105 {
			fail("fast %s: weight %d, want over the initial 100", s, w[s])
		}
	}
	for _, s := range []string{"s4", "s5", "s6"} {
		if w[s] >= 95 {
			fail("slow %s: weight %d, want it down from the initial 100", s, w[s])
		}
	}
	if f, s := float64(fast)/3, float64(slow)/3; f < 115 || f > 150 || s < 55 || s > 80 {
		fail("the mean weights %.0f (fast) and %.0f (slow), want about 133 and 67 (400 and 200 requests/s over the mean 300)", f, s)
	}
	// the share follows the weights: a third, a little more for the
	// first agent-inter at the initial weights
	if orcaSlow < 0.25 || orcaSlow > 0.40 || math.Abs(orcaSlow-float64(slow)/float64(fast+slow)) > 0.05 {
		fail("wrr-orca: the slow half's share %.3f, want about its weights' %.3f (and 0.25-0.40)", orcaSlow, float64(slow)/float64(fast+slow))
	}
	unlessStarved(t, starved, failed)
}
