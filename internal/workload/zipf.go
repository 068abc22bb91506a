package workload

import (
	"fmt"
	"math"

	"github.com/lblab/lblab/internal/rng"
)

// MaxKeys bounds Keys and Clients: a Zipf table holds one float64 per id.
const MaxKeys = 1_000_000

// zipf samples ranks 0..n-1 with P(rank r) = (r+1)^-s / H(n, s), where
// H(n, s) = Σ_{k=1..n} k^-s is the generalised harmonic number. The CDF is
// built once; a draw is a binary search for the first cdf[r] > u, O(log n),
// without allocation. s = 0 is uniform and needs no table.
type zipf struct {
	n   int
	cdf []float64 // cdf[r] = P(rank <= r), cdf[n-1] = 1; nil when uniform
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
	z.cdf = make([]float64, n)
	acc := 0.0
	for r := range n {
		acc += math.Pow(float64(r+1), -s)
		z.cdf[r] = acc
	}
	for r := range z.cdf {
		z.cdf[r] /= acc
	}
	z.cdf[n-1] = 1
	return z, nil
}

// rank maps 64 random bits to a rank.
func (z *zipf) rank(x uint64) int {
	if z.cdf == nil {
		return rng.Bounded(x, z.n)
	}
	u := rng.ToFloat(x) // [0, 1)
	lo, hi := 0, z.n-1  // invariant: the answer is in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if z.cdf[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// prob returns P(rank r), for tests and reports.
func (z *zipf) prob(r int) float64 {
	if z.cdf == nil {
		return 1 / float64(z.n)
	}
	if r == 0 {
		return z.cdf[0]
	}
	return z.cdf[r] - z.cdf[r-1]
}
