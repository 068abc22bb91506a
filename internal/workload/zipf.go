package workload

import (
	"fmt"
	"math"

	"github.com/lblab/lblab/internal/rng"
)

// MaxKeys bounds Keys and Clients: a Zipf table holds one float64 per id.
const MaxKeys = 1_000_000

// zipf samples ranks 0..n-1 with P(rank r) = (r+1)^-s / H(n, s), where
// H(n, s) = Σ_{k=1..n} k^-s is the generalised harmonic number. Draws use
// Walker's alias method (Vose's construction): the table is built once in
// O(n); a draw is O(1) — one column and one biased coin from the same 64
// random bits — without allocation. s = 0 is uniform and needs no table.
type zipf struct {
	n     int
	p     []float64 // P(rank r); nil when uniform
	keep  []uint64  // column r keeps rank r when the coin is below keep[r] (of 2^64)
	alias []int32   // ... and gives alias[r] otherwise
}

func newZipf(n int, s float64) (zipf, error) {
	if n < 1 || n > MaxKeys {
		return zipf{}, fmt.Errorf("count %d out of range [1, %d]", n, MaxKeys)
	}
	if !(s >= 0) || math.IsInf(s, 1) {
		return zipf{}, fmt.Errorf("exponent %g out of range [0, +Inf)", s)
	}
	z := zipf{n: n}
	if s == 0 || n == 1 {
		return z, nil
	}
	z.p = make([]float64, n)
	total := 0.0
	for r := range n {
		z.p[r] = math.Pow(float64(r+1), -s)
		total += z.p[r]
	}
	for r := range z.p {
		z.p[r] /= total
	}
	z.keep, z.alias = aliasTable(z.p)
	return z, nil
}

// aliasTable builds Vose's alias table for probabilities p (summing to 1):
// every column holds mass 1/n, made of its own rank and at most one alias.
func aliasTable(p []float64) ([]uint64, []int32) {
	n := len(p)
	keep, alias := make([]uint64, n), make([]int32, n)
	scaled := make([]float64, n)
	var small, large []int32
	for i, pi := range p {
		scaled[i] = pi * float64(n)
		if scaled[i] < 1 {
			small = append(small, int32(i))
		} else {
			large = append(large, int32(i))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		keep[s], alias[s] = toThreshold(scaled[s]), l
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large, small = large[:len(large)-1], append(small, l)
		}
	}
	for _, i := range append(small, large...) { // rounding leftovers: full columns
		keep[i], alias[i] = math.MaxUint64, i
	}
	return keep, alias
}

// toThreshold maps a probability in [0, 1) to a share of 2^64.
func toThreshold(q float64) uint64 {
	if q >= 1 {
		return math.MaxUint64
	}
	return uint64(q * (1 << 64))
}

// rank maps 64 random bits to a rank.
func (z *zipf) rank(x uint64) int {
	if z.p == nil {
		return rng.Bounded(x, z.n)
	}
	col, coin := rng.BoundedFrac(x, z.n)
	if coin < z.keep[col] {
		return col
	}
	return int(z.alias[col])
}

// prob returns P(rank r), for tests and reports.
func (z *zipf) prob(r int) float64 {
	if z.p == nil {
		return 1 / float64(z.n)
	}
	return z.p[r]
}
