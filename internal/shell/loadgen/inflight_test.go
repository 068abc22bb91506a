package loadgen

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// A slow target at a rate that needs about 20 attempts out at once, with a
// cap of 5: never more than 5 are out, the rest wait (late, counted), and
// every request of the stream still starts and ends exactly once.
func TestInflightCapHoldsRequests(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.rate": "1000", "network.hop": "0s", "duration": "300ms"})
	f := newFake(t, "b1", false, func(got, int) answer {
		time.Sleep(20 * time.Millisecond)
		return answer{status: 200, loadQ: -1}
	})
	rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("cap", f)}, Dial: dialer(f), MaxInflight: 5})
	run := rep.Runs[0]
	checkAccounted(t, run)
	l := r.l
	t.Logf("%d requests, peak %d out, %d held, %d late, %d unsent", run.Requests, l.peak, l.capHits, l.late, l.unsent)
	if l.peak > 5 {
		t.Errorf("%d attempts out at once; the cap is 5", l.peak)
	}
	if l.capHits == 0 || l.late == 0 {
		t.Errorf("the cap never held a request (%d held, %d late)", l.capHits, l.late)
	}
	if !logSays(run, "in-flight cap") {
		t.Errorf("the run's log does not mention the cap: %+v", run.Log)
	}
	if want := uint64(arrivals(t, lab)); run.Requests != want || l.unsent != 0 {
		t.Errorf("%d requests started and %d never did; the stream has %d", run.Requests, l.unsent, want)
	}
}

// When the drain limit comes while the cap still holds requests, those never
// start: they are left out of the report's requests and counted as never
// started, so the two add up to the stream.
func TestInflightCapAtTheDrainLimit(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.rate": "1000", "network.hop": "0s", "duration": "200ms"})
	f := newFake(t, "b1", false, func(got, int) answer {
		time.Sleep(100 * time.Millisecond)
		return answer{status: 200, loadQ: -1}
	})
	rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("cut", f)}, Dial: dialer(f),
		MaxInflight: 2, Drain: 50 * time.Millisecond})
	run := rep.Runs[0]
	checkAccounted(t, run)
	l := r.l
	want := uint64(arrivals(t, lab))
	t.Logf("%d requests, %d never started, stream %d", run.Requests, l.unsent, want)
	if l.unsent == 0 || run.Requests+l.unsent != want {
		t.Errorf("%d requests started + %d never started != %d in the stream", run.Requests, l.unsent, want)
	}
	if !logSays(run, "never started") {
		t.Errorf("the run's log does not count the requests never started: %+v", run.Log)
	}
}

func logSays(run report.Run, text string) bool {
	for _, line := range run.Log {
		if strings.Contains(line.Text, text) {
			return true
		}
	}
	return false
}
