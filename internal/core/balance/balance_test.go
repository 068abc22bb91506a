package balance

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// testView is a View over a load.Table with a per-member down flag and
// ramp (nil ramp: every member at 1).
type testView struct {
	tb   *load.Table
	down []bool
	ramp []float64
	oks  int // Ok calls, to measure the cost of a pick
}

func newView(n int, mode load.Mode) *testView {
	return &testView{tb: load.NewTable(n, mode, time.Second), down: make([]bool, n)}
}

func (v *testView) Len() int              { return len(v.tb.Stats) }
func (v *testView) Ok(j int) bool         { v.oks++; return !v.down[j] }
func (v *testView) Load(j int) *load.Stat { return &v.tb.Stats[j] }
func (v *testView) Ramp(j int) float64 {
	if v.ramp == nil {
		return 1
	}
	return v.ramp[j]
}

func (v *testView) eligible() int {
	m := 0
	for _, d := range v.down {
		if !d {
			m++
		}
	}
	return m
}

func ms(n int) clock.Instant { return clock.Instant(time.Duration(n) * time.Millisecond) }

func names(n int) []Server {
	s := make([]Server, n)
	for j := range s {
		s[j] = Server{Name: fmt.Sprintf("s%d", j+1)}
	}
	return s
}

func mustNew(t testing.TB, cfg Config) Algorithm {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// build returns the named algorithm updated with n servers, with a small
// maglev table so tests stay fast.
func build(t testing.TB, name string, n int) Algorithm {
	t.Helper()
	a := mustNew(t, Config{Name: name, Seed: 42, Salt: 7, MaglevSize: 1009})
	a.Update(names(n))
	return a
}

func TestNamesAndDescribe(t *testing.T) {
	if len(Names) != len(registry) {
		t.Fatalf("Names has %d entries, registry %d", len(Names), len(registry))
	}
	for _, name := range Names {
		a := mustNew(t, Config{Name: name})
		if a.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, a.Name())
		}
		if Describe(name) == "" {
			t.Errorf("Describe(%q) is empty", name)
		}
		_, hasher := a.(Hasher)
		if want := name == "ring-hash" || name == "ring-hash-bounded" || name == "maglev"; hasher != want {
			t.Errorf("%s implements Hasher: %v, want %v", name, hasher, want)
		}
	}
	if Describe("nope") != "" {
		t.Error("Describe of an unknown name is not empty")
	}
}

func TestConfigErrors(t *testing.T) {
	cases := []struct {
		cfg   Config
		field string
	}{
		{Config{Name: "nope"}, "Name"},
		{Config{Name: ""}, "Name"},
		{Config{Name: "ring-hash-bounded", Epsilon: -0.5}, "Epsilon"},
		{Config{Name: "ring-hash-bounded", Epsilon: math.NaN()}, "Epsilon"},
		{Config{Name: "ring-hash-bounded", Epsilon: math.Inf(1)}, "Epsilon"},
		{Config{Name: "maglev", MaglevSize: 65536}, "MaglevSize"},
		{Config{Name: "maglev", MaglevSize: 1}, "MaglevSize"},
		{Config{Name: "maglev", MaglevSize: -7}, "MaglevSize"},
		{Config{Name: "maglev", MaglevSize: 16777259}, "MaglevSize"},
		{Config{Name: "p2c", Choices: 4}, "Choices"},
		{Config{Name: "p2c", Choices: -1}, "Choices"},
		{Config{Name: "ring-hash", VNodes: -1}, "VNodes"},
		{Config{Name: "ring-hash", VNodes: MaxVNodes + 1}, "VNodes"},
	}
	for _, c := range cases {
		a, err := New(c.cfg)
		if err == nil || a != nil {
			t.Errorf("New(%+v) = %v, %v; want an error", c.cfg, a, err)
			continue
		}
		if !strings.Contains(err.Error(), c.field) {
			t.Errorf("New(%+v) error %q does not name %s", c.cfg, err, c.field)
		}
	}
	for _, ok := range []Config{
		{Name: "maglev", MaglevSize: 251}, {Name: "p2c", Choices: 1}, {Name: "p2c", Choices: 3},
		{Name: "ring-hash-bounded", Epsilon: 0.01, VNodes: 1},
	} {
		if _, err := New(ok); err != nil {
			t.Errorf("New(%+v): %v", ok, err)
		}
	}
}

func TestIneligibleNeverPicked(t *testing.T) {
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 7, 40} {
				a, v := build(t, name, n), newView(n, load.Local)
				for seq := uint64(0); seq < 2000; seq++ {
					for j := range v.down {
						v.down[j] = (seq*7+uint64(j)*13)%5 < 3
					}
					j := a.Pick(ms(int(seq)), Request{Seq: seq, Key: seq * 31}, v)
					if j < 0 && v.eligible() > 0 || j >= 0 && (j >= n || v.down[j]) {
						t.Fatalf("n=%d seq=%d: picked %d, down=%v", n, seq, j, v.down)
					}
					if j >= 0 {
						v.tb.Sent(ms(int(seq)), j)
					}
				}
			}
		})
	}
}

func TestNoneEligible(t *testing.T) {
	for _, name := range Names {
		a := build(t, name, 5)
		v := newView(5, load.Local)
		for j := range v.down {
			v.down[j] = true
		}
		if j := a.Pick(0, Request{Seq: 1, Key: 1}, v); j != -1 {
			t.Errorf("%s: all down, picked %d", name, j)
		}
		empty := mustNew(t, Config{Name: name})
		empty.Update(nil)
		if j := empty.Pick(0, Request{Seq: 1}, newView(0, load.Local)); j != -1 {
			t.Errorf("%s: no servers, picked %d", name, j)
		}
		if h, ok := empty.(Hasher); ok && h.Owner(5) != -1 {
			t.Errorf("%s: Owner with no servers = %d", name, h.Owner(5))
		}
	}
}

// TestRandomIsConstantTime checks that a random choice among 1000 members
// with a tenth of them down costs a few eligibility checks, not a scan.
func TestRandomIsConstantTime(t *testing.T) {
	for _, name := range []string{"random", "p2c", "p2c-stale", "p2c-peak-ewma"} {
		a, v := build(t, name, 1000), newView(1000, load.Local)
		for j := range v.down {
			v.down[j] = j%10 == 0
		}
		const picks = 10000
		for seq := uint64(0); seq < picks; seq++ {
			a.Pick(0, Request{Seq: seq}, v)
		}
		if per := float64(v.oks) / picks; per > 5 {
			t.Errorf("%s: %.1f eligibility checks per pick, want O(1)", name, per)
		}
	}
}

// TestMaglevWithEveryMemberOutIsCheap: with no member eligible (every
// breaker open), a maglev pick answers -1 after a few checks per member
// instead of visiting every slot of its 65537-slot table (which made one
// simulated lab take 20 s).
func TestMaglevWithEveryMemberOutIsCheap(t *testing.T) {
	a, v := mustNew(t, Config{Name: "maglev"}), newView(6, load.Local)
	a.Update(names(6))
	for j := range v.down {
		v.down[j] = true
	}
	const picks = 100
	for seq := uint64(0); seq < picks; seq++ {
		if j := a.Pick(0, Request{Seq: seq, Key: seq}, v); j != -1 {
			t.Fatalf("picked %d with every member out", j)
		}
	}
	if per := v.oks / picks; per > 50 {
		t.Errorf("%d eligibility checks per pick with every member out, want a few per member", per)
	}
	v.down[4] = false // one back: the walk still finds it
	for seq := uint64(0); seq < picks; seq++ {
		if j := a.Pick(0, Request{Seq: seq, Key: seq}, v); j != 4 {
			t.Fatalf("picked %d, want the one eligible member 4", j)
		}
	}
}

func TestPickDoesNotAllocate(t *testing.T) {
	for _, name := range Names {
		for _, n := range []int{16, 1000} {
			a, v := build(t, name, n), newView(n, load.Local)
			for j := range v.down {
				v.down[j] = j%4 == 1
				v.tb.Report(j, load.Report{At: ms(1), Valid: true, Queued: j % 3, InService: 1})
			}
			var seq uint64
			allocs := testing.AllocsPerRun(200, func() {
				seq++
				a.Pick(ms(5), Request{Seq: seq, Key: seq}, v)
			})
			if allocs != 0 {
				t.Errorf("%s with %d servers: %v allocations per pick", name, n, allocs)
			}
		}
	}
}

func TestPickBeforeUpdateAndMismatchedView(t *testing.T) {
	for _, name := range Names {
		a := mustNew(t, Config{Name: name, MaglevSize: 251})
		v := newView(4, load.Local)
		if j := a.Pick(0, Request{Seq: 1}, v); j >= 4 {
			t.Errorf("%s before Update: picked %d", name, j)
		}
		a.Update(names(8))
		if j := a.Pick(0, Request{Seq: 2, Key: 3}, v); j >= 4 {
			t.Errorf("%s with a shorter view: picked %d", name, j)
		}
	}
}

func BenchmarkPick(b *testing.B) {
	for _, name := range Names {
		b.Run(name, func(b *testing.B) {
			a := mustNew(b, Config{Name: name, Seed: 1})
			a.Update(names(16))
			v := newView(16, load.Local)
			for j := range v.tb.Stats {
				for k := 0; k < j%4; k++ {
					v.tb.Sent(0, j)
				}
				v.tb.Done(ms(1), j, time.Duration(j+1)*time.Millisecond)
				v.tb.Report(j, load.Report{At: ms(1), Valid: true, Queued: j % 3, InService: j % 2})
			}
			b.ReportAllocs()
			var seq uint64
			for b.Loop() {
				seq++
				a.Pick(ms(2), Request{Seq: seq, Key: seq}, v)
			}
		})
	}
}

func FuzzPick(f *testing.F) {
	f.Add(uint8(0), uint8(5), uint64(1), uint64(2), []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, false)
	f.Add(uint8(9), uint8(3), uint64(9), uint64(0), []byte{255, 0, 255}, true)
	f.Add(uint8(11), uint8(0), uint64(0), uint64(0), []byte{}, false)
	f.Fuzz(func(t *testing.T, algo, n uint8, seq, key uint64, loads []byte, mismatch bool) {
		name := Names[int(algo)%len(Names)]
		ap := 0
		if SupportsAperture(name) {
			ap = int(key % 4)
		}
		a, err := New(Config{Name: name, Seed: seq >> 7, Salt: key >> 3, Choices: int(algo/16)%3 + 1,
			MaglevSize: 251, VNodes: int(n%20) + 1, RotatingStart: algo&1 == 1, Aperture: ap, Peer: int(seq % 3), Peers: 3})
		if err != nil {
			t.Fatal(err)
		}
		m := int(n % 64)
		if mismatch {
			m = len(loads) % 64
		}
		a.Update(names(int(n % 64)))
		v := fuzzView(m, loads)
		for i := uint64(0); i < 4; i++ {
			now := clock.Instant(int64(key%1e12) + int64(i)*int64(time.Millisecond))
			j := a.Pick(now, Request{Seq: seq + i, Key: key ^ i}, v)
			if j < -1 || j >= m || j >= 0 && v.down[j] {
				t.Fatalf("%s: picked %d of %d, down=%v", name, j, m, v.down)
			}
			if j < 0 && !mismatch && v.eligible() > 0 {
				t.Fatalf("%s: picked -1 with %d eligible", name, v.eligible())
			}
		}
	})
}

// fuzzView makes n members whose eligibility, loads, reports and latencies
// come from the fuzzer's bytes.
func fuzzView(n int, b []byte) *testView {
	v := newView(n, load.Mode(len(b)%2))
	at := func(i int) int {
		if len(b) == 0 {
			return 0
		}
		return int(b[i%len(b)])
	}
	for j := 0; j < n; j++ {
		x := at(j)
		v.down[j] = x%3 == 0
		for k := 0; k < x%7; k++ {
			v.tb.Sent(0, j)
		}
		if x%5 != 0 {
			v.tb.Report(j, load.Report{At: clock.Instant(x) * clock.Instant(time.Millisecond), Valid: true, Queued: x % 11, InService: x % 4})
		}
		if x%2 == 0 {
			v.tb.Done(clock.Instant(at(j+1))*clock.Instant(time.Millisecond), j, time.Duration(x)*time.Millisecond)
		}
	}
	return v
}
