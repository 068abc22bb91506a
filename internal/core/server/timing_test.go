package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

func TestQuarterSpeedQuadruplesService(t *testing.T) {
	r := newRig(t, Config{Workers: 1, Speed: 0.25})
	r.arrive(ms(0), 1, dms(10))
	r.until(ms(100))
	r.expect("1:ok@40 q=0 s=40")
}

func TestSpeedChangeMidService(t *testing.T) {
	r := newRig(t, Config{Workers: 2})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(0), 2, dms(5))
	r.until(ms(4))
	// 0-4 ms at speed 1: 4 ms of work done. 4-8 ms at 0.5: 2 more; job 2
	// finishes at 6 (1 ms of work left at 4 ms takes 2 ms). From 8 ms at
	// speed 2, job 1's last 4 ms of work take 2 ms.
	if err := r.s.SetSpeed(ms(4), 0.5); err != nil {
		t.Fatal(err)
	}
	r.until(ms(8))
	if err := r.s.SetSpeed(ms(8), 2); err != nil {
		t.Fatal(err)
	}
	r.until(ms(100))
	r.expect("2:ok@6 q=0 s=6 1:ok@10 q=0 s=10")
	if snap := r.s.Snapshot(ms(100)); snap.Speed != 2 {
		t.Fatalf("speed %g", snap.Speed)
	}
}

func TestSetSpeedWithoutAdvanceKeepsDueReplies(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(0), 2, dms(10))
	// The driver did not wake at 10: the completion is kept, not re-timed.
	if err := r.s.SetSpeed(ms(15), 0.5); err != nil {
		t.Fatal(err)
	}
	r.until(ms(100))
	// Job 2 started at 10 and ran 5 ms at speed 1, then 5 ms of work at 0.5.
	r.expect("1:ok@10 q=0 s=10 2:ok@25 q=10 s=15")
}

func TestPauseFreezesService(t *testing.T) {
	r := newRig(t, Config{Workers: 2})
	r.arrive(ms(0), 1, dms(10))
	r.s.Pause(ms(2), dms(5))
	if snap := r.s.Snapshot(ms(3)); !snap.Paused {
		t.Fatal("not paused at 3 ms")
	}
	r.arrive(ms(4), 2, dms(1)) // starts in the pause, runs from 7 ms
	r.until(ms(100))
	r.expect("2:ok@8 q=0 s=4 1:ok@15 q=0 s=15")
	if snap := r.s.Snapshot(ms(100)); snap.Paused {
		t.Fatal("still paused")
	}
}

func TestPauseExtends(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.s.Pause(ms(2), dms(5)) // to 7
	r.s.Pause(ms(3), dms(2)) // to 5: inside, no change
	r.s.Pause(ms(6), dms(4)) // to 10
	r.until(ms(100))
	r.expect("1:ok@18 q=0 s=18")
}

func TestPeriodicGC(t *testing.T) {
	r := newRig(t, Config{Workers: 2, GCEvery: dms(100), GCPause: dms(20)})
	r.arrive(ms(80), 1, dms(50))  // 20 ms of work, pause 100-120, 30 ms more
	r.arrive(ms(105), 2, dms(10)) // starts in the pause
	r.until(ms(200))
	r.arrive(ms(300), 3, dms(10)) // arrives as the third pause starts: the idle server caught up
	r.until(ms(1000))
	r.expect("2:ok@130 q=0 s=25 1:ok@150 q=0 s=70 3:ok@330 q=0 s=30")
	if snap := r.s.Snapshot(ms(1010)); !snap.Paused {
		t.Fatal("not paused at 1010 ms")
	}
}

func TestNextDeadlineDuringPause(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.s.Pause(ms(5), dms(20))
	if d, ok := r.s.NextDeadline(); !ok || d != ms(25) {
		t.Fatalf("deadline %v %v, want the pause end at 25ms", d, ok)
	}
}

func TestErrorShare(t *testing.T) {
	r := newRig(t, Config{Workers: 1, Errors: 0.1, ErrorTime: dms(2), Seed: 42})
	const n = 100_000
	errs := 0
	for i := 0; i < n; i++ {
		now := ms(float64(i))
		r.log = r.s.Advance(now, r.log[:0])
		for _, rep := range r.s.Arrive(now, Job{ID: uint64(i), Work: 0}, nil) {
			if rep.Status != Error || rep.Reason != "error" || rep.At != now.Add(dms(2)) || rep.Status.HTTPCode() != 500 {
				t.Fatalf("unexpected immediate reply %+v", rep)
			}
			errs++
		}
	}
	if share := float64(errs) / n; share < 0.09 || share > 0.11 {
		t.Fatalf("error share %.4f, want 0.1 ± 0.01", share)
	}
	if snap := r.s.Snapshot(ms(n)); snap.Errors != uint64(errs) || snap.ErrorShare != 0.1 {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestFailMode(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.s.SetFail(0, true)
	if got := show(r.arrive(ms(0), 1, dms(10))); got != "1:error/fail@1 q=0 s=1" {
		t.Fatalf("in fail mode: %s", got)
	}
	if !r.s.Snapshot(ms(0)).Failing {
		t.Fatal("snapshot not failing")
	}
	r.s.SetFail(ms(2), false)
	r.arrive(ms(2), 2, dms(10))
	r.until(ms(100))
	r.expect("1:error/fail@1 q=0 s=1 2:ok@12 q=0 s=10")
}

func TestWorkDrawnWhenMissing(t *testing.T) {
	r := newRig(t, Config{Workers: 1, Work: rng.Constant{Value: dms(7)}})
	r.arrive(ms(0), 1, -1)
	r.until(ms(100))
	r.expect("1:ok@7 q=0 s=7")
}

func TestEndlessWorkHasNoDeadline(t *testing.T) {
	r := newRig(t, Config{Workers: 1, Speed: 1e-12})
	r.arrive(ms(0), 1, time.Hour)
	if d, ok := r.s.NextDeadline(); ok {
		t.Fatalf("deadline %v for work that cannot finish within an Instant", d)
	}
	if _, busy := r.s.Load(); busy != 1 {
		t.Fatal("not in service")
	}
}
