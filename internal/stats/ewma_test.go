package stats

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

const sec = clock.Instant(time.Second)

// half is one half-life of a 1 s time constant, tau × ln 2.
var half = clock.Instant(math.Round(math.Ln2 * float64(time.Second)))

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestEWMAHalfLife(t *testing.T) {
	e := NewEWMA(time.Second)
	if e.Set() || e.Value() != 0 {
		t.Fatal("new EWMA not empty")
	}
	e.Observe(0, 100)
	if !e.Set() || e.Value() != 100 {
		t.Fatalf("first sample: value %g, want 100", e.Value())
	}
	// After one half-life, tau × ln 2, the old value keeps half its weight.
	e.Observe(half, 0)
	if !near(e.Value(), 50, 1e-6) {
		t.Fatalf("after a half-life: %g, want 50", e.Value())
	}
	e.Observe(2*half, 0)
	if !near(e.Value(), 25, 1e-6) {
		t.Fatalf("after two half-lives: %g, want 25", e.Value())
	}
	// One tau later the weight of the past is 1/e.
	e.Observe(2*half+sec, 25+1)
	if want := 25/math.E + 26*(1-1/math.E); !near(e.Value(), want, 1e-6) {
		t.Fatalf("after tau: %g, want %g", e.Value(), want)
	}
}

func TestEWMASameInstantAndBackwards(t *testing.T) {
	e := NewEWMA(time.Second)
	e.Observe(sec, 10)
	e.Observe(sec, 20) // dt = 0: weight 1 on the past, the sample is ignored
	if e.Value() != 10 {
		t.Fatalf("same-instant sample moved the average to %g", e.Value())
	}
	e.Observe(0, 30) // earlier than the last sample: treated as dt = 0
	if e.Value() != 10 {
		t.Fatalf("out-of-order sample moved the average to %g", e.Value())
	}
}

func TestEWMARateIndependent(t *testing.T) {
	// Ten samples 100 ms apart forget like one sample a second later.
	fast, slow := NewEWMA(time.Second), NewEWMA(time.Second)
	fast.Observe(0, 0)
	slow.Observe(0, 0)
	for i := 1; i <= 10; i++ {
		fast.Observe(clock.Instant(i)*sec/10, 1)
	}
	slow.Observe(sec, 1)
	if !near(fast.Value(), slow.Value(), 1e-9) {
		t.Fatalf("10 samples: %g, 1 sample: %g", fast.Value(), slow.Value())
	}
}

func TestPeakEWMA(t *testing.T) {
	p := NewPeakEWMA(time.Second)
	if p.At(0) != 0 {
		t.Fatal("empty peak EWMA not 0")
	}
	p.Observe(0, 10)
	p.Observe(sec/10, 500) // a spike replaces the average at once
	if p.Value() != 500 {
		t.Fatalf("after a spike: %g, want 500", p.Value())
	}
	// Lower samples decay it with the time constant.
	p.Observe(sec/10+half, 10)
	if !near(p.Value(), 255, 1e-6) {
		t.Fatalf("half-life after the spike: %g, want 255", p.Value())
	}
	prev := p.Value()
	for i := 1; i <= 20; i++ {
		p.Observe(sec/10+half+clock.Instant(i)*sec/2, 10)
		if p.Value() >= prev || p.Value() < 10 {
			t.Fatalf("step %d: %g after %g, want a decay toward 10", i, p.Value(), prev)
		}
		prev = p.Value()
	}
	if !near(p.Value(), 10, 0.02) {
		t.Fatalf("after 10 s: %g, want about 10 (245×e^-10 above it)", p.Value())
	}
	// At decays between samples without changing the state.
	last := sec/10 + half + 20*sec/2
	if got := p.At(last + half); !near(got, p.Value()/2, 1e-6) {
		t.Fatalf("At one half-life later = %g, want %g", got, p.Value()/2)
	}
	if p.At(last) != p.Value() {
		t.Fatalf("At(last sample) = %g, want %g", p.At(last), p.Value())
	}
}

// ObservePair must give exactly what the two Observe calls give, sample for
// sample, including peaks, equal instants and a late first sample.
func TestObservePairMatchesObserve(t *testing.T) {
	tau := 100 * time.Millisecond
	e1, p1 := NewEWMA(tau), NewPeakEWMA(tau)
	e2, p2 := NewEWMA(tau), NewPeakEWMA(tau)
	x := uint64(12345)
	now := clock.Instant(0)
	for i := 0; i < 10000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		now += clock.Instant(x % uint64(50*time.Millisecond))
		if i%7 == 0 {
			now -= clock.Instant(x % 3) // same instant or a step back now and then
		}
		v := float64(x % 1e8)
		e1.Observe(now, v)
		p1.Observe(now, v)
		ObservePair(&e2, &p2, now, v)
		if e1 != e2 || p1 != p2 {
			t.Fatalf("sample %d: pair %+v %+v, separate %+v %+v", i, e2, p2, e1, p1)
		}
	}
}

// SetTau keeps the average and counts the gap so far at the old constant:
// 1 s at tau 1 s, then 2 s at tau 2 s, weigh the old value exp(-1)·exp(-1).
func TestEWMASetTauSplitsTheGap(t *testing.T) {
	s := clock.Instant(time.Second)
	e := NewEWMA(time.Second)
	e.Observe(0, 100)
	e.SetTau(s, 2*time.Second)
	if e.Value() != 100 || e.Tau != 2*time.Second {
		t.Fatalf("after SetTau: value %g, tau %v", e.Value(), e.Tau)
	}
	e.Observe(3*s, 0)
	if want := 100 * math.Exp(-2); math.Abs(e.Value()-want) > 1e-9 {
		t.Fatalf("value %g, want %g (the first second decayed at tau 1 s)", e.Value(), want)
	}
}
