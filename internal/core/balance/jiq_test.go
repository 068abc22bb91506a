package balance

import (
	"slices"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

func newJIQFor(t *testing.T, n int) *jiq {
	t.Helper()
	a := mustNew(t, Config{Name: "jiq", Seed: 3, Salt: 5})
	a.Update(names(n))
	return a.(*jiq)
}

// The rule by hand: announcements queue members in order, at most once; a
// pick takes the head off the queue; an ineligible head is dropped and the
// next one taken; an empty queue sends at random among the eligible.
func TestJIQTakesTheIdleQueueHead(t *testing.T) {
	q := newJIQFor(t, 6)
	v := newView(6, load.Local)
	for _, j := range []int{4, 1, 4, 2, 1} { // 4 and 1 announce twice: queued once
		q.Idle(0, j)
	}
	if got := q.IdleQueue(nil); !slices.Equal(got, []int{4, 1, 2}) {
		t.Fatalf("queue %v, want [4 1 2]: in announcement order, each once", got)
	}
	if j := q.Pick(0, Request{Seq: 1}, v); j != 4 || !q.TookIdle() {
		t.Fatalf("picked %d (from the queue: %v), want the head 4", j, q.TookIdle())
	}
	v.down[1] = true // the next head is down now: dropped, 2 taken
	if j := q.Pick(0, Request{Seq: 2}, v); j != 2 {
		t.Fatalf("picked %d, want 2 (1 is not eligible)", j)
	}
	if got := q.IdleQueue(nil); len(got) != 0 {
		t.Fatalf("queue %v after two picks, want empty: the ineligible head left too", got)
	}
	q.Idle(0, 1) // 1 announces again (its next reply): queued again
	if got := q.IdleQueue(nil); !slices.Equal(got, []int{1}) {
		t.Fatalf("queue %v, want [1]", got)
	}
	// The queue empty of eligible members: uniform among the eligible ones,
	// by the pick's number.
	counts := make([]int, 6)
	for seq := uint64(100); seq < 6100; seq++ {
		j := q.Pick(0, Request{Seq: seq}, v)
		if j < 0 || v.down[j] || q.TookIdle() {
			t.Fatalf("pick %d: %d (from the queue: %v), want an eligible member drawn", seq, j, q.TookIdle())
		}
		counts[j]++
	}
	for j, c := range counts {
		if j != 1 && (c < 1000 || c > 1400) {
			t.Errorf("member %d drawn %d of 6000 times, want about 1200 (uniform over the 5 up)", j, c)
		}
	}
	if counts[1] != 0 {
		t.Errorf("the down member drawn %d times", counts[1])
	}
	a, b := newJIQFor(t, 6), newJIQFor(t, 6)
	for seq := range uint64(50) {
		if a.Pick(0, Request{Seq: seq}, v) != b.Pick(0, Request{Seq: seq}, v) {
			t.Fatal("two jiqs of the same seed pick differently from an empty queue")
		}
	}
	v.down = []bool{true, true, true, true, true, true}
	q.Idle(0, 3)
	if j := q.Pick(0, Request{Seq: 1}, v); j != -1 {
		t.Errorf("picked %d with no member eligible, want -1", j)
	}
}

// The queue reuses its storage: a long run of announcements and picks
// keeps it at most as long as the fleet and allocates nothing.
func TestJIQQueueStaysBounded(t *testing.T) {
	q := newJIQFor(t, 8)
	v := newView(8, load.Local)
	allocs := testing.AllocsPerRun(100, func() {
		for j := range 8 {
			q.Idle(0, j)
		}
		for k := range 5 {
			q.Pick(0, Request{Seq: uint64(k)}, v)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations a round, want 0", allocs)
	}
	if n := len(q.IdleQueue(nil)); n > 8 || cap(q.queue) > 16 {
		t.Errorf("queue of %d (capacity %d) for 8 members", n, cap(q.queue))
	}
}

// A member list change keeps the queued members that stay, in order, at
// their new indices; a member that left is gone from the queue.
func TestJIQUpdateKeepsTheQueue(t *testing.T) {
	q := newJIQFor(t, 4) // s1..s4
	for _, j := range []int{3, 0, 2} {
		q.Idle(0, j)
	}
	q.Update([]Server{{Name: "s4"}, {Name: "s2"}, {Name: "s3"}, {Name: "s9"}}) // s1 left
	if got := q.IdleQueue(nil); !slices.Equal(got, []int{0, 2}) {
		t.Fatalf("queue %v, want [0 2] (s4, s3; s1 gone)", got)
	}
	q.Idle(0, 0)
	q.Idle(0, 3)
	if got := q.IdleQueue(nil); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("queue %v, want [0 2 3]", got)
	}
}

// Which balancer an idle server joins: random draws one uniformly;
// shortest draws d distinct ones and Shortest takes the first of the
// shortest queues; the same announcement draws the same balancers.
func TestJIQJoinSample(t *testing.T) {
	random := DefaultJIQ()
	counts := make([]int, 8)
	for num := range uint64(8000) {
		got := random.Sample(1, num, 8, nil)
		if len(got) != 1 {
			t.Fatalf("random sampled %v, want one balancer", got)
		}
		counts[got[0]]++
	}
	for b, c := range counts {
		if c < 850 || c > 1150 {
			t.Errorf("balancer %d drawn %d of 8000 times, want about 1000", b, c)
		}
	}
	sq := JIQ{Join: JoinShortest, Choices: 3}
	for num := range uint64(500) {
		got := sq.Sample(1, num, 5, nil)
		s := slices.Clone(got)
		slices.Sort(s)
		if len(got) != 3 || len(slices.Compact(s)) != 3 {
			t.Fatalf("shortest of 3 sampled %v, want 3 distinct balancers", got)
		}
		if again := sq.Sample(1, num, 5, nil); !slices.Equal(got, again) {
			t.Fatalf("announcement %d sampled %v then %v", num, got, again)
		}
	}
	if got := sq.Sample(1, 7, 2, nil); len(got) != 2 {
		t.Errorf("d = 3 of 2 balancers sampled %v, want both", got)
	}
	if got := sq.Sample(1, 7, 0, nil); len(got) != 0 {
		t.Errorf("no balancer: sampled %v", got)
	}
	for _, c := range []struct {
		lengths []int
		want    int
	}{{[]int{3, 1, 1}, 1}, {[]int{0, 0}, 0}, {[]int{5}, 0}, {nil, -1}} {
		if got := Shortest(c.lengths); got != c.want {
			t.Errorf("Shortest(%v) = %d, want %d", c.lengths, got, c.want)
		}
	}
}

// The configuration: defaults for the zero value, ranges checked with an
// error that names them.
func TestJIQConfig(t *testing.T) {
	if a := mustNew(t, Config{Name: "jiq"}); a.Name() != "jiq" {
		t.Fatal(a.Name())
	}
	c, err := Config{Name: "jiq"}.withDefaults()
	if err != nil || c.JIQ != (JIQ{Join: JoinRandom, Choices: 2}) {
		t.Fatalf("defaults %+v, %v", c.JIQ, err)
	}
	for _, bad := range []JIQ{{Join: "nearest", Choices: 2}, {Join: JoinShortest, Choices: 0}, {Join: JoinRandom, Choices: MaxJIQChoices + 1}} {
		_, err := New(Config{Name: "jiq", JIQ: bad})
		if err == nil || !strings.Contains(err.Error(), "Join must be random or shortest") {
			t.Errorf("JIQ %+v: %v", bad, err)
		}
	}
	if !CapsOf("jiq").Idle || CapsOf("p2c").Idle || CapsOf("prequal").Idle {
		t.Error("only jiq needs announcements")
	}
}
