// Package reporttest holds what the tests of internal/report and its
// render packages build their reports from, written once: a recorder
// filled with a known stream of requests and a report of two settings.
// Only tests import it.
package reporttest

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// Record fills a recorder with n requests 10 ms apart: every third shed
// after a retry (an error, then a 503), the rest served in 1-50 ms, a bin
// closed every 25.
func Record(n int) *report.Recorder {
	r := report.NewRecorder(true)
	for i := 0; i < n; i++ {
		start := clock.Instant(i) * clock.Instant(10*time.Millisecond)
		r.Offered(start)
		r.Attempt(server.First)
		c := policy.Call{Start: start, Outcome: policy.Succeeded}
		if i%3 == 0 {
			r.Result(policy.Error)
			r.Attempt(server.Retry)
			r.Result(policy.Rejected)
			c.Outcome = policy.Shed
		}
		r.Finish(start.Add(time.Duration(i%50+1)*time.Millisecond), &c)
		if i%25 == 24 {
			r.CloseBin(start, nil)
		}
	}
	return r
}

// TwoSettings is a simulated report of two settings of 300 requests each
// (Record), "slow" with ten times the p99 of "fast", over 3 s on one server.
func TwoSettings() *report.Report {
	rep := &report.Report{Mode: "sim", Lab: "t", Seed: 1, DurationS: 3}
	for _, name := range []string{"slow", "fast"} {
		run := report.Run{Name: name, Algorithm: name, Servers: []report.Server{{Name: "s1", Sent: 10, Share: 1}}}
		Record(300).Fill(&run, clock.Instant(3*time.Second))
		if name == "slow" {
			run.Latency.P99 *= 10
		}
		rep.Runs = append(rep.Runs, run)
	}
	return rep
}
