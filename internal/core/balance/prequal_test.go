package balance

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

func newPrequalFor(t *testing.T, n int, cfg Prequal) *prequal {
	t.Helper()
	a := mustNew(t, Config{Name: "prequal", Seed: 3, Salt: 5, Prequal: cfg})
	a.Update(names(n))
	return a.(*prequal)
}

// answer hands member j's answer (rif, latency in ms) at instant at (ms).
func answer(q *prequal, j, rif int, latencyMs float64, at int) {
	q.Probed(ms(at), j, uint64(1000+j), load.Probe{RIF: rif, Latency: time.Duration(latencyMs * float64(time.Millisecond))})
}

func poolMembers(q *prequal) []int {
	var out []int
	for _, e := range q.pool {
		out = append(out, e.j)
	}
	slices.Sort(out)
	return out
}

// The hot-cold lexicographic rule, reuse's +1 and removal by hand, on five
// members (a pool as large as the fleet: no reuse limit). Q_RIF 0.84
// interpolates between the sorted RIFs, so the top one is hot when it
// stands above the others.
func TestPrequalHotColdRule(t *testing.T) {
	q := newPrequalFor(t, 5, DefaultPrequal())
	v := newView(5, load.Local)
	for j, a := range []struct {
		rif int
		ms  float64
	}{{1, 50}, {2, 10}, {3, 30}, {4, 5}, {20, 1}} {
		answer(q, j, a.rif, a.ms, j) // member j answers at j ms
	}
	steps := []struct {
		pick     int
		pool     []int
		why      string
		rifAfter map[int]int
	}{
		// RIFs 1 2 3 4 20: threshold 4 + 0.36 x 16 = 9.76, member 4 (20) hot despite its 1 ms;
		// the cold one of lowest latency is member 3 (5 ms); then the oldest (member 0) goes
		{3, []int{1, 2, 3, 4}, "cold and fastest", map[int]int{3: 5}},
		// RIFs 2 3 5 20: member 4 still hot, member 3 still the fastest cold one (RIF 6 now);
		// then the worst goes: the hot one of highest RIF, member 4
		{3, []int{1, 2, 3}, "reused", map[int]int{3: 6}},
		// RIFs 2 3 6: threshold 3 + 0.68 x 3 = 5.04, member 3 (6) hot now: member 1 (10 ms);
		// then the oldest, member 1
		{1, []int{2, 3}, "member 3 turned hot", nil},
		// RIFs 3 6: threshold 3 + 0.84 x 3 = 5.52: member 3 hot, member 2 cold; then the worst, member 3
		{2, []int{2}, "the only cold one", nil},
		// one answer left, cold: it serves, then goes as the oldest
		{2, nil, "alone", nil},
	}
	for i, s := range steps {
		got := q.Pick(ms(10+i), Request{Seq: uint64(i)}, v)
		if got != s.pick {
			t.Fatalf("pick %d (%s): member %d, want %d", i+1, s.why, got, s.pick)
		}
		if m := poolMembers(q); !slices.Equal(m, s.pool) {
			t.Fatalf("after pick %d: pool %v, want %v", i+1, m, s.pool)
		}
		for j, rif := range s.rifAfter {
			for _, e := range q.pool {
				if e.j == j && e.rif != rif {
					t.Errorf("after pick %d: member %d's RIF is %d, want %d (one per pick it served)", i+1, j, e.rif, rif)
				}
			}
		}
	}
	// An empty pool: a member drawn among the eligible ones.
	v.down[0], v.down[1], v.down[2], v.down[3] = true, true, true, true
	if got := q.Pick(ms(20), Request{Seq: 99}, v); got != 4 {
		t.Errorf("an empty pool with one eligible member picks %d, want 4", got)
	}
}

// All hot: the lowest RIF wins whatever its latency. The threshold is over
// the whole pool, so when the coldest answer is of a member that is not
// eligible, every eligible one may be hot. Q_RIF 0 makes every answer
// above the lowest RIF hot; Q_RIF 1 none.
func TestPrequalAllHotLowestRIF(t *testing.T) {
	cfg := DefaultPrequal()
	cfg.QRIF = 0
	q := newPrequalFor(t, 4, cfg)
	v := newView(4, load.Local)
	answer(q, 0, 0, 100, 0)  // the coldest, not eligible below
	answer(q, 1, 9, 1, 1)    // hot, fastest
	answer(q, 2, 7, 80, 2)   // hot, lowest RIF of the eligible
	answer(q, 3, 12, 0.5, 3) // hot
	v.down[0] = true
	if got := q.Pick(ms(5), Request{Seq: 1}, v); got != 2 {
		t.Errorf("all eligible hot: picked %d, want 2 (lowest RIF)", got)
	}

	cfg.QRIF = 1 // nothing is hot: the fastest
	q = newPrequalFor(t, 3, cfg)
	answer(q, 0, 40, 9, 0)
	answer(q, 1, 1, 50, 1)
	answer(q, 2, 90, 2, 2)
	if got := q.Pick(ms(5), Request{Seq: 1}, newView(3, load.Local)); got != 2 {
		t.Errorf("Q_RIF 1: picked %d, want 2 (the fastest, however loaded)", got)
	}
}

// b_reuse = max(1, (1 + δ) / ((1 - m/n) r_probe - r_remove)) by hand, its
// random rounding, and an answer leaving the pool once it served its
// budget.
func TestPrequalReuseBudget(t *testing.T) {
	cfg := DefaultPrequal() // m 16, r_probe 3, δ 1
	q := newPrequalFor(t, 40, cfg)
	for _, c := range []struct {
		n    int
		want float64
	}{
		{100, 2 / (0.84*3 - 1)},   // 1.3158
		{40, 2 / (0.6*3 - 1)},     // 2.5
		{1000, 2 / (0.984*3 - 1)}, // 1.0246
		{20, math.Inf(1)},         // 2 / (0.2 x 3 - 1) < 0: no limit ...
		{16, math.Inf(1)},         // ... nor with a pool as large as the fleet
	} {
		if got := q.reuseBudget(c.n); got != c.want && math.Abs(got-c.want) > 1e-9 {
			t.Errorf("b_reuse over %d members: %v, want %v", c.n, got, c.want)
		}
	}
	low := cfg
	low.ReuseDelta = 0
	if got := newPrequalFor(t, 2, low).reuseBudget(1000); got != 1 {
		t.Errorf("b_reuse with δ 0 over 1000 members: %v, want 1 (1 / 1.952, at least 1)", got)
	}
	if b := q.budget(40, 0.49); b != 3 {
		t.Errorf("2.5 rounded with a draw under its half: %d, want 3", b)
	}
	if b := q.budget(40, 0.51); b != 2 {
		t.Errorf("2.5 rounded with a draw over its half: %d, want 2", b)
	}
	if b := q.budget(16, 0.1); b != 0 {
		t.Errorf("no limit is budget %d, want 0", b)
	}
	// Drawn per answer: about half of them 3.
	threes := 0
	for seq := range uint64(2000) {
		q.Probed(ms(0), 7, seq, load.Probe{RIF: 1})
		if q.pool[len(q.pool)-1].budget == 3 {
			threes++
		}
	}
	if threes < 900 || threes > 1100 {
		t.Errorf("%d of 2000 answers may serve 3 picks, want about half", threes)
	}

	// Member 9's answer, the newest and fastest, serves its budget, then
	// goes; the removals take the others meanwhile (oldest, then worst).
	q = newPrequalFor(t, 40, cfg)
	v := newView(40, load.Local)
	for j := range 6 {
		answer(q, j, 5, float64(20+j), j)
	}
	answer(q, 9, 0, 1, 10) // the least loaded: cold however often it serves here
	budget := q.pool[len(q.pool)-1].budget
	if budget != 2 && budget != 3 {
		t.Fatalf("member 9's budget is %d, want 2 or 3", budget)
	}
	for k := range budget {
		if got := q.Pick(ms(11), Request{Seq: uint64(k)}, v); got != 9 {
			t.Fatalf("pick %d: %d, want 9", k+1, got)
		}
	}
	if slices.Contains(poolMembers(q), 9) {
		t.Errorf("member 9's answer served its budget of %d and stays: %v", budget, poolMembers(q))
	}
	if got := q.Pick(ms(11), Request{Seq: 50}, v); got == 9 || got < 0 {
		t.Errorf("after member 9's answer left: picked %d", got)
	}
}

// The pool: one answer per member (the newer replaces the older), at most
// PoolSize of them (a newcomer replaces the oldest), none older than
// MaxAge; a member list change keeps the answers of the members that stay.
func TestPrequalPool(t *testing.T) {
	cfg := DefaultPrequal()
	cfg.PoolSize = 3
	q := newPrequalFor(t, 6, cfg)
	answer(q, 0, 5, 10, 0)
	answer(q, 1, 5, 10, 1)
	answer(q, 0, 2, 3, 2) // member 0 again: replaces its answer
	if m := poolMembers(q); !slices.Equal(m, []int{0, 1}) {
		t.Fatalf("pool %v, want 0 and 1", m)
	}
	answer(q, 2, 5, 10, 3)
	answer(q, 3, 5, 10, 4) // full: the oldest (member 1, at 1 ms) goes
	if m := poolMembers(q); !slices.Equal(m, []int{0, 2, 3}) {
		t.Fatalf("pool %v, want 0 2 3", m)
	}
	var p []PoolEntry
	if p = q.Pool(p); len(p) != 3 {
		t.Errorf("Pool shows %d answers", len(p))
	}

	q.Update(names(6)[2:]) // s1 and s2 leave: s3 and s4 are members 0 and 1 now
	if m := poolMembers(q); !slices.Equal(m, []int{0, 1}) {
		t.Fatalf("after s1 and s2 left: pool %v, want 0 1 (s3, s4)", m)
	}

	// An answer older than MaxAge is dropped: with none left the pick is drawn.
	q = newPrequalFor(t, 2, DefaultPrequal())
	answer(q, 1, 0, 1, 0)
	v := newView(2, load.Local)
	picks := map[int]int{}
	for seq := range uint64(200) {
		q2 := newPrequalFor(t, 2, DefaultPrequal())
		answer(q2, 1, 0, 1, 0)
		picks[q2.Pick(clock.Instant(DefaultMaxAge)+ms(1), Request{Seq: seq}, v)]++
	}
	if picks[0] < 60 || picks[1] < 60 {
		t.Errorf("with every answer too old the picks are %v, want about half each", picks)
	}
	if got := q.Pick(clock.Instant(DefaultMaxAge), Request{Seq: 1}, v); got != 1 {
		t.Errorf("an answer exactly MaxAge old still counts: picked %d, want 1", got)
	}
}

// The probes: ProbeRate per pick on average (2.5: two, and a third half of
// the time), to distinct eligible members, uniform among them, the same
// for the same pick number.
func TestPrequalProbeTargets(t *testing.T) {
	cfg := DefaultPrequal()
	cfg.ProbeRate = 2.5
	q := newPrequalFor(t, 8, cfg)
	v := newView(8, load.Local)
	v.down[3] = true
	counts, per := map[int]int{}, make([]int, 8)
	for seq := range uint64(4000) {
		got := q.ProbeTargets(0, Request{Seq: seq}, v, nil)
		counts[len(got)]++
		seen := map[int]bool{}
		for _, j := range got {
			if j == 3 || seen[j] {
				t.Fatalf("pick %d probes %v: an ineligible or repeated member", seq, got)
			}
			seen[j] = true
			per[j]++
		}
		if again := q.ProbeTargets(0, Request{Seq: seq}, v, nil); !slices.Equal(again, got) {
			t.Fatalf("pick %d probes %v, then %v", seq, got, again)
		}
	}
	if counts[2]+counts[3] != 4000 || counts[3] < 1800 || counts[3] > 2200 {
		t.Errorf("probes per pick: %v, want 2 or 3, 3 about half the time", counts)
	}
	want := float64(4000*2.5) / 7 // over the 7 eligible members
	for j, n := range per {
		if j != 3 && math.Abs(float64(n)-want) > 0.1*want {
			t.Errorf("member %d probed %d times, want about %.0f", j, n, want)
		}
	}
	v.down = []bool{true, false, true, true, true, true, true, true}
	if got := q.ProbeTargets(0, Request{Seq: 1}, v, nil); !slices.Equal(got, []int{1}) {
		t.Errorf("one eligible member: probes %v, want [1]", got)
	}
}

// Every field of the configuration is checked; the zero value takes the
// paper's defaults.
func TestPrequalConfig(t *testing.T) {
	if q := newPrequalFor(t, 2, Prequal{}); q.cfg != DefaultPrequal() {
		t.Errorf("the zero configuration is %+v, want the defaults", q.cfg)
	}
	for _, bad := range []Prequal{
		{ProbeRate: 0, PoolSize: 16, MaxAge: time.Second, QRIF: 0.84},
		{ProbeRate: 17, PoolSize: 16, MaxAge: time.Second, QRIF: 0.84},
		{ProbeRate: 3, PoolSize: 65, MaxAge: time.Second, QRIF: 0.84},
		{ProbeRate: 3, PoolSize: 16, MaxAge: 0, QRIF: 0.84},
		{ProbeRate: 3, PoolSize: 16, MaxAge: time.Second, QRIF: 1.5},
		{ProbeRate: 3, PoolSize: 16, MaxAge: time.Second, QRIF: math.NaN()},
		{ProbeRate: 3, PoolSize: 16, MaxAge: time.Second, QRIF: 0.5, ReuseDelta: -1},
	} {
		if _, err := New(Config{Name: "prequal", Prequal: bad}); err == nil {
			t.Errorf("%+v was taken", bad)
		}
	}
}
