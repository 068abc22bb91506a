package workload

import (
	"math"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

const sec = time.Second

func testProfiles() map[string]*Profile {
	return map[string]*Profile{
		"ramp":      {Shape: Ramp, From: 100, To: 1500, Over: 60 * sec},
		"ramp-down": {Shape: Ramp, From: 1200, To: 0, Over: 50 * sec},
		"steps":     {Shape: Steps, Levels: []float64{200, 0, 1000, 500}, Every: 15 * sec},
		"sine":      {Shape: Sine, Mean: 600, Amplitude: 600, Period: 20 * sec},
		"spike":     {Shape: Spike, Base: 100, Peak: 2000, At: 20 * sec, For: 5 * sec},
	}
}

// integral is ∫ Value over [a, b] by the midpoint rule on 1 ms steps
// (exact for the linear pieces, whose ends fall on whole milliseconds here):
// an estimate independent of Advance's closed forms.
func integral(p *Profile, a, b time.Duration) float64 {
	const step = time.Millisecond
	sum := 0.0
	for t := a; t < b; t += step {
		d := min(step, b-t)
		sum += p.Value(t+d/2) * d.Seconds()
	}
	return sum
}

// The arrivals of a profile are a Poisson process of rate Value(t): the
// count in every 1 s window is within 5 standard deviations of the
// integral of the rate over it, and the total within 4.
func TestProfileArrivalCounts(t *testing.T) {
	const run = 80 * sec
	for name, p := range testProfiles() {
		cfg := baseConfig()
		cfg.Profile = p
		s := mustNew(t, cfg)
		counts := make([]int, int(run/sec))
		prev := clock.Instant(0)
		for {
			r := s.Next()
			if r.At < prev {
				t.Fatalf("%s: arrival at %v before %v", name, r.At, prev)
			}
			if r.At >= clock.Instant(run) {
				break
			}
			counts[int(r.At/clock.Instant(sec))]++
			prev = r.At
		}
		var got, want float64
		for w, c := range counts {
			exp := integral(p, time.Duration(w)*sec, time.Duration(w+1)*sec)
			if math.Abs(float64(c)-exp) > 5*math.Sqrt(exp)+1 {
				t.Errorf("%s: window %ds has %d arrivals, the rate integrates to %.1f", name, w, c, exp)
			}
			got, want = got+float64(c), want+exp
		}
		t.Logf("%s: %d arrivals, integral %.0f (%+.2f sd)", name, int(got), want, (got-want)/math.Sqrt(want))
		if math.Abs(got-want) > 4*math.Sqrt(want) {
			t.Errorf("%s: %v arrivals in all, the rate integrates to %.0f", name, got, want)
		}
	}
}

// Advance inverts the integral: the area from a to Advance(a, x) is x.
func TestProfileAdvanceInvertsIntegral(t *testing.T) {
	for name, p := range testProfiles() {
		for _, from := range []time.Duration{0, 3 * sec, 14900 * time.Millisecond, 22 * sec, 59 * sec} {
			for _, area := range []float64{0.001, 1, 250, 5000} {
				at := p.Advance(clock.Instant(from), area)
				if at == clock.Never {
					if p.Value(100*time.Hour) > 0 {
						t.Errorf("%s: Advance(%v, %g) = Never", name, from, area)
					}
					continue
				}
				got := integral(p, from, at.Duration())
				if math.Abs(got-area) > 1e-3*area+0.02 {
					t.Errorf("%s: from %v area %g: Advance = %v, whose integral is %g", name, from, area, at, got)
				}
			}
		}
	}
	ramp := &Profile{Shape: Ramp, From: 0, To: 10, Over: 10 * sec} // Λ(t) = t²/2
	if at := ramp.Advance(0, 8); at != clock.Instant(4*sec) {
		t.Errorf("ramp 0->10: area 8 reached at %v, want 4s", at)
	}
	down := &Profile{Shape: Ramp, From: 10, To: 0, Over: 10 * sec}
	if at := down.Advance(0, 50.0001); at != clock.Never {
		t.Errorf("a ramp down to 0 holds area 50; Advance past it = %v, want Never", at)
	}
}

func TestProfileDeterministicAndReplacedBySetRate(t *testing.T) {
	run := func() []Request {
		cfg := baseConfig()
		cfg.Profile = testProfiles()["sine"]
		s := mustNew(t, cfg)
		var out []Request
		for i := range 5000 {
			r := s.Next()
			out = append(out, r)
			if i == 3000 {
				if s.RateAt(r.At) != cfg.Profile.Value(r.At.Duration()) {
					t.Fatalf("RateAt(%v) = %g, profile %g", r.At, s.RateAt(r.At), cfg.Profile.Value(r.At.Duration()))
				}
				s.SetRate(r.At, 50)
				if s.Profile() != nil || s.RateAt(r.At+1e9) != 50 {
					t.Fatalf("SetRate kept the profile")
				}
			}
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("request %d differs between identical runs: %+v vs %+v", i, a[i], b[i])
		}
	}
	// After SetRate(50) the gaps have mean 1/50 s.
	mean := (a[4999].At - a[3001].At).Seconds() / 1998
	if !within(mean, 0.02, 0.1) {
		t.Errorf("after SetRate(50) the mean gap is %gs", mean)
	}
}

// A profile that is constant at the stream's rate draws the same arrivals
// as the constant rate (up to nanosecond rounding).
func TestConstantProfileMatchesRate(t *testing.T) {
	cfg := baseConfig()
	plain := mustNew(t, cfg)
	cfg.Profile = &Profile{Shape: Steps, Levels: []float64{cfg.Rate}, Every: sec}
	prof := mustNew(t, cfg)
	for i := range 20000 {
		a, b := plain.Next(), prof.Next()
		if d := a.At - b.At; d < -1000 || d > 1000 || a.Seq != b.Seq {
			t.Fatalf("arrival %d: constant %v, profile %v", i, a.At, b.At)
		}
	}
}

func TestProfileValueAndCheck(t *testing.T) {
	p := testProfiles()
	for _, c := range []struct {
		name string
		at   time.Duration
		want float64
	}{
		{"ramp", 30 * sec, 800}, {"ramp", 90 * sec, 1500}, {"steps", 16 * sec, 0}, {"steps", 31 * sec, 1000},
		{"steps", 999 * sec, 500}, {"sine", 5 * sec, 1200}, {"sine", 15 * sec, 0}, {"spike", 19 * sec, 100},
		{"spike", 20 * sec, 2000}, {"spike", 25 * sec, 100},
	} {
		if got := p[c.name].Value(c.at); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s at %v = %g, want %g", c.name, c.at, got, c.want)
		}
	}
	if m := p["spike"].Max(); m != 2000 {
		t.Errorf("spike max %g", m)
	}
	for _, bad := range []*Profile{
		{Shape: Ramp, From: -1, To: 5, Over: sec}, {Shape: Ramp, To: 5}, {Shape: Steps, Every: sec},
		{Shape: Steps, Levels: []float64{math.NaN()}, Every: sec}, {Shape: Sine, Mean: 5, Amplitude: 6, Period: sec},
		{Shape: Sine, Mean: 0, Period: sec}, {Shape: Spike, Base: 1, Peak: 2, For: 0}, {Shape: 9},
	} {
		if bad.Check() == nil {
			t.Errorf("Check(%+v) = nil", bad)
		}
		cfg := baseConfig()
		cfg.Profile = bad
		if _, err := New(cfg); err == nil {
			t.Errorf("New with profile %+v: no error", bad)
		}
	}
}

func TestFaultShares(t *testing.T) {
	cfg := baseConfig()
	cfg.Faults = []FaultShare{{Share: 0.05, Fault: Fault{Status: 503}}, {Share: 0.1, Fault: Fault{Delay: 50 * ms}}}
	s := mustNew(t, cfg)
	const n = 200_000
	var st, de int
	for seq := range uint64(n) {
		f := s.Draw(seq, 0).Fault
		switch f {
		case Fault{Status: 503}:
			st++
		case Fault{Delay: 50 * ms}:
			de++
		case Fault{}:
		default:
			t.Fatalf("request %d carries %+v", seq, f)
		}
		if s.Draw(seq, 5).Fault != f {
			t.Fatalf("request %d's fault is not a function of its number", seq)
		}
	}
	if !within(float64(st)/n, 0.05, 0.05) || !within(float64(de)/n, 0.1, 0.05) {
		t.Errorf("shares: status %g, delay %g", float64(st)/n, float64(de)/n)
	}
	// Without faults a request carries none, and the other fields do not move.
	plain := mustNew(t, baseConfig())
	for seq := range uint64(1000) {
		a, b := plain.Draw(seq, 0), s.Draw(seq, 0)
		b.Fault = Fault{}
		if a.Fault != (Fault{}) || a != b {
			t.Fatalf("request %d: faults changed other fields: %+v vs %+v", seq, a, b)
		}
	}
	for _, bad := range [][]FaultShare{{{Share: 0.7, Fault: Fault{Status: 500}}, {Share: 0.4, Fault: Fault{Status: 503}}},
		{{Share: 0.1}}, {{Share: -0.1, Fault: Fault{Status: 500}}}} {
		c := baseConfig()
		c.Faults = bad
		if _, err := New(c); err == nil {
			t.Errorf("New with faults %+v: no error", bad)
		}
	}
}
