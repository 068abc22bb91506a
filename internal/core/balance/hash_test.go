package balance

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

const hashKeys = 100000

func owners(t *testing.T, name string, n int) []int {
	t.Helper()
	h := mustNew(t, Config{Name: name}).(Hasher)
	h.(Algorithm).Update(names(n))
	out := make([]int, hashKeys)
	for k := range out {
		out[k] = h.Owner(uint64(k))
	}
	return out
}

func TestRingHashBalance(t *testing.T) {
	for _, name := range []string{"ring-hash", "maglev"} {
		counts := make([]float64, 5)
		for _, o := range owners(t, name, 5) {
			counts[o]++
		}
		for j, c := range counts {
			share := c / hashKeys
			tol := 0.05 // 100 vnodes: a few percent either way
			if name == "maglev" {
				tol = 0.01 // slots are split within one of equal
			}
			if math.Abs(share-0.2) > tol {
				t.Errorf("%s: server %d owns %.4f of keys, want 0.2 ± %g", name, j, share, tol)
			}
		}
	}
}

func TestAddingServerMovesOneNth(t *testing.T) {
	for _, name := range []string{"ring-hash", "maglev"} {
		before, after := owners(t, name, 5), owners(t, name, 6)
		moved, toNew, modMoved := 0, 0, 0
		for k := range before {
			if before[k] != after[k] {
				moved++
				if after[k] == 5 {
					toNew++
				}
			}
			if keyHash(uint64(k))%5 != keyHash(uint64(k))%6 {
				modMoved++
			}
		}
		share := float64(moved) / hashKeys
		t.Logf("%s: adding a 6th server moved %.4f of keys (hash mod N would move %.4f)",
			name, share, float64(modMoved)/hashKeys)
		if math.Abs(share-1.0/6) > 0.03 {
			t.Errorf("%s: moved %.4f of keys, want 1/6 ± 0.03", name, share)
		}
		if name == "ring-hash" && toNew != moved {
			t.Errorf("ring-hash: %d of %d moved keys went elsewhere than the new server", moved-toNew, moved)
		}
	}
}

func TestHashOwnerIndependentOfOrder(t *testing.T) {
	for _, name := range []string{"ring-hash", "maglev"} {
		a := mustNew(t, Config{Name: name, MaglevSize: 1009})
		b := mustNew(t, Config{Name: name, MaglevSize: 1009})
		s := names(4)
		a.Update(s)
		b.Update([]Server{s[2], s[0], s[3], s[1]})
		perm := []int{1, 3, 0, 2} // index in a -> index in b
		for k := uint64(0); k < 1000; k++ {
			if pa, pb := a.(Hasher).Owner(k), b.(Hasher).Owner(k); perm[pa] != pb {
				t.Fatalf("%s: key %d owned by %s in one order, %s in another", name, k, s[pa].Name, s[perm[pb]].Name)
			}
		}
	}
}

func TestHashPickFollowsOwnerAndSkipsDown(t *testing.T) {
	for _, name := range []string{"ring-hash", "ring-hash-bounded", "maglev"} {
		a, v := build(t, name, 5), newView(5, load.Local)
		h := a.(Hasher)
		for k := uint64(0); k < 2000; k++ {
			o := h.Owner(k)
			if j := a.Pick(0, Request{Seq: k, Key: k}, v); j != o {
				t.Fatalf("%s: key %d picked %d, owner %d", name, k, j, o)
			}
			v.down[o] = true
			if j := a.Pick(0, Request{Seq: k, Key: k}, v); j == o || j < 0 {
				t.Fatalf("%s: owner %d down, picked %d", name, o, j)
			}
			v.down[o] = false
		}
	}
}

// TestBoundedNeverOverCapacity places a hot key and random keys, completing
// some requests, while members go down holding outstanding requests (as a
// breaker opens on a busy server), and checks that no pick ever puts a member
// over the capacity ceil((1+eps)(T+1)/m) of the m eligible members and their
// total T. Counting the ineligible members in m broke the bound (issue 12).
func TestBoundedNeverOverCapacity(t *testing.T) {
	for _, eps := range []float64{0.01, 0.25, 1} {
		a := mustNew(t, Config{Name: "ring-hash-bounded", Epsilon: eps})
		a.Update(names(7))
		v := newView(7, load.Local)
		for seq := uint64(0); seq < 20000; seq++ {
			for j := range v.down { // two or three members down, changing every 500 picks
				v.down[j] = (seq/500+uint64(j))%3 == 0
			}
			key := seq
			if seq%2 == 0 {
				key = 12345 // a hot key
			}
			limit := eligibleCapacity(v, eps)
			j := a.Pick(ms(int(seq)), Request{Seq: seq, Key: key}, v)
			if j < 0 || v.down[j] || v.tb.Stats[j].Outstanding >= limit {
				t.Fatalf("eps=%g seq=%d: picked %d (down %v) at %d outstanding, capacity %d",
					eps, seq, j, v.down, v.tb.Stats[max(j, 0)].Outstanding, limit)
			}
			v.tb.Sent(ms(int(seq)), j)
			if seq%3 != 0 { // complete an old request somewhere
				v.tb.Done(ms(int(seq)), int(seq/3)%7, 1e6)
			}
		}
	}
}

// eligibleCapacity is ceil((1+eps)(T+1)/m) over the eligible members.
func eligibleCapacity(v *testView, eps float64) int {
	m, total := 0, 0
	for j := range v.down {
		if !v.down[j] {
			m++
			total += v.tb.Stats[j].Outstanding
		}
	}
	return int(math.Ceil((1 + eps) * float64(total+1) / float64(m)))
}

func TestBoundedFallsBackWhenAllFull(t *testing.T) {
	a, v := build(t, "ring-hash-bounded", 3), newView(3, load.Local)
	for k := 0; k < 30; k++ {
		v.tb.Sent(0, 0) // only the down member has room
	}
	for k := 0; k < 30; k++ {
		v.tb.Sent(0, 1)
	}
	v.down[2] = true
	if j := a.Pick(0, Request{Seq: 1, Key: 9}, v); j != 0 && j != 1 {
		t.Fatalf("picked %d, want an eligible member", j)
	}
}

func TestSubset(t *testing.T) {
	if got := Subset(1, 2, serverNames(5), 0); len(got) != 5 || got[4] != 4 {
		t.Fatalf("k=0: %v", got)
	}
	if got := Subset(1, 2, serverNames(5), 9); len(got) != 5 {
		t.Fatalf("k>n: %v", got)
	}
	if got := Subset(1, 2, nil, 3); len(got) != 0 {
		t.Fatalf("n=0: %v", got)
	}
	counts := make([]float64, 20)
	for seed := uint64(0); seed < 20000; seed++ {
		s := Subset(seed, 3, serverNames(20), 5)
		for i := range s {
			if i > 0 && s[i] <= s[i-1] {
				t.Fatalf("not sorted or repeated: %v", s)
			}
			counts[s[i]]++
		}
		grown := Subset(seed, 3, serverNames(21), 5)
		if diff := len(s) - common(s, grown); diff > 1 {
			t.Fatalf("growing n changed %d members: %v -> %v", diff, s, grown)
		}
	}
	for j, c := range counts {
		if share := c / 20000; math.Abs(share-0.25) > 0.015 {
			t.Errorf("index %d in %.4f of subsets, want 0.25", j, share)
		}
	}
	if a, b := Subset(5, 6, serverNames(100), 10), Subset(5, 6, serverNames(100), 10); !equal(a, b) {
		t.Fatal("Subset is not deterministic")
	}
}

// TestSubsetFollowsIdentity: with 20 servers and subsets of 5, removing any
// one server (200 seeds x 20 removals) leaves a subset that does not hold it
// unchanged and replaces only the removed member of one that does; the
// subset is the same whatever order the servers are listed in.
func TestSubsetFollowsIdentity(t *testing.T) {
	all := serverNames(20)
	changed, removals := 0, 0
	for seed := uint64(0); seed < 200; seed++ {
		before := pickNames(all, Subset(seed, 7, all, 5))
		for r := range all {
			rest := append(append([]string(nil), all[:r]...), all[r+1:]...)
			after := pickNames(rest, Subset(seed, 7, rest, 5))
			kept := 0
			for _, name := range before {
				if name != all[r] && containsName(after, name) {
					kept++
				}
			}
			others := len(before)
			if containsName(before, all[r]) {
				others--
			}
			changed += others - kept
			removals++
			if kept != others {
				t.Errorf("seed %d, removing %s: %v -> %v changed %d other members", seed, all[r], before, after, others-kept)
			}
		}
		reversed := slices.Clone(all)
		slices.Reverse(reversed)
		if got := pickNames(reversed, Subset(seed, 7, reversed, 5)); !sameNames(got, before) {
			t.Fatalf("seed %d: subset %v in one order, %v in another", seed, before, got)
		}
	}
	t.Logf("other members changed per removal: %.2f", float64(changed)/float64(removals))
}

func serverNames(n int) []string {
	out := make([]string, n)
	for j := range out {
		out[j] = fmt.Sprintf("s%d", j+1)
	}
	return out
}

func pickNames(names []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, j := range idx {
		out[i] = names[j]
	}
	return out
}

func containsName(s []string, x string) bool { return slices.Contains(s, x) }

func sameNames(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func common(a, b []int) int {
	n := 0
	for _, x := range a {
		if contains(b, x) {
			n++
		}
	}
	return n
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
