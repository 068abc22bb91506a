package server

import (
	"testing"
	"time"
)

// Fewer workers take no job away: the three in service finish at 10 ms as
// they would have, and the queued jobs then start one at a time.
func TestSetWorkersFewerLetsBusyFinish(t *testing.T) {
	r := newRig(t, Config{Workers: 3})
	for id := uint64(1); id <= 5; id++ {
		r.arrive(0, id, 10*time.Millisecond)
	}
	r.until(ms(5))
	if err := r.s.SetWorkers(ms(5), 1); err != nil {
		t.Fatal(err)
	}
	if snap := r.s.Snapshot(ms(5)); snap.Workers != 1 || snap.Busy != 3 || snap.Queued != 2 {
		t.Fatalf("after the cut: %d workers, %d busy, %d queued; want 1, 3 (still finishing), 2", snap.Workers, snap.Busy, snap.Queued)
	}
	r.until(ms(10))
	if q, in := r.s.Load(); q != 1 || in != 1 {
		t.Fatalf("at 10 ms: %d queued, %d busy; want one job started on the one worker left", q, in)
	}
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 2:ok@10 q=0 s=10 3:ok@10 q=0 s=10 4:ok@20 q=10 s=10 5:ok@30 q=20 s=10")
}

// More workers start queued jobs at once.
func TestSetWorkersMoreStartsQueued(t *testing.T) {
	r := newRig(t, Config{Workers: 1})
	for id := uint64(1); id <= 4; id++ {
		r.arrive(0, id, 10*time.Millisecond)
	}
	if err := r.s.SetWorkers(ms(5), 3); err != nil {
		t.Fatal(err)
	}
	if q, in := r.s.Load(); q != 1 || in != 3 {
		t.Fatalf("after the growth: %d queued, %d busy; want 1 and 3", q, in)
	}
	r.until(ms(100))
	r.expect("1:ok@10 q=0 s=10 2:ok@15 q=5 s=10 3:ok@15 q=5 s=10 4:ok@20 q=10 s=10")
	if err := r.s.SetWorkers(ms(100), 0); err == nil {
		t.Fatal("0 workers accepted")
	}
}
