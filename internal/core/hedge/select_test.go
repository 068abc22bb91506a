package hedge

import (
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

func TestSelectKth(t *testing.T) {
	src := rng.New(5)
	inputs := map[string]func(i int) time.Duration{
		"random":     func(int) time.Duration { return time.Duration(src.Intn(1000)) },
		"few values": func(int) time.Duration { return time.Duration(src.Intn(3)) },
		"equal":      func(int) time.Duration { return 7 },
		"ascending":  func(i int) time.Duration { return time.Duration(i) },
		"descending": func(i int) time.Duration { return time.Duration(-i) },
		"organ pipe": func(i int) time.Duration { return time.Duration(min(i, 300-i)) },
	}
	for name, gen := range inputs {
		for _, n := range []int{1, 2, 3, 5, 16, 101, 300} {
			a := make([]time.Duration, n)
			for i := range a {
				a[i] = gen(i)
			}
			sorted := slices.Sorted(slices.Values(a))
			for k := range n {
				b := slices.Clone(a)
				if got := selectKth(b, k); got != sorted[k] {
					t.Fatalf("%s n=%d: selectKth(%d) = %v, want %v", name, n, k, got, sorted[k])
				}
			}
		}
	}
}
