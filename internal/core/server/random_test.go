package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/stats"
)

// TestUtilisation offers 80% load (Poisson arrivals, exponential work, four
// workers) for 1000 s: the time average of busy workers is 0.8 x Workers.
func TestUtilisation(t *testing.T) {
	const workers, mean, load = 4, 10 * time.Millisecond, 0.8
	s, err := New(Config{Name: "u", Workers: workers, Work: rng.Exponential{Avg: mean}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	src := rng.New(9)
	gap := float64(mean) / (load * workers) // mean interarrival time
	var busy stats.TimeAverage
	var out []Reply
	next := clock.Instant(0)
	end := clock.Instant(1000 * time.Second)
	for id := uint64(0); next < end; id++ {
		for d, ok := s.NextDeadline(); ok && d <= next; d, ok = s.NextDeadline() {
			out = s.Advance(d, out[:0])
			_, b := s.Load()
			busy.Set(d, float64(b))
		}
		out = s.Arrive(next, Job{ID: id, Work: -1}, out[:0])
		_, b := s.Load()
		busy.Set(next, float64(b))
		next = next.Add(time.Duration(src.Exp() * gap))
	}
	if u := busy.Mean(end) / workers; u < load*0.98 || u > load*1.02 {
		t.Fatalf("utilisation %.4f, want %.2f within 2%%", u, load)
	}
}

// TestRandomizedInvariants drives servers with random settings through random
// arrivals and chaos, waking only at NextDeadline and at its own operations,
// and checks: busy <= Workers; queued <= QueueCap; a queue only while every
// worker is busy; every job gets exactly one reply, delivered exactly at its
// At (fast errors: At = arrival + ErrorTime); OK replies satisfy
// At - arrival = Queue + Service.
func TestRandomizedInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		src := rng.New(seed)
		cfg := randomConfig(src, seed)
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		c := &checker{t: t, s: s, seed: seed, open: map[uint64]clock.Instant{}}
		var now clock.Instant
		for step := 0; step < 4000; step++ {
			at := now.Add(time.Duration(src.Exp() * float64(3*time.Millisecond)))
			if d, ok := s.NextDeadline(); ok && d <= at {
				now = max(now, d)
				c.deliver(now, s.Advance(now, nil))
				continue
			}
			now = at
			c.op(now, src)
			c.invariants()
		}
		c.deliver(now, s.Kill(now, nil))
		c.deliver(now, s.Advance(now, nil))
		if len(c.open) != 0 {
			t.Fatalf("seed %d: %d jobs never answered", seed, len(c.open))
		}
	}
}

func randomConfig(src *rng.Source, seed uint64) Config {
	cfg := Config{
		Name: "r", Seed: seed, Workers: 1 + src.Intn(4), QueueCap: src.Intn(4),
		LIFO: src.Intn(2) == 0, DropExpired: src.Intn(2) == 0,
		MaxOutstanding: src.Intn(2) * (2 + src.Intn(8)),
		QueueTimeout:   time.Duration(src.Intn(2)*(5+src.Intn(30))) * time.Millisecond,
		Speed:          0.5 + src.Float64(), Work: rng.Exponential{Avg: 8 * time.Millisecond},
		Errors: 0.05 * float64(src.Intn(2)), CacheSize: src.Intn(2) * 8, HitFactor: 0.3,
	}
	if src.Intn(2) == 0 {
		cfg.GCEvery, cfg.GCPause = 200*time.Millisecond, time.Duration(1+src.Intn(50))*time.Millisecond
	}
	if src.Intn(2) == 0 {
		cfg.Limit, _ = limit.NewAIMD(limit.AIMDConfig{Initial: 5, SlowRTT: 40 * time.Millisecond})
	} else if src.Intn(2) == 0 {
		cfg.Limit, _ = limit.NewGradient2(limit.Gradient2Config{Initial: 5})
	}
	return cfg
}

type checker struct {
	t      *testing.T
	s      *Server
	seed   uint64
	nextID uint64
	open   map[uint64]clock.Instant // unanswered job -> arrival
}

// op applies one random operation at now.
func (c *checker) op(now clock.Instant, src *rng.Source) {
	s := c.s
	switch op := src.Intn(100); {
	case op < 80:
		c.nextID++
		j := Job{ID: c.nextID, Work: -1, Key: uint64(src.Intn(20)), Kind: Kind(src.Intn(4))}
		if src.Intn(3) == 0 {
			j.Work = time.Duration(src.Intn(3)) * time.Millisecond // 0 included
		}
		if src.Intn(2) == 0 {
			j.Deadline = now.Add(time.Duration(1+src.Intn(40)) * time.Millisecond)
		}
		c.open[j.ID] = now
		c.deliver(now, s.Arrive(now, j, nil))
	case op < 85:
		c.deliver(now, s.Cancel(now, c.nextID-uint64(src.Intn(4)), nil))
	case op < 88:
		_ = s.SetSpeed(now, 0.25+2*src.Float64())
	case op < 91:
		s.Pause(now, time.Duration(src.Intn(30))*time.Millisecond)
	case op < 93:
		c.deliver(now, s.Kill(now, nil))
	case op < 95:
		s.Restart(now)
	case op < 97:
		_ = s.SetQueue(now, src.Intn(4), src.Intn(2) == 0, src.Intn(2) == 0)
	case op < 98:
		s.SetFail(now, src.Intn(4) == 0)
	default:
		_ = s.SetErrors(now, 0.1*float64(src.Intn(2)))
	}
}

func (c *checker) deliver(now clock.Instant, replies []Reply) {
	for _, r := range replies {
		arrived, ok := c.open[r.ID]
		if !ok {
			c.t.Fatalf("seed %d: reply for unknown or answered job: %+v", c.seed, r)
		}
		delete(c.open, r.ID)
		want := now
		if r.Status == Error {
			want = arrived.Add(c.s.cfg.ErrorTime)
		}
		if r.At != want || r.Queue < 0 || r.Service < 0 {
			c.t.Fatalf("seed %d: at %v got %+v (arrived %v), want At %v", c.seed, now, r, arrived, want)
		}
		if r.Status == OK && r.At.Sub(arrived) != r.Queue+r.Service {
			c.t.Fatalf("seed %d: %+v arrived %v: queue + service != time in server", c.seed, r, arrived)
		}
	}
}

func (c *checker) invariants() {
	q, busy := c.s.Load()
	cfg := &c.s.cfg
	if busy > cfg.Workers || (cfg.QueueCap > 0 && q > cfg.QueueCap) || (q > 0 && busy < cfg.Workers) {
		c.t.Fatalf("seed %d: %d busy of %d workers, %d queued (capacity %d)", c.seed, busy, cfg.Workers, q, cfg.QueueCap)
	}
}
