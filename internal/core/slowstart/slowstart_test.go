package slowstart

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func TestFactor(t *testing.T) {
	lin := Config{Window: 10 * time.Second, Floor: 0.1, Aggression: 1}
	for _, c := range []struct {
		cfg  Config
		at   time.Duration
		want float64
	}{
		{lin, 0, 0.1},
		{lin, -time.Second, 0.1},
		{lin, 500 * time.Millisecond, 0.1}, // 0.05 is under the floor
		{lin, 2 * time.Second, 0.2},
		{lin, 7500 * time.Millisecond, 0.75},
		{lin, 10 * time.Second, 1},
		{lin, time.Hour, 1},
		// Envoy's curve: (t/w)^(1/aggression).
		{Config{Window: 10 * time.Second, Floor: 0.1, Aggression: 2}, 2500 * time.Millisecond, 0.5},
		{Config{Window: 10 * time.Second, Floor: 0.01, Aggression: 0.5}, 5 * time.Second, 0.25},
		{Config{Window: time.Second, Floor: 1, Aggression: 1}, 0, 1},
	} {
		if got := c.cfg.Factor(c.at); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%+v at %v: %g, want %g", c.cfg, c.at, got, c.want)
		}
	}
}

func TestFactorIsMonotone(t *testing.T) {
	for _, agg := range []float64{MinAggression, 0.5, 1, 1.5, MaxAggression} {
		cfg := Config{Window: time.Second, Floor: 0.05, Aggression: agg}
		prev := 0.0
		for ms := 0; ms <= 1100; ms++ {
			f := cfg.Factor(time.Duration(ms) * time.Millisecond)
			if f < prev || f < cfg.Floor || f > 1 {
				t.Fatalf("aggression %g at %d ms: %g after %g", agg, ms, f, prev)
			}
			prev = f
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for field, cfg := range map[string]Config{
		"Window":     {Window: 0, Floor: 0.1, Aggression: 1},
		"Floor":      {Window: time.Second, Floor: 0, Aggression: 1},
		"Aggression": {Window: time.Second, Floor: 0.1, Aggression: MaxAggression * 2},
	} {
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: error %v, want one naming it", field, err)
		}
	}
	if _, err := New(Config{Window: time.Second, Floor: 1.5, Aggression: 1}); err == nil {
		t.Error("a floor above 1 was accepted")
	}
}

func TestRamp(t *testing.T) {
	r, err := New(Config{Window: 10 * time.Second, Floor: 0.1, Aggression: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.Resize(3)
	s := clock.Instant(time.Second)
	if f := r.Factor(s, 1); f != 1 {
		t.Fatalf("a server never started ramps: %g", f)
	}
	r.Start(s, 1)
	if f := r.Factor(s.Add(5*time.Second), 1); f != 0.5 {
		t.Fatalf("half way: %g", f)
	}
	if f := r.Factor(s.Add(5*time.Second), 0); f != 1 {
		t.Fatalf("another server: %g", f)
	}
	if f := r.Factor(s.Add(10*time.Second), 1); f != 1 {
		t.Fatalf("after the window: %g", f)
	}
	r.Start(s.Add(20*time.Second), 1) // comes back again: a new ramp
	if f := r.Factor(s.Add(21*time.Second), 1); f != 0.1 {
		t.Fatalf("a second ramp: %g", f)
	}
	if f := r.Factor(0, 7); f != 1 {
		t.Fatalf("out of range: %g", f)
	}
}
