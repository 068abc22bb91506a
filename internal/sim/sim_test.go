package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
)

func jsonOf(t *testing.T, lab *labfile.Lab) []byte {
	t.Helper()
	rep, err := Compare(lab, lab.Compare, Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// The same seed gives byte-identical JSON; another seed a different one.
func TestDeterminism(t *testing.T) {
	for _, name := range []string{"retry-storm", "hedging", "herd", "client-side"} {
		lab := loadScenario(t, name)
		lab.Duration = 8 * time.Second
		a, b := jsonOf(t, lab), jsonOf(t, lab)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed %d differ", name, lab.Seed)
		}
		lab.Seed = 2
		if c := jsonOf(t, lab); bytes.Equal(a, c) {
			t.Errorf("%s: seeds 1 and 2 gave the same report", name)
		}
	}
}

// Little's law on a long stable run: L = lambda x W within 2%.
func TestLittlesLaw(t *testing.T) {
	lab := loadScenario(t, "playground")
	lab.Duration = 300 * time.Second
	res, err := Run(lab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Run.Little
	if l == nil {
		t.Fatal("no Little figures in the report")
	}
	if lw := l.Lambda * l.W; math.Abs(l.L-lw)/lw > 0.02 {
		t.Errorf("L = %.4f but lambda x W = %.4f (lambda %.2f/s, W %.4f s)", l.L, lw, l.Lambda, l.W)
	}
}

// Every scenario, every setting: invariants hold after every event
// (Compare runs with Check on) and every request ends exactly once.
func TestInvariantsAllScenarios(t *testing.T) {
	for _, name := range []string{"playground", "rr-slow", "herd", "gc-ewma", "breaker", "adaptive", "shedding", "slow-server"} {
		rep := compareScenario(t, name)
		for _, r := range rep.Runs {
			o := r.Outcomes
			if o.Succeeded+o.Failed+o.Rejected+o.TimedOut != r.Requests || r.Succeeded+r.Failed != r.Requests {
				t.Errorf("%s/%s: outcomes %+v do not add up to %d requests", name, r.Name, o, r.Requests)
			}
			var sent uint64
			for _, s := range r.Servers {
				sent += s.Sent
			}
			if sent > r.Attempts {
				t.Errorf("%s/%s: servers saw %d attempts, clients sent %d", name, r.Name, sent, r.Attempts)
			}
		}
	}
}

// The checker itself catches a broken count.
func TestCheckerCatchesCorruptCounts(t *testing.T) {
	lab := loadScenario(t, "playground")
	w, err := newWorld(lab.Clone(), "p2c", Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	w.bals[0].Loads().Sent(0, 1) // an outstanding count with no attempt behind it
	w.events = 1024
	w.checkStep()
	if len(w.fault) == 0 || !strings.Contains(w.fault[0], "outstanding") {
		t.Fatalf("corrupt count not caught: %v", w.fault)
	}
}

// A scripted kill ends in-flight work as errors and the fleet keeps serving.
func TestKillAndRestart(t *testing.T) {
	lab := loadScenario(t, "playground")
	lab.Events = []labfile.Event{
		{At: 5 * time.Second, Action: "kill", Target: "s2"},
		{At: 10 * time.Second, Action: "restart", Target: "s2"},
	}
	res, err := Run(lab, Options{Check: true, Series: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	if r.Errors == 0 {
		t.Error("killing a server under load should cause errors (lost or refused attempts)")
	}
	if g := goodputBetween(&r, 12, 20); g < 0.99 {
		t.Errorf("after the restart goodput is %.3f", g)
	}
	if r.Goodput < 0.9 {
		t.Errorf("the rest of the fleet should keep serving: goodput %.3f", r.Goodput)
	}
}

// The event queue pops in (time, insertion) order.
func TestEventQueueOrder(t *testing.T) {
	var q eventQueue
	times := []int64{50, 10, 30, 10, 20, 50, 0, 10}
	for i, at := range times {
		q.push(event{at: clock.Instant(at), a: int32(i)})
	}
	var last event
	for i := 0; q.Len() > 0; i++ {
		e := q.pop()
		if i > 0 && (e.at < last.at || e.at == last.at && e.seq < last.seq) {
			t.Fatalf("popped %v after %v", e, last)
		}
		last = e
	}
}

// Closed loop: N users, each waiting for its answer then thinking, give the
// interactive response-time law X = N / (Z + R).
func TestClosedLoop(t *testing.T) {
	lab := loadScenario(t, "playground")
	for _, kv := range [][2]string{{"clients.mode", "closed"}, {"clients.users", "10"}, {"clients.think", "90ms"}, {"duration", "60s"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Run
	t.Logf("%d requests, mean latency %.1f ms", r.Requests, r.Latency.Mean)
	x := float64(r.Requests) / 60
	want := 10 / (0.090 + r.Latency.Mean/1000)
	if math.Abs(x-want)/want > 0.05 {
		t.Errorf("throughput %.1f/s, want N/(Z+R) = %.1f/s (mean latency %.1f ms)", x, want, r.Latency.Mean)
	}
	if r.Goodput != 1 {
		t.Errorf("goodput %v", r.Goodput)
	}
}

// Taking the top with hold and letting the next push reuse its slot gives the
// same order of events as pop then push.
func TestEventQueueHoldMatchesPop(t *testing.T) {
	var a, b eventQueue
	x := uint64(1)
	next := func() clock.Instant { x = x*6364136223846793005 + 1442695040888963407; return clock.Instant(x >> 40) }
	for i := 0; i < 200; i++ {
		at := next()
		a.push(event{at: at})
		b.push(event{at: at})
	}
	for i := 0; i < 5000 && a.Len() > 0; i++ {
		ea := a.pop()
		eb := b.hold()
		if ea.at != eb.at || ea.seq != eb.seq {
			t.Fatalf("step %d: pop gave (%v, %d), hold gave (%v, %d)", i, ea.at, ea.seq, eb.at, eb.seq)
		}
		for k := 0; k < int(x>>62); k++ { // 0 to 3 new events, at or after now
			at := ea.at + next()%1000
			a.push(event{at: at})
			b.push(event{at: at})
		}
		b.release()
	}
}

// Events pushed in order go to the FIFO and the rest to the heap; the loop's
// way of taking the earlier head (earliest, then take or hold) must give the
// same order as one heap, including pushes that break the FIFO's order (a
// reply sent after an earlier instant, jitter) and ties at one instant.
func TestEventQueueFIFOMatchesHeap(t *testing.T) {
	var ref, q eventQueue
	x := uint64(7)
	rnd := func(n uint64) uint64 { x = x*6364136223846793005 + 1442695040888963407; return (x >> 33) % n }
	now := clock.Instant(0)
	for i := 0; i < 20000; i++ {
		for k := rnd(4); k > 0; k-- {
			at := now + clock.Instant(rnd(50))
			inOrder := rnd(3) > 0
			if inOrder {
				at = now + 20 // a fixed hop
				if rnd(10) == 0 {
					at = now + clock.Instant(rnd(20)) // now and then earlier than the FIFO's tail
				}
			}
			ref.push(event{at: at, h: uint64(i)})
			if inOrder {
				q.pushInOrder(at, 0, uint64(i))
			} else {
				q.push(event{at: at, h: uint64(i)})
			}
		}
		if ref.Len() != q.Len() {
			t.Fatalf("step %d: %d events in the mixed queue, %d in the heap", i, q.Len(), ref.Len())
		}
		if ref.Len() == 0 {
			continue
		}
		want := ref.pop()
		at, src := q.earliest()
		var got event
		if src == fromFIFO {
			got = q.fifo.take()
		} else {
			got = q.hold()
			q.release()
		}
		if at != got.at || got.at != want.at || got.seq != want.seq || got.h != want.h {
			t.Fatalf("step %d: got (%v, %d, h%d), the heap gives (%v, %d, h%d)", i, got.at, got.seq, got.h, want.at, want.seq, want.h)
		}
		now = got.at
	}
	if q.fifo.n == 0 || len(q.items) == 0 {
		t.Fatal("the test should leave events in both the FIFO and the heap")
	}
}
