package hedge

import (
	"math/bits"
	"slices"
	"time"
)

// selectKth returns the k-th smallest element of a (0-based), reordering a:
// Hoare's quickselect with a median-of-three pivot, O(len(a)) expected. After
// 2×log2(n) rounds without converging it sorts the remaining range, so the
// worst case stays O(n log n) (introselect). Deterministic.
func selectKth(a []time.Duration, k int) time.Duration {
	lo, hi := 0, len(a)-1
	for rounds := 2 * bits.Len(uint(len(a))); lo < hi; rounds-- {
		if rounds == 0 {
			slices.Sort(a[lo : hi+1])
			break
		}
		mid := lo + (hi-lo)/2
		pivot := median3(a[lo], a[mid], a[hi])
		i, j := lo, hi
		for i <= j { // invariant: a[lo:i] <= pivot, a[j+1:hi+1] >= pivot
			for a[i] < pivot {
				i++
			}
			for a[j] > pivot {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // j < k < i: a[k] == pivot
			return a[k]
		}
	}
	return a[k]
}

func median3(a, b, c time.Duration) time.Duration {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}
