package loadgen

import (
	"math/rand/v2"
	"testing"

	"github.com/lblab/lblab/internal/clock"
)

// The timer heap pops the earliest of its events, ties first-in first-out,
// pushes and pops interleaved as the loop does them.
func TestTimerQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q timerQueue
	var in []event // what the heap holds, in push order
	check := func() {
		e := q.pop()
		m := 0
		for i, x := range in {
			if x.at < in[m].at { // the first pushed among the earliest
				m = i
			}
		}
		if e.h != in[m].h {
			t.Fatalf("popped event %d (at %d), want %d (at %d)", e.h, e.at, in[m].h, in[m].at)
		}
		in = append(in[:m], in[m+1:]...)
	}
	for i := range 5000 {
		if rng.IntN(3) == 0 && len(in) > 0 {
			check()
			continue
		}
		e := event{at: clock.Instant(rng.IntN(50)), h: uint64(i)} // many ties
		q.push(e)
		in = append(in, e)
	}
	for len(in) > 0 {
		check()
	}
	if q.peek() != clock.Never {
		t.Fatal("events left in the heap")
	}
}
