package balance

import (
	"cmp"
	"slices"

	"github.com/lblab/lblab/internal/rng"
)

// Subset returns a deterministic random subset of k of the n member indices
// (aperture, deterministic subsetting), sorted ascending; k <= 0 or k >= n
// gives all of them, n <= 0 none.
//
// It is rendezvous (highest random weight) selection (Thaler and Ravishankar
// 1998): index j scores rng.Hash(seed, j, salt^c) and the k lowest scores win.
// Each index is in the subset with probability k/n over seeds, and growing n
// by one changes the subset of a given (seed, salt) by at most one member, so
// a client's warm connections survive a fleet growing.
func Subset(seed, salt uint64, n, k int) []int {
	if n <= 0 {
		return []int{}
	}
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	if k <= 0 || k >= n {
		return idx
	}
	score := func(j int) uint64 { return rng.Hash(seed, uint64(j), salt^saltSubset) }
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(score(a), score(b)), cmp.Compare(a, b))
	})
	out := idx[:k:k]
	slices.Sort(out)
	return out
}
