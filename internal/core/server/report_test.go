package server

import (
	"math"
	"strings"
	"testing"
)

// The load report's figures over the sliding window (report.go), on a
// server of 2 workers whose jobs take 500 ms, checked against what they
// must be by hand: one job at 0 keeps one worker of two busy for [0, 0.5 s);
// a second job at 1.2 s for [1.2 s, 1.7 s); a fast error at 1.3 s. The
// sliding window at t covers [t - 1 s, t), the window before the current
// one counted as spread evenly.
func TestReportOverTheWindow(t *testing.T) {
	r := newRig(t, Config{Name: "s1", Workers: 2, Meter: true})
	r.arrive(ms(0), 1, dms(500))
	at := func(x float64, queued, busy int, util, rps, eps float64) {
		t.Helper()
		r.until(ms(x))
		rep := r.s.Report(ms(x))
		if !rep.Valid || rep.At != ms(x) || rep.Queued != queued || rep.InService != busy ||
			math.Abs(rep.Utilization-util) > 1e-9 || math.Abs(rep.RPS-rps) > 1e-9 || math.Abs(rep.EPS-eps) > 1e-9 {
			t.Errorf("at %gms: %+v, want queued %d, in service %d, utilization %g, rps %g, eps %g", x, rep, queued, busy, util, rps, eps)
		}
		if !rep.Sane() {
			t.Errorf("at %gms: %+v not sane", x, rep)
		}
	}
	at(250, 0, 1, 0.125, 1, 0)    // 250 ms of one worker of two over 1 s
	at(500, 0, 0, 0.25, 1, 0)     // the job is done: 500 ms of one of two
	at(999, 0, 0, 0.25, 1, 0)     // still in the first window
	at(1000, 0, 0, 0.25, 1, 0)    // the first window is whole: all of it is still covered at 1 s
	at(1100, 0, 0, 0.225, 0.9, 0) // 90% of the first window is still covered
	r.arrive(ms(1200), 2, dms(500))
	at(1200, 0, 1, 0.2, 1.8, 0)
	r.s.SetErrors(ms(1300), 1) // every arrival from now a fast error
	r.arrive(ms(1300), 3, dms(500))
	if rep := r.s.Report(ms(100)); rep.At != ms(1300) {
		t.Errorf("a report asked for an instant before the server's last is as of the last: %+v", rep)
	}
	// busy [1.2, 1.3) = 100 ms + 70% of the first window's 500 ms, over 2 s of worker time
	at(1300, 0, 1, (0.1+0.7*0.5)/2, 2+0.7, 1)
	at(2500, 0, 0, 0.5*0.5/2, 0.5*2, 0.5*1) // the window [1 s, 2 s) had 2 arrivals, 1 error and 500 ms busy: half of it covered
	at(5000, 0, 0, 0, 0, 0)                 // windows with nothing in them
}

// Without the meter a report gives the queue and the workers in service,
// and no figure of the window.
func TestReportWithoutTheMeter(t *testing.T) {
	r := newRig(t, Config{Name: "s1", Workers: 1})
	r.arrive(ms(0), 1, dms(500))
	r.arrive(ms(10), 2, dms(500))
	if rep := r.s.Report(ms(100)); !rep.Valid || rep.Queued != 1 || rep.InService != 1 || rep.Utilization != 0 || rep.RPS != 0 {
		t.Errorf("%+v, want 1 queued, 1 in service, no window figures", rep)
	}
}

// A planted broken invariant is caught where it must hold: a bounded queue
// found holding more than its capacity (here: the capacity cut under the
// queue behind the setters' back) panics at the next enqueue, under test
// and torture, rather than serving on.
func TestBrokenQueueBoundIsCaught(t *testing.T) {
	r := newRig(t, Config{Name: "s1", Workers: 1, QueueCap: 3})
	for i := range uint64(3) {
		r.arrive(ms(0), i+1, dms(100))
	}
	r.s.cfg.QueueCap = 1 // planted: no setter cuts a queue this way
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "bounded queue holds more than its capacity") {
			t.Errorf("recovered %v, want the queue bound's invariant", p)
		}
	}()
	r.s.cfg.LIFO = true // LIFO evicts one and enqueues: still over the planted bound
	r.arrive(ms(1), 9, dms(100))
}
