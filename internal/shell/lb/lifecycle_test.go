package lb

import (
	"context"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
)

// A Shutdown right after Start must not miss a listener fasthttp's Serve had
// not registered yet (it would then accept forever and Shutdown would hang).
func TestShutdownRightAfterStart(t *testing.T) {
	for i := 0; i < 20; i++ {
		l, err := New(Config{Name: "lbt", Lab: testLab(t), Backends: specs(startFake(t, "s1"))})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Start(); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		done := make(chan error, 1)
		go func() { done <- l.Shutdown(ctx) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("round %d: shutdown: %v", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: Shutdown right after Start hangs", i)
		}
		cancel()
	}
}

// backwardsClock runs backwards: each reading is earlier than the last.
type backwardsClock struct{ t clock.Instant }

func (c *backwardsClock) Now() clock.Instant { c.t -= 1000; return c.t }
func (c *backwardsClock) Epoch() time.Time   { return time.Unix(0, 0) }

// The pipeline never sees time run backwards: the instants it is handed are
// read under the lock and never fall below the last one handed out, however
// the readings of concurrent requests interleave.
func TestPipelineTimeNeverRunsBackwards(t *testing.T) {
	l, err := New(Config{Lab: testLab(t), Backends: []BackendSpec{{Name: "s1", Addr: "127.0.0.1:9"}}})
	if err != nil {
		t.Fatal(err)
	}
	l.clock = &backwardsClock{t: 1e9}
	prev := clock.Instant(-1 << 62)
	for i := range 5 {
		a := l.pick(balance.Request{Seq: uint64(i) + 1}, 0, nil)
		if a.start < prev {
			t.Fatalf("pick %d at %v, after one at %v", i, a.start, prev)
		}
		prev = a.start
		l.report(&a, 0, false)
	}
}
