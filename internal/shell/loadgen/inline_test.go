package loadgen

import (
	"testing"
	"time"
)

// A closed-loop user with no think time: the worker that gets an answer
// takes it in itself (under the loop's lock, through the same client
// runtime) and sends the user's next request at once, so most answers never
// go through the loop goroutine and the run needs about one worker per user.
// Every request is still sent once and ends once, and the run ends when the
// last answer is in, not at the drain limit: the worker that takes in the
// last answer after the end wakes the loop.
func TestClosedLoopAnswersTakenByTheirWorkers(t *testing.T) {
	const users = 8
	lab := testLab(t, map[string]string{"clients.mode": "closed", "clients.users": "8", "clients.think": "0s",
		"network.hop": "0s", "duration": "500ms"})
	f := newFake(t, "b1", false, func(got, int) answer { return answer{status: 200, loadQ: -1} })
	start := time.Now()
	rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("closed", f)}, Dial: dialer(f), Drain: time.Minute})
	took := time.Since(start)
	run := rep.Runs[0]
	checkAccounted(t, run)
	if run.Succeeded != run.Requests || run.Requests < 100 {
		t.Fatalf("want every request served, and many: %s", describe(run))
	}
	seqs := map[uint64]bool{}
	for _, g := range f.got() {
		if seqs[g.Seq] {
			t.Fatalf("request %d sent twice", g.Seq)
		}
		seqs[g.Seq] = true
	}
	if uint64(len(seqs)) != run.Requests {
		t.Fatalf("%d requests received, %d in the report", len(seqs), run.Requests)
	}
	// The loop goroutine takes an answer only when a worker found the
	// loop's state busy (it held it for a timer or another answer). How
	// often that happens is the machine's: measured 89-91% taken in
	// by their workers on an idle machine, 72-73% under -race on a loaded
	// one (make test's race step). Without the inline path it is none, so
	// half is the bound: it fails without it on any machine.
	t.Logf("%d of %d answers taken in by their workers", r.l.inlined, run.Requests)
	if in := r.l.inlined; in < run.Requests/2 {
		t.Errorf("%d of %d answers taken in by their workers, want at least half", in, run.Requests)
	}
	if n := r.l.tr.pool.started.Load(); n > 2*users {
		t.Errorf("%d workers started for %d users, want about one each", n, users)
	}
	// Without the wake-up the loop would sleep to the drain limit (a
	// minute); 20 s leaves a loaded machine room.
	if took > 20*time.Second {
		t.Errorf("the run took %v, past the end of a 0.5 s run: the loop waited for the drain limit", took)
	}
}

// The loop reads the clock once for an answer and once for a request it
// starts, and passes each reading on (the answer's to what it makes due,
// the start's to the attempts that leave then): in a closed loop and in an
// open one, two readings a request, and in an open loop slow enough that
// the timer wakes the loop for every arrival one more for the wake-up. Each
// reading more is a vDSO call on the hot path; it took four a request in a
// closed loop before, five in the open one.
func TestLoopReadsTheClockTwiceARequest(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		max  float64
	}{
		{"closed", map[string]string{"clients.mode": "closed", "clients.users": "8", "clients.think": "0s"}, 2.2},
		{"open", map[string]string{"clients.mode": "open", "clients.rate": "2000"}, 3.2},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.set["network.hop"], c.set["duration"] = "0s", "500ms"
			lab := testLab(t, c.set)
			f := newFake(t, "b1", false, func(got, int) answer { return answer{status: 200, loadQ: -1} })
			rep, r := runLive(t, Config{Lab: lab, Targets: []Target{toFakes(c.name, f)}, Dial: dialer(f), Drain: time.Minute})
			run := rep.Runs[0]
			checkAccounted(t, run)
			if run.Succeeded != run.Requests || run.Requests < 100 {
				t.Fatalf("want every request served, and many: %s", describe(run))
			}
			// The rest: the timer's wake-ups, the series bins, the end.
			per := float64(r.l.reads) / float64(run.Requests)
			if per > c.max {
				t.Errorf("%d clock readings for %d requests (%.2f a request), want at most %v", r.l.reads, run.Requests, per, c.max)
			}
			t.Logf("%.2f clock readings a request", per)
		})
	}
}
