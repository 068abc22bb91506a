package outlier

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

const ms = clock.Instant(time.Millisecond)

func base() Config {
	return Config{ConsecutiveFailures: 5, Interval: time.Second, BaseEjection: 2 * time.Second,
		MaxEjection: 5 * time.Second, MaxShare: 0.5, SuccessRateK: 1.9, LatencyK: 1.9, MinRequests: 10}
}

type change struct {
	at     clock.Instant
	server int
	c      Change
}

func newTest(t *testing.T, cfg Config, n int) (*Detector, *[]change) {
	t.Helper()
	d, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d.Resize(n)
	var log []change
	d.OnChange = func(now clock.Instant, i int, c Change) { log = append(log, change{now, i, c}) }
	return d, &log
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		edit  func(*Config)
		field string
	}{
		{func(c *Config) { c.ConsecutiveFailures = -1 }, "ConsecutiveFailures"},
		{func(c *Config) { c.ConsecutiveFailures = MaxConsecutive + 1 }, "ConsecutiveFailures"},
		{func(c *Config) { c.Interval = 0 }, "Interval"},
		{func(c *Config) { c.BaseEjection = 0 }, "BaseEjection"},
		{func(c *Config) { c.MaxEjection = time.Second }, "MaxEjection"},
		{func(c *Config) { c.MaxShare = 0 }, "MaxShare"},
		{func(c *Config) { c.MaxShare = 1.5 }, "MaxShare"},
		{func(c *Config) { c.SuccessRateK = -1 }, "SuccessRateK"},
		{func(c *Config) { c.LatencyK = MaxK + 1 }, "LatencyK"},
		{func(c *Config) { c.MinRequests = 0 }, "MinRequests"},
	}
	for _, tc := range cases {
		cfg := base()
		tc.edit(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: error %v, want one naming the field", tc.field, err)
		}
	}
	if _, err := New(base()); err != nil {
		t.Fatal(err)
	}
}

func TestAllowedShare(t *testing.T) {
	for _, c := range []struct {
		share float64
		n     int
		want  int
	}{{0.1, 5, 0}, {0.2, 5, 1}, {0.5, 5, 2}, {1, 5, 5}, {0.3, 10, 3}, {0.29, 100, 29}, {0.7, 10, 7}} {
		if got := (Config{MaxShare: c.share}).Allowed(c.n); got != c.want {
			t.Errorf("Allowed(%g of %d) = %d, want %d", c.share, c.n, got, c.want)
		}
	}
}

// Five failures in a row eject at once; the k-th ejection lasts
// min(k x base, max); the server returns at the first call after that; a
// success in between resets the run.
func TestConsecutiveFailuresEject(t *testing.T) {
	d, log := newTest(t, base(), 4)
	now := clock.Instant(0)
	fail := func(i, n int) {
		for range n {
			now += ms
			d.Observe(now, i, false, time.Millisecond)
		}
	}
	fail(1, 4)
	d.Observe(now, 1, true, time.Millisecond)
	fail(1, 4)
	if d.Ejected(1) {
		t.Fatal("ejected after runs of 4 failures broken by a success")
	}
	fail(1, 1)
	if !d.Ejected(1) || len(*log) != 1 || (*log)[0].c.For != 2*time.Second {
		t.Fatalf("after 5 failures in a row: ejected %v, log %+v", d.Ejected(1), *log)
	}
	if want := "outlier s2: ejected for 2s (5 failures in a row)"; (*log)[0].c.Describe("s2") != want {
		t.Errorf("Describe = %q, want %q", (*log)[0].c.Describe("s2"), want)
	}
	at := now
	if got := d.NextDeadline(); got != 1000*ms {
		t.Errorf("next deadline %v, want the interval's end 1s", got)
	}
	d.Advance(at + 2000*ms - 1)
	if !d.Ejected(1) {
		t.Fatal("back before its 2 s were up")
	}
	now = at + 2000*ms
	d.Advance(now)
	if d.Ejected(1) || len(*log) != 2 || (*log)[1].c.Ejected || (*log)[1].at != now {
		t.Fatalf("after 2 s: ejected %v, log %+v", d.Ejected(1), *log)
	}
	fail(1, 5) // again at once: 2 x base
	fail(1, 0)
	if (*log)[2].c.For != 4*time.Second {
		t.Fatalf("second ejection for %v, want 4s", (*log)[2].c.For)
	}
	now += 4000 * ms
	d.Advance(now)
	fail(1, 5) // third: 3 x 2 s capped at 5 s
	if (*log)[4].c.For != 5*time.Second {
		t.Fatalf("third ejection for %v, want the 5 s cap", (*log)[4].c.For)
	}
	// After it returns, each whole interval in rotation takes one off the
	// multiplier: three clean intervals bring a new ejection back to 2 s.
	now += 5000 * ms
	d.Advance(now)
	now = (now/(1000*ms) + 2) * 1000 * ms // one whole interval: 3 -> 2
	d.Advance(now)
	now += 1000 * ms // 2 -> 1
	d.Advance(now)
	fail(1, 5)
	if got := (*log)[len(*log)-1].c.For; got != 4*time.Second {
		t.Fatalf("ejection after two clean intervals for %v, want 4s (multiplier 3 - 2 + 1)", got)
	}
	now += 4000 * ms
	d.Advance(now)
	now = (now/(1000*ms) + 4) * 1000 * ms // three whole intervals at once: 2 -> 0
	d.Advance(now)
	fail(1, 5)
	if got := (*log)[len(*log)-1].c.For; got != 2*time.Second {
		t.Fatalf("ejection after three clean intervals for %v, want 2s", got)
	}
}

// feed gives each server `answers` answers in the interval ending at the
// next multiple of a second, with success rate rate[i] and latency lat[i]
// (plus a small per-answer jitter), then runs the sweep.
func feed(d *Detector, now *clock.Instant, answers int, rate []float64, lat []time.Duration) {
	for k := range answers {
		for i := range rate {
			ok := float64(k) < rate[i]*float64(answers)
			jitter := time.Duration(rng.Bounded(rng.Hash(1, uint64(k), uint64(i)), 100)) * time.Microsecond
			d.Observe(*now, i, ok, lat[i]+jitter)
		}
		*now += ms
	}
	*now = (*now/(1000*ms) + 1) * 1000 * ms
	d.Advance(*now)
}

func repeat[T any](x T, n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = x
	}
	return out
}

// One outlier among n-1 equal peers sits sqrt(n-1) standard deviations from
// the mean (2 for five servers): K 1.9 ejects it, K 2.1 cannot.
func TestSuccessRateOutlier(t *testing.T) {
	for _, c := range []struct {
		k     float64
		eject bool
	}{{1.9, true}, {2.1, false}} {
		cfg := base()
		cfg.ConsecutiveFailures, cfg.LatencyK, cfg.SuccessRateK = 0, 0, c.k
		d, log := newTest(t, cfg, 5)
		now := clock.Instant(0)
		rate := []float64{1, 1, 0.6, 1, 1}
		feed(d, &now, 50, rate, repeat(10*time.Millisecond, 5))
		if d.Ejected(2) != c.eject {
			t.Errorf("K %g: ejected %v, want %v (log %+v)", c.k, d.Ejected(2), c.eject, *log)
		}
		if c.eject && !strings.Contains((*log)[0].c.Why, "success rate 0.6 < 0.92 - 1.9 x 0.16") {
			t.Errorf("reason %q", (*log)[0].c.Why)
		}
	}
}

func TestLatencyOutlier(t *testing.T) {
	cfg := base()
	cfg.ConsecutiveFailures, cfg.SuccessRateK = 0, 0
	d, log := newTest(t, cfg, 5)
	now := clock.Instant(0)
	lat := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond,
		10 * time.Millisecond, 100 * time.Millisecond}
	feed(d, &now, 50, repeat(1.0, 5), lat)
	if !d.Ejected(4) || len(*log) != 1 {
		t.Fatalf("the slow server was not ejected alone: %+v", *log)
	}
	if why := (*log)[0].c.Why; !strings.HasPrefix(why, "latency 100ms > 28ms + 1.9 x 36ms") {
		t.Errorf("reason %q", why)
	}
	// Equal latencies (jitter only) eject nothing.
	d2, log2 := newTest(t, cfg, 5)
	feed(d2, &now, 50, repeat(1.0, 5), repeat(10*time.Millisecond, 5))
	if len(*log2) != 0 {
		t.Errorf("equal peers: %+v", *log2)
	}
}

// The statistics judge only servers with MinRequests answers in the
// interval, and only when MinHosts of them have that many.
func TestStatisticsNeedVolume(t *testing.T) {
	cfg := base()
	cfg.ConsecutiveFailures = 0
	d, log := newTest(t, cfg, 5)
	now := clock.Instant(0)
	lat := append(repeat(10*time.Millisecond, 4), 200*time.Millisecond)
	feed(d, &now, 9, repeat(1.0, 5), lat) // 9 answers each, MinRequests is 10
	if len(*log) != 0 {
		t.Fatalf("judged servers with too few answers: %+v", *log)
	}
	d3, log3 := newTest(t, cfg, 3)
	feed(d3, &now, 50, []float64{1, 1, 1}, []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 900 * time.Millisecond})
	if len(*log3) != 0 { // three hosts: at most sqrt(2) = 1.41 standard deviations out
		t.Fatalf("three hosts, K 1.9: %+v", *log3)
	}
	d2, log2 := newTest(t, cfg, 2)
	feed(d2, &now, 50, []float64{1, 0}, []time.Duration{10 * time.Millisecond, 10 * time.Millisecond})
	if len(*log2) != 0 {
		t.Fatalf("two hosts are fewer than MinHosts: %+v", *log2)
	}
}

// Never more than floor(MaxShare x active) are out, whatever the answers;
// removing servers brings back the ones due back soonest.
func TestEjectionShareNeverExceeded(t *testing.T) {
	for _, share := range []float64{0.1, 0.2, 0.5, 1} {
		cfg := base()
		cfg.MaxShare, cfg.ConsecutiveFailures, cfg.MinRequests = share, 2, 3
		d, _ := newTest(t, cfg, 10)
		now := clock.Instant(0)
		most := 0
		for k := uint64(0); k < 20000; k++ {
			now += ms / 4
			i := int(rng.Bounded(rng.Hash(7, k, 1), 10))
			bad := i < 6 // six of ten servers fail most of the time
			ok := rng.HashFloat(7, k, 2) < map[bool]float64{true: 0.2, false: 0.99}[bad]
			d.Observe(now, i, ok, time.Duration(1+i)*time.Millisecond)
			if k == 10000 {
				for j := range 5 {
					d.SetActive(now, j, false)
				}
			}
			ej, allowed := d.Count()
			if ej > allowed {
				t.Fatalf("share %g at %v: %d ejected, %d allowed", share, now, ej, allowed)
			}
			most = max(most, ej)
		}
		if want := min(cfg.Allowed(10), 6); most != want {
			t.Errorf("share %g: at most %d out at once, want %d (the limit, or the six failing servers)", share, most, want)
		}
	}
}

// Events come in order: an ejection, then its return, each once.
func TestChangesAlternate(t *testing.T) {
	d, log := newTest(t, base(), 6)
	now := clock.Instant(0)
	for k := uint64(0); k < 50000; k++ {
		now += ms / 2
		i := int(k % 6)
		d.Observe(now, i, rng.HashFloat(3, k, uint64(i)) < 0.3+0.12*float64(i), time.Millisecond)
	}
	out := map[int]bool{}
	for _, c := range *log {
		if out[c.server] == c.c.Ejected {
			t.Fatalf("server %d: %v twice in a row (log %v)", c.server, c.c.Ejected, fmt.Sprint(*log))
		}
		out[c.server] = c.c.Ejected
	}
	if len(*log) < 10 {
		t.Fatalf("only %d changes", len(*log))
	}
}

// Near-identical peers make the raw standard deviation tiny: a server 8%
// slower would sit 2 of them above the mean. The spread counts as at least
// MinSpread of the mean, so it is not an outlier.
func TestMinSpread(t *testing.T) {
	cfg := base()
	cfg.ConsecutiveFailures, cfg.SuccessRateK = 0, 0
	d, log := newTest(t, cfg, 5)
	now := clock.Instant(0)
	lat := append(repeat(10*time.Millisecond, 4), 10800*time.Microsecond)
	feed(d, &now, 50, repeat(1.0, 5), lat)
	if len(*log) != 0 {
		t.Fatalf("a server 8%% slower than identical peers was ejected: %+v", *log)
	}
}
