package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/rng"
)

// cycler offers one job and advances to its completion, like a driver.
type cycler struct {
	s   *Server
	now clock.Instant
	id  uint64
	out []Reply
}

func (c *cycler) cycle() {
	c.id++
	c.out = c.s.Arrive(c.now, Job{ID: c.id, Work: -1, Key: c.id % 97, Deadline: c.now.Add(time.Second)}, c.out[:0])
	if d, ok := c.s.NextDeadline(); ok {
		c.now = max(c.now, d)
		c.out = c.s.Advance(c.now, c.out[:0])
	}
	c.now = c.now.Add(time.Millisecond)
}

func newCycler(tb testing.TB, cfg Config) *cycler {
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return &cycler{s: s, out: make([]Reply, 0, 64)}
}

// TestArriveAdvanceDoesNotAllocate runs the hot path with every feature on
// (LIFO bounded queue, cache, limiter, errors, GC, drop-expired, timeouts).
func TestArriveAdvanceDoesNotAllocate(t *testing.T) {
	g, _ := limit.NewGradient2(limit.Gradient2Config{Initial: 8})
	c := newCycler(t, Config{
		Name: "a", Workers: 2, QueueCap: 4, LIFO: true, DropExpired: true, MaxOutstanding: 6,
		QueueTimeout: 50 * time.Millisecond, Work: rng.Exponential{Avg: 2 * time.Millisecond},
		GCEvery: 100 * time.Millisecond, GCPause: 10 * time.Millisecond, Errors: 0.05,
		CacheSize: 32, HitFactor: 0.5, Limit: g,
	})
	for i := 0; i < 10000; i++ {
		c.cycle()
	}
	if allocs := testing.AllocsPerRun(10000, c.cycle); allocs != 0 {
		t.Fatalf("%v allocations per arrival + completion, want 0", allocs)
	}
	plain := newCycler(t, Config{Workers: 1, Work: rng.Constant{Value: time.Millisecond}})
	if allocs := testing.AllocsPerRun(1000, plain.cycle); allocs != 0 {
		t.Fatalf("plain server: %v allocations per cycle, want 0", allocs)
	}
}

// BenchmarkArriveAdvance measures one arrival and its completion.
func BenchmarkArriveAdvance(b *testing.B) {
	c := newCycler(b, Config{Name: "b", Workers: 4, Work: rng.Exponential{Avg: 3 * time.Millisecond}})
	b.ReportAllocs()
	for b.Loop() {
		c.cycle()
	}
}

// BenchmarkArriveAdvanceFull is the same with cache, limiter, LIFO queue and GC.
func BenchmarkArriveAdvanceFull(b *testing.B) {
	a, _ := limit.NewAIMD(limit.AIMDConfig{SlowRTT: 20 * time.Millisecond})
	c := newCycler(b, Config{
		Name: "b", Workers: 4, QueueCap: 8, LIFO: true, DropExpired: true,
		Work: rng.Exponential{Avg: 3 * time.Millisecond}, CacheSize: 64, HitFactor: 0.2,
		GCEvery: time.Second, GCPause: 50 * time.Millisecond, Limit: a,
	})
	b.ReportAllocs()
	for b.Loop() {
		c.cycle()
	}
}

func TestStrings(t *testing.T) {
	kinds := ""
	for k := First; k <= Probe+1; k++ {
		kinds += k.String() + " "
	}
	if kinds != "first retry hedge probe kind(4) " {
		t.Fatalf("kinds %q", kinds)
	}
	codes := map[Status]int{OK: 200, Error: 500, Rejected: 503, Dropped: 0, Lost: 0, Refused: 0, Cancelled: 0}
	names := map[Status]string{OK: "ok", Error: "error", Rejected: "rejected", Dropped: "dropped", Lost: "lost", Refused: "refused", Cancelled: "cancelled"}
	for st, code := range codes {
		if st.HTTPCode() != code || st.String() != names[st] {
			t.Errorf("%d: %q %d, want %q %d", st, st, st.HTTPCode(), names[st], code)
		}
	}
	if Status(9).String() != "status(9)" {
		t.Error(Status(9).String())
	}
}
