package limit

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func newAIMD(t *testing.T, cfg AIMDConfig) *AIMD {
	t.Helper()
	a, err := NewAIMD(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAIMDIncreasesWhileInUse(t *testing.T) {
	a := newAIMD(t, AIMDConfig{Initial: 10, Min: 1, Max: 12})
	var now clock.Instant
	a.OnSample(now, time.Millisecond, 4, false, false) // 4 x 2 < 10: not in use
	if got := a.Limit(); got != 10 {
		t.Fatalf("limit after an idle sample = %d, want 10", got)
	}
	for i, want := range []int{11, 12, 12} { // 6 x 2 >= limit; capped at Max 12
		a.OnSample(now, time.Millisecond, 6, false, false)
		if got := a.Limit(); got != want {
			t.Fatalf("sample %d: limit = %d, want %d", i, got, want)
		}
	}
}

func TestAIMDBacksOffOncePerRound(t *testing.T) {
	a := newAIMD(t, AIMDConfig{Initial: 20, SlowRTT: 50 * time.Millisecond})
	var now clock.Instant
	a.OnSample(now, time.Millisecond, 20, true, false)
	if got := a.Limit(); got != 18 {
		t.Fatalf("after a drop: limit = %d, want 18 (20 x 0.9)", got)
	}
	// The next 18 samples (a round of the new limit) cannot decrease it again.
	for i := 0; i < 18; i++ {
		a.OnSample(now, 60*time.Millisecond, 20, false, true) // slow counts as a drop
		if got := a.Limit(); got != 18 {
			t.Fatalf("drop %d within the round: limit = %d, want 18", i+1, got)
		}
	}
	a.OnSample(now, 60*time.Millisecond, 20, false, true)
	if got := a.Limit(); got != 16 {
		t.Fatalf("first drop of the next round: limit = %d, want 16 (floor 18 x 0.9)", got)
	}
}

func TestAIMDIncreasesDuringCooldown(t *testing.T) {
	a := newAIMD(t, AIMDConfig{Initial: 10})
	var now clock.Instant
	a.OnSample(now, 0, 10, true, false) // 10 -> 9, cooldown 9
	a.OnSample(now, 0, 9, false, false) // in use: 10
	if got := a.Limit(); got != 10 {
		t.Fatalf("limit = %d, want 10", got)
	}
}

func TestAIMDClampsToMin(t *testing.T) {
	a := newAIMD(t, AIMDConfig{Initial: 3, Min: 2, Max: 5, Backoff: 0.5})
	var now clock.Instant
	for i := 0; i < 20; i++ {
		a.OnSample(now, 0, 1, true, false)
	}
	if got := a.Limit(); got != 2 {
		t.Fatalf("limit = %d, want Min 2", got)
	}
}

func TestAIMDDefaults(t *testing.T) {
	a := newAIMD(t, AIMDConfig{})
	if a.Limit() != DefaultInitial || a.lo != DefaultMin || a.hi != DefaultMax || a.backoff != 0.9 || a.Name() != "aimd" {
		t.Fatalf("defaults: %+v", a)
	}
	b := newAIMD(t, AIMDConfig{Max: 8})
	if b.Limit() != 8 {
		t.Fatalf("a defaulted Initial is clamped to Max: %d, want 8", b.Limit())
	}
}

func TestAIMDConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  AIMDConfig
		want string
	}{
		{AIMDConfig{Min: -1}, "Min = -1, must be >= 1"},
		{AIMDConfig{Min: 5, Max: 4}, "Max = 4, must be >= Min (5)"},
		{AIMDConfig{Initial: 300}, "Initial = 300, must be in [Min, Max] = [1, 200]"},
		{AIMDConfig{Backoff: 1}, "Backoff = 1, must be in (0, 1)"},
		{AIMDConfig{Backoff: -0.5}, "Backoff = -0.5"},
		{AIMDConfig{SlowRTT: -1}, "SlowRTT = -1ns, must be >= 0"},
	} {
		_, err := NewAIMD(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewAIMD(%+v) = %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}
