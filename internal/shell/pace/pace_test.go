package pace

import (
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// No test here asserts how precise a wait is: that depends on the machine
// and goes in bench/timing.sh. These check what must always hold: no wait
// ends early, cancelled and stopped waits do not fire, the loop goroutine
// is gone once nothing is pending.

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// both runs f on a fresh precise scheduler and on Runtime.
func both(t *testing.T, f func(t *testing.T, s *Scheduler)) {
	t.Run("precise", func(t *testing.T) {
		s, err := newScheduler()
		if err != nil {
			t.Fatal(err)
		}
		f(t, s)
		idle(t, s)
	})
	t.Run("runtime", func(t *testing.T) { f(t, Runtime) })
}

// idle checks that nothing is pending and, after a moment for the loop to
// notice, that its goroutine is gone.
func idle(t *testing.T, s *Scheduler) {
	t.Helper()
	s.mu.Lock()
	n := len(s.heap)
	s.mu.Unlock()
	if n != 0 {
		t.Errorf("%d waits still queued", n)
	}
	goleak.VerifyNone(t)
}

func TestWaitsNeverEndEarly(t *testing.T) {
	both(t, func(t *testing.T, s *Scheduler) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var early []string
		bad := func(what string, at, now int64) {
			mu.Lock()
			early = append(early, what+" ended "+time.Duration(at-now).String()+" early")
			mu.Unlock()
		}
		for i := range 200 {
			d := time.Duration(rand.IntN(3000)) * time.Microsecond
			wg.Add(1)
			go func() {
				defer wg.Done()
				at := mono() + int64(d)
				switch i % 4 {
				case 0:
					s.Sleep(Hop, d)
				case 1:
					s.SleepUntil(Hop, base.Add(time.Duration(at)))
				case 2:
					if !s.Wait(Answer, d, make(chan struct{})) {
						bad("an uncancelled Wait returned false;", 0, 0)
					}
				case 3:
					done := make(chan int64)
					s.AfterFunc(Service, d, func() { done <- mono() })
					if now := <-done; now < at {
						bad("AfterFunc", at, now)
					}
					return
				}
				if now := mono(); now < at {
					bad("a wait", at, now)
				}
			}()
		}
		wg.Wait()
		for _, e := range early {
			t.Error(e)
		}
	})
}

func TestTimerChannel(t *testing.T) {
	both(t, func(t *testing.T, s *Scheduler) {
		tm := s.NewTimer(Pacing)
		select {
		case <-tm.C:
			t.Fatal("a new timer fired before it was armed")
		case <-time.After(5 * time.Millisecond):
		}
		for range 20 {
			at := time.Now().Add(time.Duration(rand.IntN(2000)) * time.Microsecond)
			tm.ResetAt(at)
			<-tm.C
			if now := time.Now(); now.Before(at) {
				t.Fatalf("fired %v early", at.Sub(now))
			}
		}
		if tm.Stop() {
			t.Error("Stop of a fired timer said it was pending")
		}
	})
}

// TestResetMovesAndStopCancels: a timer moved later does not fire at its
// old instant, a stopped one never fires, and neither leaves a stale tick.
func TestResetMovesAndStopCancels(t *testing.T) {
	both(t, func(t *testing.T, s *Scheduler) {
		tm := s.NewTimer(Pacing)
		tm.Reset(time.Minute)
		if !tm.Reset(time.Hour) {
			t.Error("Reset of a pending timer said it was not")
		}
		// moved away from a near instant, it does not fire there; a stall
		// of the test's goroutine past that instant before the move (2 ms:
		// seen beside two CPU hogs) lets it fire first, and the move then
		// rightly says it was not pending: nothing to check then
		tm.Reset(2 * time.Millisecond)
		if tm.Reset(time.Hour) {
			time.Sleep(10 * time.Millisecond)
			select {
			case <-tm.C:
				if s.Precise() { // Runtime may deliver a firing already under way
					t.Error("fired at its old instant after Reset")
				}
			default:
			}
		}
		if !tm.Stop() {
			t.Error("Stop of a pending timer said it was not")
		}
		if tm.Stop() {
			t.Error("a second Stop said it was pending")
		}

		var calls sync.WaitGroup
		calls.Add(1)
		ran := make(chan struct{}, 10)
		f := s.AfterFunc(Service, time.Hour, func() { ran <- struct{}{} })
		f.Reset(time.Millisecond)
		go func() { <-ran; calls.Done() }()
		calls.Wait()
		g := s.AfterFunc(Service, 2*time.Millisecond, func() { ran <- struct{}{} })
		if !g.Stop() {
			t.Error("Stop of a pending AfterFunc said it was not")
		}
		time.Sleep(10 * time.Millisecond)
		if len(ran) != 0 {
			t.Error("a stopped AfterFunc ran")
		}
	})
}

// TestSameInstantKeepsTheTimer: ResetAt at the instant a timer already
// has keeps it pending (the loadgen re-arms every turn of its loop).
func TestSameInstantKeepsTheTimer(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	tm := s.NewTimer(Pacing)
	at := time.Now().Add(time.Hour)
	tm.ResetAt(at)
	if !tm.ResetAt(at) {
		t.Error("re-arming at the same instant said it was not pending")
	}
	if tm.e.idx < 0 {
		t.Error("the timer left the heap")
	}
	tm.Stop()
	idle(t, s)
}

func TestCancelledWaitLeaves(t *testing.T) {
	both(t, func(t *testing.T, s *Scheduler) {
		cancel := make(chan struct{})
		done := make(chan bool)
		go func() { done <- s.Wait(Answer, time.Hour, cancel) }()
		time.Sleep(time.Millisecond)
		close(cancel)
		if <-done {
			t.Error("a cancelled Wait returned true")
		}
		if s.Wait(Answer, time.Hour, cancel) {
			t.Error("a Wait with its cancel already closed returned true")
		}
	})
}

// TestLoopExitsWhenIdle: once the last wait is gone — fired, cancelled or
// stopped while the loop sleeps — the loop goroutine ends, and a later
// wait starts it again.
func TestLoopExitsWhenIdle(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	s.Sleep(Hop, time.Millisecond)
	idle(t, s)
	tm := s.AfterFunc(Service, time.Hour, func() {})
	time.Sleep(2 * time.Millisecond) // the loop is asleep on the alarm
	tm.Stop()
	idle(t, s)
	s.Sleep(Hop, time.Millisecond)
	idle(t, s)
}

func TestStatsByKind(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		s.Sleep(Hop, 100*time.Microsecond)
	}
	s.Wait(Answer, 100*time.Microsecond, nil)
	st := s.Stats()
	if len(st) != 2 || st[0].Kind != "hop" || st[0].Count != 3 || st[1].Kind != "answer" || st[1].Count != 1 {
		t.Fatalf("stats %+v, want 3 hops and 1 answer", st)
	}
	for _, l := range st {
		if l.P50us < 0 || l.P99us < l.P50us || l.MaxUS < 0 {
			t.Errorf("implausible %+v", l)
		}
	}
	idle(t, s)
}

func TestChoose(t *testing.T) {
	if choose("runtime") != Runtime {
		t.Error(`$LBLAB_WAITS=runtime did not choose Runtime`)
	}
	if s := choose(""); s == Runtime || !s.Precise() {
		t.Error("the default is not a precise scheduler")
	}
	if Or(nil) != Default() || Or(Runtime) != Runtime {
		t.Error("Or does not default nil to Default")
	}
}

// TestAlarmInThePastWakes: an alarm set for an instant already past wakes
// the wait at once (the first read is skipped only for a future instant).
func TestAlarmInThePastWakes(t *testing.T) {
	a, err := newAlarm()
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{0, mono() - 1000, mono()} {
		a.set(at)
		time.Sleep(time.Millisecond) // the expiry comes before the wait
		done := make(chan error)
		go func() { done <- a.wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("an alarm set at %d (now %d) never woke its wait", at, mono())
		}
	}
}

// TestHeapOrder checks the heap the loop pops from against a sorted list,
// through random pushes, pops and removals.
func TestHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h heap
	var ref []int64
	var live []*entry
	for range 20000 {
		switch op := r.IntN(3); {
		case op == 0 || len(h) == 0:
			e := &entry{at: int64(r.IntN(1000)), idx: -1}
			h.push(e)
			live = append(live, e)
			ref = append(ref, e.at)
		case op == 1:
			e := h.pop()
			slices.Sort(ref)
			if e.at != ref[0] || e.idx != -1 {
				t.Fatalf("popped %d (idx %d), want %d", e.at, e.idx, ref[0])
			}
			ref = ref[1:]
			live = slices.DeleteFunc(live, func(x *entry) bool { return x == e })
		default:
			i := r.IntN(len(live))
			e := live[i]
			h.remove(e)
			live = slices.Delete(live, i, i+1)
			ref = slices.Delete(ref, slices.Index(ref, e.at), slices.Index(ref, e.at)+1)
		}
		for i, e := range h {
			if e.idx != i || i > 0 && h[(i-1)/2].at > e.at {
				t.Fatalf("heap broken at %d", i)
			}
		}
	}
}

// TestLeadSettlesAtTheNinetiethPercentile feeds the estimator delays
// uniform over 0..100 µs: it must settle near 90 µs.
func TestLeadSettlesAtTheNinetiethPercentile(t *testing.T) {
	var p spinner
	r := rand.New(rand.NewPCG(3, 4))
	for range 200000 {
		p.observe(int64(r.IntN(100_000)))
	}
	if p.lead < 80_000 || p.lead > 97_000 {
		t.Errorf("lead %v, want about 90µs", time.Duration(p.lead))
	}
	for range 10000 {
		p.observe(10 * maxLead)
	}
	if p.lead != maxLead {
		t.Errorf("lead %v, want the cap %v", time.Duration(p.lead), time.Duration(maxLead))
	}
}

// TestSpinBudget: spinning is refused once it has used its share of the
// time, and allowed again as time passes.
func TestSpinBudget(t *testing.T) {
	p := spinner{lead: 50_000}
	if got := p.early(1_000_000); got != 50_000 { // 1 ms refills 1/spinShare of it
		t.Fatalf("early %d with budget left, want the lead", got)
	}
	p.spent(150_000)
	if got := p.early(1_000_000); got != 0 || p.dry != 1 {
		t.Fatalf("early %d (dry %d) with the budget spent, want 0", got, p.dry)
	}
	if got := p.early(10_000_000); got != 50_000 {
		t.Fatalf("early %d after a refill, want the lead", got)
	}
	if got := p.early(1 << 40); got != 50_000 || p.budget != spinBurst {
		t.Fatalf("budget %d after a long idle, want the cap %d", p.budget, spinBurst)
	}
}

// TestLogLine: the processes' "wait lateness" line carries the scheduler
// and each kind's figures (bench/timing.sh reads it).
func TestLogLine(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	s.Sleep(Hop, 100*time.Microsecond)
	core, logs := observer.New(zap.InfoLevel)
	s.Log(zap.New(core))
	Runtime.Log(zap.New(core))
	all := logs.AllUntimed()
	if len(all) != 2 {
		t.Fatalf("%d lines, want 2", len(all))
	}
	m := all[0].ContextMap()
	if all[0].Message != "wait lateness" || m["waits"] != "precise" || m["lead_us"] == nil {
		t.Errorf("precise line %q %v", all[0].Message, m)
	}
	if st, ok := m["lateness"].([]Lateness); !ok || len(st) != 1 || st[0].Kind != "hop" || st[0].Count != 1 {
		t.Errorf("lateness %#v, want one hop", m["lateness"])
	}
	if m := all[1].ContextMap(); m["waits"] != "runtime" || m["lead_us"] != nil {
		t.Errorf("runtime line %v", m)
	}
	idle(t, s)
}

// TestTimerForThePastFiresInline: a timer re-armed for an instant already
// past fires at once without starting the loop (a loadgen that fell behind
// re-arms so every turn).
func TestTimerForThePastFiresInline(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	tm := s.NewTimer(Pacing)
	tm.Reset(time.Hour)
	tm.ResetAt(time.Now().Add(-time.Millisecond))
	select {
	case <-tm.C:
	default:
		t.Fatal("a timer re-armed for the past did not fire at once")
	}
	s.mu.Lock()
	queued := len(s.heap)
	s.mu.Unlock()
	if queued != 0 || tm.Stop() {
		t.Errorf("the fired timer is still pending (%d queued)", queued)
	}
	ran := make(chan struct{})
	s.AfterFunc(Service, -time.Millisecond, func() { close(ran) })
	<-ran
	idle(t, s)
}

// TestBehindFallsBackToGoTimers: firings late past behindLate on average
// send new waits to Go's timers for a while (they still never end early),
// and then to the heap again.
func TestBehindFallsBackToGoTimers(t *testing.T) {
	s, err := newScheduler()
	if err != nil {
		t.Fatal(err)
	}
	now := mono()
	for range 16 {
		s.noteFired(now, 2*behindLate)
	}
	if !s.isBehind() || s.falls != 1 {
		t.Fatalf("16 firings 2 ms late did not count as behind once (%d)", s.falls)
	}
	at := mono() + int64(time.Millisecond)
	s.Sleep(Hop, time.Millisecond) // on Go's timers: the loop never starts
	if mono() < at {
		t.Error("a wait ended early")
	}
	s.mu.Lock()
	running := s.running
	s.mu.Unlock()
	if running {
		t.Error("a wait went to the heap while behind")
	}
	s.behind.Store(mono() - 1)
	if s.isBehind() {
		t.Error("still behind after the interval")
	}
	for range 100 {
		s.noteFired(now, behindLate/2)
	}
	if s.isBehind() {
		t.Error("firings half a millisecond late counted as behind")
	}
}
