package balance

import (
	"cmp"
	"slices"

	"github.com/lblab/lblab/internal/rng"
)

// Subset returns the indices of a deterministic random subset of k of the
// named servers (random subsetting), sorted ascending; k <= 0 or k >= len
// gives all of them, no names none.
//
// It is rendezvous (highest random weight) selection (Thaler and Ravishankar
// 1998) on server identity: server name scores
// rng.Hash(seed, StringHash(name), salt^c) and the k lowest scores win (ties,
// which need equal names, by index). A name's score does not depend on its
// position or on the other servers, so the subset follows the servers, not
// their places in the list: removing a server outside the subset changes
// nothing, removing a member replaces only it (by the best-scoring outsider),
// and adding a server changes at most one member. A client's warm connections
// survive pool changes. Over seeds each server is in the subset with
// probability k/n.
func Subset(seed, salt uint64, names []string, k int) []int {
	n := len(names)
	idx := make([]int, n)
	for j := range idx {
		idx[j] = j
	}
	if k <= 0 || k >= n {
		return idx
	}
	score := make([]uint64, n)
	for j, name := range names {
		score[j] = rng.Hash(seed, rng.StringHash(name), salt^saltSubset)
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(score[a], score[b]), cmp.Compare(a, b))
	})
	out := idx[:k:k]
	slices.Sort(out)
	return out
}
