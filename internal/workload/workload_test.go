package workload

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

const ms = time.Millisecond

func baseConfig() Config {
	return Config{
		Seed: 42, Rate: 1000, Clients: 10, Keys: 1000, ZipfS: 1.1,
		Work: rng.Exponential{Avg: 10 * ms}, Think: 100 * ms,
	}
}

func mustNew(t testing.TB, cfg Config) *Stream {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

func TestSameSeedSameStream(t *testing.T) {
	a, b := mustNew(t, baseConfig()), mustNew(t, baseConfig())
	for i := range 10_000 {
		if ra, rb := a.Next(), b.Next(); ra != rb {
			t.Fatalf("request %d differs: %+v vs %+v", i, ra, rb)
		}
	}
}

func TestDifferentSeedDifferentStream(t *testing.T) {
	cfg := baseConfig()
	a := mustNew(t, cfg)
	cfg.Seed++
	b := mustNew(t, cfg)
	sameAt, sameWork, sameKey := 0, 0, 0
	const n = 10_000
	for range n {
		ra, rb := a.Next(), b.Next()
		if ra.At == rb.At {
			sameAt++
		}
		if ra.Work == rb.Work {
			sameWork++
		}
		if ra.Key == rb.Key {
			sameKey++
		}
	}
	// Keys collide by chance (hot keys) but far from always; times and work
	// are continuous.
	if sameAt > 0 || sameWork > 0 || sameKey > n/2 {
		t.Fatalf("seeds 42 and 43 agree on %d instants, %d works, %d keys of %d", sameAt, sameWork, sameKey, n)
	}
}

func TestSeqAndOrder(t *testing.T) {
	s := mustNew(t, baseConfig())
	prev := clock.Instant(0)
	for i := range 10_000 {
		r := s.Next()
		if r.Seq != uint64(i) || r.At < prev {
			t.Fatalf("request %d: Seq %d At %v after %v", i, r.Seq, r.At, prev)
		}
		if r.Key >= 1000 || r.Client < 0 || r.Client >= 10 || r.Work < 0 {
			t.Fatalf("request %d out of range: %+v", i, r)
		}
		prev = r.At
	}
}

func TestMeanGap(t *testing.T) {
	for _, rate := range []float64{1000, 37.5} {
		cfg := baseConfig()
		cfg.Rate = rate
		s := mustNew(t, cfg)
		const n = 200_000
		var last Request
		for range n {
			last = s.Next()
		}
		mean := last.At.Seconds() / n
		t.Logf("rate %g: mean gap off by %+.3f%%", rate, 100*(mean*rate-1))
		if !within(mean, 1/rate, 0.01) {
			t.Errorf("rate %g: mean gap %gs, want %gs ± 1%%", rate, mean, 1/rate)
		}
	}
}

func TestWorkMean(t *testing.T) {
	for _, d := range []rng.Dist{rng.Exponential{Avg: 10 * ms}, rng.NewLognormal(20*ms, 0.5), rng.Constant{Value: 3 * ms}} {
		cfg := baseConfig()
		cfg.Work = d
		s := mustNew(t, cfg)
		const n = 200_000
		sum := 0.0
		for range n {
			sum += float64(s.Next().Work)
		}
		if !within(sum/n, float64(d.Mean()), 0.01) {
			t.Errorf("%v: mean work %v, want %v ± 1%%", d, time.Duration(sum/n), d.Mean())
		}
	}
}

// harmonic returns H(n, s) = Σ_{k=1..n} k^-s.
func harmonic(n int, s float64) float64 {
	h := 0.0
	for k := n; k >= 1; k-- {
		h += math.Pow(float64(k), -s)
	}
	return h
}

func TestZipfKeys(t *testing.T) {
	for _, zs := range []float64{0.8, 1.1} {
		cfg := baseConfig()
		cfg.ZipfS = zs
		s := mustNew(t, cfg)
		const n = 1_000_000
		counts := make([]int, cfg.Keys)
		for seq := range uint64(n) {
			counts[s.Draw(seq, 0).Key]++
		}
		h := harmonic(cfg.Keys, zs)
		for rank := 1; rank <= 2; rank++ {
			want := math.Pow(float64(rank), -zs) / h
			got := float64(counts[rank-1]) / n
			t.Logf("s=%g rank %d: off by %+.3f%%", zs, rank, 100*(got/want-1))
			if !within(got, want, 0.02) {
				t.Errorf("s=%g rank %d: frequency %.5f, theory %.5f (±2%%)", zs, rank, got, want)
			}
			if !within(s.KeyProb(rank-1), want, 1e-9) {
				t.Errorf("s=%g rank %d: KeyProb %.6f, theory %.6f", zs, rank, s.KeyProb(rank-1), want)
			}
		}
	}
}

func TestUniformKeysAndClients(t *testing.T) {
	cfg := baseConfig()
	cfg.ZipfS, cfg.Keys, cfg.Clients = 0, 7, 7
	s := mustNew(t, cfg)
	const n = 700_000
	var keys, clients [7]int
	for seq := range uint64(n) {
		r := s.Draw(seq, 0)
		keys[r.Key]++
		clients[r.Client]++
	}
	for i := range 7 {
		if !within(float64(keys[i]), n/7, 0.01) || !within(float64(clients[i]), n/7, 0.01) {
			t.Errorf("id %d: %d keys, %d clients, want %d ± 1%%", i, keys[i], clients[i], n/7)
		}
	}
}

func TestUnevenClients(t *testing.T) {
	cfg := baseConfig()
	cfg.UnevenClients, cfg.Clients = true, 20
	s := mustNew(t, cfg)
	const n = 500_000
	counts := make([]int, cfg.Clients)
	for seq := range uint64(n) {
		counts[s.Draw(seq, 0).Client]++
	}
	h := harmonic(cfg.Clients, 1)
	for c := range 3 {
		want := 1 / float64(c+1) / h
		if got := float64(counts[c]) / n; !within(got, want, 0.02) {
			t.Errorf("client %d: share %.4f, Zipf(1) %.4f", c, got, want)
		}
	}
}

func TestDrawMatchesNext(t *testing.T) {
	s := mustNew(t, baseConfig())
	d := mustNew(t, baseConfig())
	for range 5000 {
		r := s.Next()
		if got := d.Draw(r.Seq, r.At); got != r {
			t.Fatalf("Draw(%d) = %+v, Next gave %+v", r.Seq, got, r)
		}
	}
	// Draw is pure: order and repetition do not matter.
	a := d.Draw(77, 5)
	d.Draw(3, 1)
	if b := d.Draw(77, 5); a != b {
		t.Fatalf("Draw(77) changed: %+v vs %+v", a, b)
	}
}

func TestDrawDoesNotAllocate(t *testing.T) {
	for _, d := range []rng.Dist{rng.Exponential{Avg: ms}, rng.NewLognormal(ms, 1)} {
		cfg := baseConfig()
		cfg.Work, cfg.UnevenClients = d, true
		s := mustNew(t, cfg)
		seq := uint64(0)
		if n := testing.AllocsPerRun(1000, func() { s.Draw(seq, 0); seq++ }); n != 0 {
			t.Errorf("%v: Draw allocates %v times", d, n)
		}
		if n := testing.AllocsPerRun(1000, func() { s.Next() }); n != 0 {
			t.Errorf("%v: Next allocates %v times", d, n)
		}
	}
}

func TestThink(t *testing.T) {
	s := mustNew(t, baseConfig())
	const users, iters = 100, 2000
	sum := 0.0
	for u := range users {
		for i := range uint64(iters) {
			sum += float64(s.Think(u, i))
		}
	}
	if mean := sum / (users * iters); !within(mean, float64(100*ms), 0.02) {
		t.Errorf("mean think %v, want 100ms ± 2%%", time.Duration(mean))
	}
	// Pure: the same arguments give the same think time, after other draws
	// and from a second stream of the same config.
	first := s.Think(3, 9)
	s.Next()
	if again, twin := s.Think(3, 9), mustNew(t, baseConfig()).Think(3, 9); again != first || twin != first {
		t.Errorf("Think(3, 9) = %v, then %v, and %v from a twin stream: not a pure function", first, again, twin)
	}
	if first == s.Think(9, 3) || first == s.Think(3, 10) {
		t.Error("think times ignore their arguments")
	}
	other := baseConfig()
	other.Seed = 1
	if mustNew(t, other).Think(3, 9) == s.Think(3, 9) {
		t.Error("think time ignores the seed")
	}
	other.Think = 0
	if got := mustNew(t, other).Think(1, 1); got != 0 {
		t.Errorf("Think with mean 0 = %v", got)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		mutate func(*Config)
		field  string
	}{
		{func(c *Config) { c.Rate = -1 }, "Rate"},
		{func(c *Config) { c.Rate = math.NaN() }, "Rate"},
		{func(c *Config) { c.Rate = math.Inf(1) }, "Rate"},
		{func(c *Config) { c.Clients = 0 }, "Clients"},
		{func(c *Config) { c.Clients = MaxKeys + 1 }, "Clients"},
		{func(c *Config) { c.Keys = 0 }, "Keys"},
		{func(c *Config) { c.Keys = MaxKeys + 1 }, "Keys"},
		{func(c *Config) { c.ZipfS = -0.5 }, "ZipfS"},
		{func(c *Config) { c.ZipfS = math.Inf(1) }, "ZipfS"},
		{func(c *Config) { c.Work = nil }, "Work"},
		{func(c *Config) { c.Think = -ms }, "Think"},
	} {
		c := baseConfig()
		tc.mutate(&c)
		s, err := New(c)
		if err == nil || s != nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("New with bad %s = %v, %v; want an error naming it", tc.field, s, err)
		}
	}
	c := baseConfig()
	c.Keys, c.ZipfS = MaxKeys, 1
	if _, err := New(c); err != nil {
		t.Errorf("a million keys: %v", err)
	}
}

func BenchmarkWorkloadNext(b *testing.B) {
	s := mustNew(b, baseConfig())
	b.ReportAllocs()
	for b.Loop() {
		s.Next()
	}
}

// The alias table gives every rank exactly its Zipf probability: the mass a
// rank keeps in its own column plus what other columns alias to it.
func TestZipfAliasTableIsExact(t *testing.T) {
	for _, n := range []int{2, 7, 1000} {
		for _, s := range []float64{0.5, 1.1, 3} {
			z, err := newZipf(n, s)
			if err != nil {
				t.Fatal(err)
			}
			mass := make([]float64, n)
			for c := range n {
				k := float64(z.keep[c]) / (1 << 64)
				mass[c] += k / float64(n)
				mass[z.alias[c]] += (1 - k) / float64(n)
			}
			for r := range n {
				if math.Abs(mass[r]-z.prob(r)) > 1e-12 {
					t.Fatalf("n=%d s=%g rank %d: table gives %.15f, want %.15f", n, s, r, mass[r], z.prob(r))
				}
			}
		}
	}
}
