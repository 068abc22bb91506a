package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

// A lower max_outstanding takes no job away; the arrival over it is
// rejected, and 0 lifts the cap again.
func TestSetMaxOutstanding(t *testing.T) {
	r := newRig(t, Config{})
	r.arrive(0, 1, 10*time.Millisecond)
	r.arrive(0, 2, 10*time.Millisecond)
	if err := r.s.SetMaxOutstanding(ms(1), 1); err != nil {
		t.Fatal(err)
	}
	r.arrive(ms(2), 3, 10*time.Millisecond)
	r.until(ms(30)) // a driver sets at an instant it has woken the server up to
	if err := r.s.SetMaxOutstanding(ms(30), 0); err != nil {
		t.Fatal(err)
	}
	r.arrive(ms(30), 4, 10*time.Millisecond)
	r.arrive(ms(30), 5, 10*time.Millisecond)
	r.until(ms(100))
	r.expect("3:rejected/max-outstanding@2 1:ok@10 q=0 s=10 2:ok@20 q=10 s=10 4:ok@40 q=0 s=10 5:ok@50 q=10 s=10")
	if err := r.s.SetMaxOutstanding(ms(100), -1); err == nil {
		t.Error("max_outstanding -1 accepted")
	}
}

// A queue timeout set mid-run ends at once the queued jobs that have
// already waited that long, oldest first; the others time out at their
// enqueue + timeout, and 0 turns it off.
func TestSetQueueTimeout(t *testing.T) {
	r := newRig(t, Config{})
	r.arrive(0, 1, 10*time.Millisecond)
	r.arrive(0, 2, 10*time.Millisecond)
	r.arrive(ms(1), 3, 10*time.Millisecond)
	r.arrive(ms(4), 4, 10*time.Millisecond)
	if err := r.s.SetQueueTimeout(ms(5), 3*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r.until(ms(5))
	r.arrive(ms(9), 5, 10*time.Millisecond)
	r.until(ms(100))
	r.expect("2:rejected/queue-timeout@5 q=5 s=0 3:rejected/queue-timeout@5 q=4 s=0 4:rejected/queue-timeout@7 q=3 s=0 1:ok@10 q=0 s=10 5:ok@20 q=1 s=10")
	if err := r.s.SetQueueTimeout(ms(100), -time.Millisecond); err == nil {
		t.Error("queue_timeout -1ms accepted")
	}
}

// A new error_time holds the errors drawn from then on (0: the default);
// an error already answered keeps its own.
func TestSetErrorTime(t *testing.T) {
	r := newRig(t, Config{Errors: 1})
	r.arrive(0, 1, 10*time.Millisecond)
	if err := r.s.SetErrorTime(ms(0.5), 30*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	r.arrive(ms(2), 2, 10*time.Millisecond)
	r.until(ms(40))
	if err := r.s.SetErrorTime(ms(40), 0); err != nil {
		t.Fatal(err)
	}
	r.arrive(ms(40), 3, 10*time.Millisecond)
	r.until(ms(100))
	r.expect("1:error/error@1 q=0 s=1 2:error/error@32 q=0 s=30 3:error/error@41 q=0 s=1")
	if err := r.s.SetErrorTime(ms(100), -time.Millisecond); err == nil {
		t.Error("error_time -1ms accepted")
	}
}

// A new hit factor prices the hits that start from then on.
func TestSetHitFactor(t *testing.T) {
	r := newRig(t, Config{CacheSize: 4, HitFactor: 0.5, Work: rng.Constant{Value: 10 * time.Millisecond}})
	key := func(j *Job) { j.Key = 7 }
	r.arrive(0, 1, 10*time.Millisecond, key)
	r.arrive(ms(20), 2, 10*time.Millisecond, key)
	r.until(ms(30))
	if err := r.s.SetHitFactor(ms(30), 0.1); err != nil {
		t.Fatal(err)
	}
	r.arrive(ms(30), 3, 10*time.Millisecond, key)
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 2:ok@25 q=0 s=5 hit 3:ok@31 q=0 s=1 hit")
	if err := r.s.SetHitFactor(ms(100), 1.5); err == nil {
		t.Error("hit_factor 1.5 accepted")
	}
}
