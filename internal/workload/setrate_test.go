package workload

import (
	"testing"

	"github.com/lblab/lblab/internal/clock"
)

func TestSetRateChangesRate(t *testing.T) {
	s := mustNew(t, baseConfig()) // 1000/s
	var r Request
	for r.At < clock.Instant(100e9) {
		r = s.Next()
	}
	switchAt := r.At
	s.SetRate(switchAt, 250)
	const n = 100_000
	var last Request
	for range n {
		last = s.Next()
	}
	if last.Seq != r.Seq+n {
		t.Fatalf("Seq after SetRate: %d, want %d", last.Seq, r.Seq+n)
	}
	mean := last.At.Sub(switchAt).Seconds() / n
	if !within(mean, 1.0/250, 0.01) {
		t.Fatalf("mean gap after SetRate(250) = %gs, want 0.004s ± 1%%", mean)
	}
}

func TestSetRateWithdrawsPending(t *testing.T) {
	s := mustNew(t, baseConfig())
	a := s.Next()
	b := s.Next()        // pending: scheduled by the driver, later than now
	now := a.At + 1      // between a and b
	s.SetRate(now, 1e-3) // nearly stop
	c := s.Next()
	if c.Seq != b.Seq || c.Work != b.Work || c.Key != b.Key || c.Client != b.Client {
		t.Fatalf("redrawn arrival %+v is not request %d %+v", c, b.Seq, b)
	}
	if c.At <= now || c.At < a.At {
		t.Fatalf("redrawn arrival at %v, want after now %v", c.At, now)
	}
	// An arrival already due stays: SetRate at or after it draws from now.
	s2 := mustNew(t, baseConfig())
	d := s2.Next()
	s2.SetRate(d.At+5, 1000)
	if e := s2.Next(); e.Seq != d.Seq+1 || e.At <= d.At+5 {
		t.Fatalf("after SetRate at a due arrival, Next = %+v", e)
	}
}

func TestPauseAndResume(t *testing.T) {
	s := mustNew(t, baseConfig())
	a := s.Next()
	s.Next()
	s.SetRate(a.At, 0)
	for range 3 {
		if r := s.Next(); r.At != clock.Never || r.Seq != a.Seq+1 {
			t.Fatalf("paused Next = %+v, want Seq %d at Never", r, a.Seq+1)
		}
	}
	resume := a.At + clock.Instant(5e9)
	s.SetRate(resume, 1000)
	r := s.Next()
	if r.Seq != a.Seq+1 || r.At <= resume {
		t.Fatalf("resumed Next = %+v, want Seq %d after %v", r, a.Seq+1, resume)
	}
	// A stream configured with rate 0 starts paused.
	cfg := baseConfig()
	cfg.Rate = 0
	p := mustNew(t, cfg)
	if r := p.Next(); r.At != clock.Never || r.Seq != 0 {
		t.Fatalf("rate 0 Next = %+v", r)
	}
	p.SetRate(clock.Instant(1e9), 10)
	if r := p.Next(); r.Seq != 0 || r.At <= clock.Instant(1e9) {
		t.Fatalf("after SetRate Next = %+v", r)
	}
}

func TestSetRateKeepsOrder(t *testing.T) {
	s := mustNew(t, baseConfig())
	prev := clock.Instant(0)
	var seq uint64
	for i := range 20_000 {
		r := s.Next()
		if r.Seq != seq || r.At < prev {
			t.Fatalf("step %d: %+v after At %v, want Seq %d", i, r, prev, seq)
		}
		if i%7 == 3 {
			// Change the rate somewhere between the last due arrival and r.
			now := prev + (r.At-prev)/2
			s.SetRate(now, float64(100+i%900))
			continue // r is withdrawn when now < r.At
		}
		prev, seq = r.At, seq+1
	}
}

func TestSetRateDeterministic(t *testing.T) {
	run := func() []Request {
		s := mustNew(t, baseConfig())
		var out []Request
		for i := range 3000 {
			r := s.Next()
			out = append(out, r)
			if i%500 == 499 {
				s.SetRate(r.At, float64(i))
			}
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("request %d differs between identical runs", i)
		}
	}
}
