package balance

import (
	"cmp"
	"slices"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// maglev is Google's Maglev consistent hashing (Eisenbud et al., NSDI 2016,
// §3.4). Each server has a permutation of the M table slots (M = MaglevSize,
// prime), from two hashes of its name:
//
//	offset = h1(name) mod M, skip = h2(name) mod (M-1) + 1,
//	permutation[i] = (offset + i × skip) mod M
//
// The table is filled by letting the servers, in turn, claim the next slot of
// their permutation that is still free, until all M are taken; a key is owned
// by table[hash(key) mod M]. A pick falls back to the following slots while
// the owner is ineligible.
//
// Invariants: every server gets floor(M/N) or ceil(M/N) slots (for N <= M),
// so shares are within 1/M of equal; the table depends on the set of names
// only (they take turns in name order), and adding a server moves a little
// over 1/N of the keys. M should be well above N (the paper uses M > 100 N).
//
// Not safe for concurrent use; the driver serializes calls.
type maglev struct {
	size  int
	table []int32 // server index per slot; empty when there are no servers
}

func newMaglev(c Config) Algorithm { return &maglev{size: c.MaglevSize} }

func (m *maglev) Name() string { return "maglev" }

func (m *maglev) Owner(key uint64) int {
	if len(m.table) == 0 {
		return -1
	}
	return int(m.table[rng.Bounded(keyHash(key), len(m.table))])
}

func (m *maglev) Pick(_ clock.Instant, req Request, v View) int {
	size, n := len(m.table), v.Len()
	if size == 0 {
		return -1
	}
	start := rng.Bounded(keyHash(req.Key), size)
	// Each member owns about size/n slots spread over the table, so a walk
	// that finds no eligible member in a few slots per member is likely to
	// find none at all: check once that one exists rather than visit every
	// slot of the table (65537 by default) on each pick while all are out.
	sure := 4*n + 8
	for step := 0; step < size; step++ {
		if step == sure && !anyOk(v, n) {
			return -1
		}
		slot := start + step
		if slot >= size {
			slot -= size
		}
		if j := int(m.table[slot]); j < n && v.Ok(j) {
			return j
		}
	}
	return -1
}

// anyOk reports whether one of the first n members of v is eligible.
func anyOk(v View, n int) bool {
	for j := range n {
		if v.Ok(j) {
			return true
		}
	}
	return false
}

func (m *maglev) Update(servers []Server) {
	m.table = nil
	if len(servers) == 0 {
		return
	}
	size := uint64(m.size)
	order := make([]int, len(servers))
	offset := make([]uint64, len(servers))
	skip := make([]uint64, len(servers))
	for j, s := range servers {
		order[j] = j
		h := rng.StringHash(s.Name)
		offset[j] = rng.Hash(h, 0, saltMaglevOff) % size
		skip[j] = rng.Hash(h, 0, saltMaglevSkip)%(size-1) + 1
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(servers[a].Name, servers[b].Name), cmp.Compare(a, b))
	})
	m.table = populate(m.size, order, offset, skip)
}

// populate fills the table: servers in order take turns claiming the next
// free slot of their permutation (the paper's Pseudocode 1).
func populate(size int, order []int, offset, skip []uint64) []int32 {
	table := make([]int32, size)
	for i := range table {
		table[i] = -1
	}
	next := make([]uint64, len(offset))
	for filled := 0; ; {
		for _, j := range order {
			slot := (offset[j] + next[j]*skip[j]) % uint64(size)
			for table[slot] >= 0 {
				next[j]++
				slot = (offset[j] + next[j]*skip[j]) % uint64(size)
			}
			table[slot] = int32(j)
			next[j]++
			if filled++; filled == size {
				return table
			}
		}
	}
}
