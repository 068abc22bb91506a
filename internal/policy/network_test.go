package policy

import (
	"testing"
	"time"
)

func TestPickNumbers(t *testing.T) {
	seen := map[uint64]bool{}
	for seq := range uint64(50) {
		for n := 1; n <= 12; n++ { // first + 10 retries + a hedge
			p := PickNumber(seq, n)
			if seen[p] {
				t.Fatalf("pick number %d given twice", p)
			}
			seen[p] = true
			if s, m := SplitPick(p); s != seq || m != n {
				t.Fatalf("SplitPick(PickNumber(%d, %d)) = %d, %d", seq, n, s, m)
			}
		}
	}
}

// A hop's delay is a pure function of (seed, pick, leg): every process draws
// the same one for the same attempt's same leg.
func TestNetworkDelay(t *testing.T) {
	n := Network{Hop: 5 * time.Millisecond, Jitter: 2 * time.Millisecond, Seed: 7}
	if d := (Network{Hop: 5 * time.Millisecond, Seed: 7}).Delay(3, ClientOut); d != 5*time.Millisecond {
		t.Fatalf("without jitter a hop is %v, want 5ms", d)
	}
	legs := map[time.Duration]bool{}
	var sum time.Duration
	const picks = 10000
	for p := range uint64(picks) {
		d := n.Delay(p, BalancerOut)
		if d < n.Hop || d > n.Hop+n.Jitter {
			t.Fatalf("pick %d: %v outside [5ms, 7ms]", p, d)
		}
		if d != n.Delay(p, BalancerOut) || d != (Network{Hop: n.Hop, Jitter: n.Jitter, Seed: 7}).Delay(p, BalancerOut) {
			t.Fatalf("pick %d: the draw is not a pure function", p)
		}
		sum += d
	}
	if mean := sum / picks; mean < 5900*time.Microsecond || mean > 6100*time.Microsecond {
		t.Errorf("mean hop %v, want 6ms ± 0.1ms (uniform jitter)", mean)
	}
	for _, leg := range []Leg{ClientOut, BalancerOut, ServerBack, BalancerBack} {
		legs[n.Delay(42, leg)] = true
	}
	if len(legs) != 4 {
		t.Errorf("the four legs of one attempt drew %d distinct delays, want 4", len(legs))
	}
	if n.Delay(42, ClientOut) == (Network{Hop: n.Hop, Jitter: n.Jitter, Seed: 8}).Delay(42, ClientOut) {
		t.Error("the draw ignores the seed")
	}
}
