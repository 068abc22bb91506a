package loadgen

import (
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/report"
)

// Config.Count ends the arrivals once every target has begun that many
// requests, in the open loop (one arrival goes to every target) as in the
// closed loop (each target's own users): the run ends with their answers,
// long before the lab's duration.
func TestCountEndsTheRun(t *testing.T) {
	var got atomic.Int64
	addr, _ := foreignServer(t, func(*fasthttp.RequestCtx, int) { got.Add(1) })
	two := []Target{{Name: "a", URLs: []string{"http://" + addr + "/a"}}, {Name: "b", URLs: []string{"http://" + addr + "/b"}}}
	for _, mode := range []map[string]string{
		{"clients.rate": "500", "duration": "1h"},
		{"clients.mode": "closed", "clients.users": "7", "clients.think": "0s", "duration": "1h"},
	} {
		got.Store(0)
		start := time.Now()
		rep, _ := runLive(t, Config{Lab: testLab(t, mode), Targets: two, HTTP: HTTP{Plain: true}, Count: 60})
		for _, run := range rep.Runs {
			checkAccounted(t, run)
			if run.Requests != 60 || run.Succeeded != 60 {
				t.Errorf("%v: %s began %d requests (%d succeeded), want 60", mode, run.Name, run.Requests, run.Succeeded)
			}
			if !slices.ContainsFunc(run.Log, func(l report.LogLine) bool { return strings.Contains(l.Text, "60 requests begun") }) {
				t.Errorf("%v: %s's log does not say why the arrivals stopped: %v", mode, run.Name, run.Log)
			}
		}
		if got.Load() != 120 || time.Since(start) > 20*time.Second || rep.DurationS > 20 {
			t.Errorf("%v: the server saw %d requests (want 2 x 60); the run took %v, reports %gs", mode, got.Load(), time.Since(start), rep.DurationS)
		}
	}
}
