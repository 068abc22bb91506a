package server

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

func TestFIFOServesOldestFirst(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10))
	r.arrive(ms(2), 3, dms(10))
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 2:ok@20 q=9 s=10 3:ok@30 q=18 s=10")
}

func TestLIFOServesNewestFirst(t *testing.T) {
	r := newRig(t, Config{Workers: 1, LIFO: true})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10))
	r.arrive(ms(2), 3, dms(10))
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 3:ok@20 q=8 s=10 2:ok@30 q=19 s=10")
}

func TestBoundedFIFORejectsWhenFull(t *testing.T) {
	r := newRig(t, Config{Workers: 1, QueueCap: 1})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10))
	if got := show(r.arrive(ms(2), 3, dms(10))); got != "3:rejected/queue-full@2" {
		t.Fatalf("third arrival: %s", got)
	}
	r.until(ms(100))
	r.expect("3:rejected/queue-full@2 1:ok@10 q=0 s=10 2:ok@20 q=9 s=10")
}

func TestBoundedLIFOEvictsOldest(t *testing.T) {
	r := newRig(t, Config{Workers: 1, QueueCap: 2, LIFO: true})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10))
	r.arrive(ms(2), 3, dms(10))
	if got := show(r.arrive(ms(3), 4, dms(10))); got != "2:rejected/lifo-evicted@3 q=2 s=0" {
		t.Fatalf("fourth arrival: %s", got)
	}
	r.until(ms(100))
	r.expect("2:rejected/lifo-evicted@3 q=2 s=0 1:ok@10 q=0 s=10 4:ok@20 q=7 s=10 3:ok@30 q=18 s=10")
	if snap := r.s.Snapshot(ms(100)); snap.Rejected != 1 || snap.MaxQueue != 2 || snap.Completed != 3 {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestMaxOutstanding(t *testing.T) {
	r := newRig(t, Config{Workers: 1, MaxOutstanding: 2})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10))
	if got := show(r.arrive(ms(2), 3, dms(10))); got != "3:rejected/max-outstanding@2" {
		t.Fatalf("third arrival: %s", got)
	}
	r.until(ms(10)) // 1 done, 2 in service: room for one more
	if got := r.arrive(ms(10), 4, dms(10)); len(got) != 0 {
		t.Fatalf("fourth arrival: %s", show(got))
	}
}

func TestQueueTimeout(t *testing.T) {
	r := newRig(t, Config{Workers: 1, QueueTimeout: dms(5)})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10)) // times out at 6
	r.arrive(ms(8), 3, dms(10)) // would time out at 13, but starts at 10
	r.until(ms(100))
	r.expect("2:rejected/queue-timeout@6 q=5 s=0 1:ok@10 q=0 s=10 3:ok@20 q=2 s=10")
}

func TestQueueTimeoutTieGoesToService(t *testing.T) {
	r := newRig(t, Config{Workers: 1, QueueTimeout: dms(9)})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(10)) // timeout at 10, when 1 finishes: served
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 2:ok@20 q=9 s=10")
}

func TestDropExpired(t *testing.T) {
	deadline := func(at float64) func(*Job) { return func(j *Job) { j.Deadline = ms(at) } }
	for _, drop := range []bool{true, false} {
		r := newRig(t, Config{Workers: 1, DropExpired: drop})
		r.arrive(ms(0), 1, dms(10))
		r.arrive(ms(1), 2, dms(10), deadline(5))
		r.arrive(ms(2), 3, dms(10), deadline(10)) // deadline == start instant: expired
		r.arrive(ms(3), 4, dms(10))               // no deadline
		r.arrive(ms(4), 5, dms(10), deadline(50))
		r.until(ms(100))
		if drop {
			r.expect("1:ok@10 q=0 s=10 2:dropped/expired@10 q=9 s=0 3:dropped/expired@10 q=8 s=0 4:ok@20 q=7 s=10 5:ok@30 q=16 s=10")
			if snap := r.s.Snapshot(ms(100)); snap.Dropped != 2 {
				t.Fatalf("dropped = %d, want 2", snap.Dropped)
			}
		} else if len(r.log) != 5 || r.log[4].At != ms(50) {
			t.Fatalf("without drop_expired every job is served: %s", show(r.log))
		}
	}
}

func TestCancelQueuedJob(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10), func(j *Job) { j.Kind = Hedge })
	r.arrive(ms(1), 2, dms(10), func(j *Job) { j.Kind = Hedge })
	r.arrive(ms(2), 3, dms(10), func(j *Job) { j.Kind = Retry })
	if got := r.s.QueuedKinds(nil); len(got) != 2 || got[0] != Hedge || got[1] != Retry {
		t.Fatalf("queued kinds %v", got)
	}
	if got := r.s.Cancel(ms(3), 1, nil); len(got) != 0 {
		t.Fatalf("cancelling a job in service: %s", show(got))
	}
	got := r.s.Cancel(ms(3), 2, nil)
	if show(got) != "2:cancelled/cancelled@3 q=2 s=0" || got[0].Kind != Hedge {
		t.Fatalf("cancel: %s", show(got))
	}
	if got := r.s.Cancel(ms(3), 2, nil); len(got) != 0 {
		t.Fatalf("second cancel: %s", show(got))
	}
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 3:ok@20 q=8 s=10")
}

func TestSetQueueShrinks(t *testing.T) {
	for _, c := range []struct {
		lifo bool
		want string
	}{
		{false, "4:rejected/queue-full@5 q=2 s=0 3:rejected/queue-full@5 q=3 s=0 1:ok@10 q=0 s=10 2:ok@20 q=9 s=10"},
		{true, "2:rejected/lifo-evicted@5 q=4 s=0 3:rejected/lifo-evicted@5 q=3 s=0 1:ok@10 q=0 s=10 4:ok@20 q=7 s=10"},
	} {
		r := newRig(t, Config{Workers: 1})
		for i := 0; i < 4; i++ {
			r.arrive(ms(float64(i)), uint64(i+1), dms(10))
		}
		if err := r.s.SetQueue(ms(5), 1, c.lifo, false); err != nil {
			t.Fatal(err)
		}
		if d, ok := r.s.NextDeadline(); !ok || d != ms(5) {
			t.Fatalf("pending replies must be due at once: %v %v", d, ok)
		}
		r.until(ms(100))
		r.expect(c.want)
	}
}

func TestKillAndRestart(t *testing.T) {
	r := newRig(t, Config{Workers: 1, CacheSize: 4, HitFactor: 0.5})
	r.arrive(ms(0), 1, dms(10), func(j *Job) { j.Key = 7 })
	r.arrive(ms(1), 2, dms(10))
	r.log = r.s.Kill(ms(5), r.log)
	r.expect("1:lost/killed@5 q=0 s=5 2:lost/killed@5 q=4 s=0")
	if _, ok := r.s.NextDeadline(); ok {
		t.Fatal("a killed server has nothing to do")
	}
	if got := show(r.arrive(ms(6), 3, dms(10))); got != "3:refused/down@6" {
		t.Fatalf("arrival at a dead server: %s", got)
	}
	if snap := r.s.Snapshot(ms(6)); snap.Up || snap.Lost != 2 || snap.Busy != 0 || snap.Queued != 0 {
		t.Fatalf("snapshot %+v", snap)
	}
	r.s.Restart(ms(20))
	r.log = nil
	r.arrive(ms(20), 4, dms(10), func(j *Job) { j.Key = 7 })
	r.until(ms(100))
	r.expect("4:ok@30 q=0 s=10") // the cache was cleared: no hit
}

func TestRestartWhileUpLosesJobs(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	r.arrive(ms(0), 1, dms(10))
	r.s.Restart(ms(4))
	r.arrive(ms(4), 2, dms(10))
	r.until(ms(100))
	r.expect("1:lost/killed@4 q=0 s=4 2:ok@14 q=0 s=10")
}

func TestConfigErrors(t *testing.T) {
	base := Config{Name: "s1", Workers: 1, Work: rng.Constant{Value: time.Millisecond}}
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Workers = 0 }, `server "s1": workers = 0, must be in [1, 10000]`},
		{func(c *Config) { c.Workers = MaxWorkers + 1 }, "workers = 10001"},
		{func(c *Config) { c.QueueCap = MaxQueueCap + 1 }, "queue.capacity = 100001"},
		{func(c *Config) { c.CacheSize = MaxCacheSize + 1 }, "cache.size = 1000001"},
		{func(c *Config) { c.Speed = 1e308 }, "speed = 1e+308, must be in (0, 100]"},
		{func(c *Config) { c.QueueCap = -1 }, "queue.capacity = -1"},
		{func(c *Config) { c.MaxOutstanding = -2 }, "max_outstanding = -2"},
		{func(c *Config) { c.QueueTimeout = -1 }, "queue_timeout = -1ns"},
		{func(c *Config) { c.Speed = -1 }, "speed = -1, must be in (0, 100]"},
		{func(c *Config) { c.Work = nil }, "work is required"},
		{func(c *Config) { c.Errors = 1.5 }, "errors = 1.5, must be in [0, 1]"},
		{func(c *Config) { c.ErrorTime = -1 }, "error_time = -1ns"},
		{func(c *Config) { c.CacheSize = -1 }, "cache.size = -1"},
		{func(c *Config) { c.HitFactor = 2 }, "cache.hit_factor = 2, must be in [0, 1]"},
		{func(c *Config) { c.GCEvery = time.Second }, "gc.pause = 0s, must be in (0, gc.every = 1s)"},
		{func(c *Config) { c.GCEvery, c.GCPause = time.Second, time.Second }, "gc.pause = 1s"},
		{func(c *Config) { c.GCPause = -1 }, "gc.pause = -1ns, must be >= 0"},
		{func(c *Config) { c.GCEvery = -1 }, "gc.every = -1ns, must be >= 0"},
	} {
		cfg := base
		c.mod(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v, want an error containing %q", err, c.want)
		}
	}
	s, _ := New(base)
	if s.Name() != "s1" {
		t.Errorf("Name() = %q", s.Name())
	}
	if err := s.SetSpeed(0, 0); err == nil || !strings.Contains(err.Error(), "speed = 0") {
		t.Errorf("SetSpeed(0): %v", err)
	}
	if err := s.SetSpeed(0, 1e308); err == nil || !strings.Contains(err.Error(), "speed = 1e+308") {
		t.Errorf("SetSpeed(1e308): %v", err)
	}
	if err := s.SetErrors(0, -0.1); err == nil || !strings.Contains(err.Error(), "errors = -0.1") {
		t.Errorf("SetErrors(-0.1): %v", err)
	}
	if err := s.SetQueue(0, MaxQueueCap+1, false, false); err == nil || !strings.Contains(err.Error(), "queue.capacity = 100001") {
		t.Errorf("SetQueue(MaxQueueCap+1): %v", err)
	}
	if err := s.SetQueue(0, -1, false, false); err == nil || !strings.Contains(err.Error(), "queue.capacity = -1") {
		t.Errorf("SetQueue(-1): %v", err)
	}
}
