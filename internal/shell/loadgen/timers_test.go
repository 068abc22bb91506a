package loadgen

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/pace"
)

// The timer tests run in a synctest bubble over in-memory listeners:
// fasthttp's client and server block on channels there, so the fake clock
// jumps over every wait and the latencies come out exact. Their waits are Go's
// timers (pace.Runtime): the fake clock moves only those.

// closeBubble stops the fakes and lets fasthttp's idle cleaners (sleeping
// goroutines of the bubble) run out before the bubble ends.
func closeBubble(fakes ...*fake) {
	for _, f := range fakes {
		f.close()
	}
	time.Sleep(time.Minute)
}

func TestHedgeAfterFixedDelayFirstAnswerWins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, map[string]string{"clients.rate": "50", "clients.hedge": "20ms"})
		f := newFake(t, "b1", false, func(g got, _ int) answer {
			if g.Kind == "first" {
				return answer{status: 200, delay: 100 * time.Millisecond, loadQ: -1}
			}
			return answer{status: 200, loadQ: -1}
		})
		rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("hedge", f)}, Dial: dialer(f), Waits: pace.Runtime})
		run := rep.Runs[0]
		checkAccounted(t, run)
		// hedge sent at +20 ms, reaches the fake after the 5 ms hop, answers at once;
		// the losers answer 200 later (wasted), but for the last few after the run ended
		if run.Hedges != run.Requests || run.Succeeded != run.Requests || run.Wasted+5 < run.Requests ||
			run.Latency.P50 < 24.5 || run.Latency.Max > 25.5 {
			t.Errorf("%s max %.2f", describe(run), run.Latency.Max)
		}
		first := map[uint64]time.Time{}
		for _, g := range f.got() {
			if g.Kind == "first" {
				first[g.Seq] = g.At
			}
		}
		for _, g := range f.got() {
			if g.Kind == "hedge" && (g.At.Sub(first[g.Seq]) != 20*time.Millisecond || g.Exclude != "") {
				t.Fatalf("hedge of %d came %v after its first attempt (exclude %q)", g.Seq, g.At.Sub(first[g.Seq]), g.Exclude)
			}
		}
		closeBubble(f)
	})
}

func TestAttemptTimeoutRetriesAndCarriesTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, map[string]string{"clients.rate": "50", "clients.attempt_timeout": "50ms",
			"clients.retries": "1", "clients.backoff.jitter": "none", "clients.backoff.base": "10ms"})
		f := newFake(t, "b1", false, func(g got, _ int) answer {
			if g.Kind == "first" {
				return answer{status: 200, delay: 200 * time.Millisecond, loadQ: -1}
			}
			return answer{status: 200, loadQ: -1}
		})
		rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("timeout", f)}, Dial: dialer(f), Waits: pace.Runtime})
		run := rep.Runs[0]
		checkAccounted(t, run)
		// 50 ms attempt timeout + 10 ms backoff + 5 ms hop for the retry
		if run.Timeouts != run.Requests || run.Retries != run.Requests || run.Succeeded != run.Requests ||
			run.Wasted+10 < run.Requests || run.Latency.P50 < 64.5 || run.Latency.Max > 65.5 {
			t.Errorf("%s max %.2f", describe(run), run.Latency.Max)
		}
		for _, g := range f.got() {
			// each attempt carries its own timeout, counted from its send (one hop before)
			if left := time.Unix(0, g.Deadline).Sub(g.At); left != 45*time.Millisecond {
				t.Fatalf("%s attempt of %d: deadline %v after arrival, want 45ms", g.Kind, g.Seq, left)
			}
		}
		closeBubble(f)
	})
}

// Requests still out at the drain limit end as timed out, each once.
func TestDrainLimitCutsOffTheRest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, map[string]string{"clients.rate": "50"})
		f := newFake(t, "b1", false, func(got, int) answer { return answer{status: 200, delay: time.Minute, loadQ: -1} })
		start := time.Now()
		rep, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("stuck", f)}, Dial: dialer(f), Waits: pace.Runtime,
			Drain: 200 * time.Millisecond})
		run := rep.Runs[0]
		checkAccounted(t, run)
		if took := time.Since(start); run.Outcomes.TimedOut != run.Requests || run.Timeouts != run.Requests ||
			took != 1200*time.Millisecond || len(run.Log) != 1 {
			t.Errorf("%s, took %v, log %v", describe(run), took, run.Log)
		}
		closeBubble(f)
	})
}

// Cancelling the context (SIGINT) stops the arrivals and reports what ran.
func TestInterruptReportsWhatRan(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lab := testLab(t, map[string]string{"clients.rate": "100", "duration": "1m"})
		f := newFake(t, "b1", false, okAfterWork)
		r, err := New(Config{Lab: lab, Targets: []Target{toFakes("int", f)}, Dial: dialer(f), Waits: pace.Runtime})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
		defer cancel()
		rep, err := r.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		run := rep.Runs[0]
		checkAccounted(t, run)
		if rep.DurationS != 0.3 || run.Requests < 10 || run.Requests > 60 || run.Succeeded != run.Requests {
			t.Errorf("duration %v: %s", rep.DurationS, describe(run))
		}
		closeBubble(f)
	})
}
