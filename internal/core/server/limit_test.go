package server

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
)

// fixedLimit is a limit that never moves and records its samples.
type fixedLimit struct {
	n       int
	samples []sample
}

type sample struct {
	rtt             time.Duration
	inflight        int
	dropped, queued bool
}

func (f *fixedLimit) Limit() int   { return f.n }
func (f *fixedLimit) Name() string { return "fixed" }
func (f *fixedLimit) OnSample(_ clock.Instant, rtt time.Duration, inflight int, dropped, queued bool) {
	f.samples = append(f.samples, sample{rtt, inflight, dropped, queued})
}

func TestLimiterRejectsAtTheLimit(t *testing.T) {
	l := &fixedLimit{n: 2}
	r := newRig(t, Config{Workers: 1, Limit: l, QueueTimeout: dms(15)})
	r.arrive(ms(0), 1, dms(10))
	r.arrive(ms(1), 2, dms(20))
	if got := show(r.arrive(ms(2), 3, dms(10))); got != "3:rejected/limit@2" {
		t.Fatalf("third arrival: %s", got)
	}
	r.until(ms(10))
	r.arrive(ms(10), 4, dms(10)) // queued behind 2 (in service until 30): times out at 25
	r.until(ms(100))
	r.expect("3:rejected/limit@2 1:ok@10 q=0 s=10 4:rejected/queue-timeout@25 q=15 s=0 2:ok@30 q=9 s=20")
	want := []sample{
		{10 * time.Millisecond, 1, false, false},
		{15 * time.Millisecond, 2, true, true},
		{29 * time.Millisecond, 2, false, true},
	}
	if len(l.samples) != len(want) {
		t.Fatalf("samples %+v, want %+v (rejected jobs are not sampled)", l.samples, want)
	}
	for i := range want {
		if l.samples[i] != want[i] {
			t.Fatalf("sample %d = %+v, want %+v", i, l.samples[i], want[i])
		}
	}
	if snap := r.s.Snapshot(ms(100)); snap.Limit != 2 {
		t.Fatalf("snapshot limit %d", snap.Limit)
	}
}

func TestSetLimitFeedsOnlyItsOwnJobs(t *testing.T) {
	old, next := &fixedLimit{n: 10}, &fixedLimit{n: 10}
	r := newRig(t, Config{Workers: 1, Limit: old})
	r.arrive(ms(0), 1, dms(10))
	r.s.SetLimit(ms(1), next)
	r.arrive(ms(1), 2, dms(10))
	r.until(ms(100))
	if len(old.samples) != 0 || len(next.samples) != 1 {
		t.Fatalf("old %d samples, new %d; want 0 and 1", len(old.samples), len(next.samples))
	}
	r.s.SetLimit(ms(100), nil)
	if snap := r.s.Snapshot(ms(100)); snap.Limit != 0 {
		t.Fatalf("snapshot limit %d, want 0", snap.Limit)
	}
}

// TestAIMDCapsOverload runs 25% overload through a server with an AIMD
// limit. Responses turn slow (> 50 ms) once about 9 are outstanding; the limit
// saw-tooths around that knee instead of letting the queue grow without bound
// (it would reach about 1000 in 20 s), and the excess is rejected at once.
func TestAIMDCapsOverload(t *testing.T) {
	aimd, err := limit.NewAIMD(limit.AIMDConfig{Initial: 4, SlowRTT: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, Config{Workers: 2, Limit: aimd})
	// Two workers of 10 ms serve 200/s; offer 250/s for 20 s.
	const n = 5000
	rejected, lo, hi, most := 0, 1000, 0, 0
	for i := 0; i < n; i++ {
		for _, rep := range r.arrive(ms(4*float64(i)), uint64(i), dms(10)) {
			if rep.Reason == "limit" {
				rejected++
			}
		}
		q, busy := r.s.Load()
		most = max(most, q+busy)
		if i > n/10 {
			lo, hi = min(lo, aimd.Limit()), max(hi, aimd.Limit())
		}
	}
	if lo < 5 || hi > 25 || most > 25 {
		t.Fatalf("AIMD limit ranged over [%d, %d] with up to %d outstanding, want within [5, 25]", lo, hi, most)
	}
	if share := float64(rejected) / n; share < 0.17 || share > 0.23 {
		t.Fatalf("rejected share %.3f, want about 0.2 (the excess)", share)
	}
}
