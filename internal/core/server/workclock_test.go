package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// TestFinishAtMemoNeverStale drives a work clock through random speed
// changes, pauses, resumes and periodic pauses, asking finishAt between the
// steps (often twice for the same target, as the server does), and checks
// every answer against the uncached computation.
func TestFinishAtMemoNeverStale(t *testing.T) {
	src := rng.New(7)
	c := newWorkClock(1, 40*time.Millisecond, 5*time.Millisecond)
	now := clock.Instant(0)
	targets := []float64{1e6}
	for i := range 20_000 {
		now += clock.Instant(src.Intn(3_000_000))
		for c.next() <= now {
			c.step(c.next())
		}
		switch src.Intn(6) {
		case 0:
			c.setSpeed(now, []float64{1, 0.25, 0.5, 2}[src.Intn(4)])
		case 1:
			c.rebase(now)
			c.pauseUntil(now.Add(time.Duration(src.Intn(4_000_000))))
		case 2:
			c.resume(now)
		case 3:
			targets = append(targets, c.at(now)+float64(src.Intn(20_000_000)))
		}
		for k := 0; k < 2; k++ {
			target := targets[src.Intn(len(targets))]
			if got, want := c.finishAt(target), c.finish(target); got != want {
				t.Fatalf("step %d: finishAt(%g) = %v, uncached %v", i, target, got, want)
			}
		}
	}
}
