package rng

import (
	"math"
	"math/bits"
	"testing"
)

func TestSplitReproducibleAndDistinct(t *testing.T) {
	a1, a2 := Split(1, "arrivals"), Split(1, "arrivals")
	b, c := Split(1, "balancer"), Split(2, "arrivals")
	same := 0
	for i := range 1000 {
		x := a1.Uint64()
		if y := a2.Uint64(); x != y {
			t.Fatalf("draw %d: the same split gave %x and %x", i, x, y)
		}
		if x == b.Uint64() || x == c.Uint64() {
			same++
		}
	}
	if same > 0 {
		t.Fatalf("different names or seeds agreed on %d of 1000 draws", same)
	}
}

func TestSplitIndependentOfOthers(t *testing.T) {
	// Drawing from one component's stream does not shift another's.
	a := Split(9, "a")
	want := a.Uint64()
	noise := Split(9, "b")
	for range 100 {
		noise.Uint64()
	}
	if got := Split(9, "a").Uint64(); got != want {
		t.Fatalf("stream a changed: %x vs %x", got, want)
	}
}

func TestHashEachArgument(t *testing.T) {
	base := Hash(1, 2, 3)
	if Hash(1, 2, 3) != base {
		t.Fatal("Hash is not a function of its arguments")
	}
	for _, h := range []uint64{Hash(2, 2, 3), Hash(1, 3, 3), Hash(1, 2, 4), Hash(1, 2, 0), Hash(0, 2, 3), Hash(3, 2, 1)} {
		if h == base {
			t.Fatalf("Hash ignores an argument: %x", h)
		}
	}
	// Each argument avalanches: flipping one input bit flips about half the
	// output bits on average.
	for arg := range 3 {
		total := 0
		const n = 2000
		for i := range uint64(n) {
			in := [3]uint64{i * 7919, i * 104729, i * 1299709}
			before := Hash(in[0], in[1], in[2])
			in[arg] ^= 1 << (i % 64)
			total += bits.OnesCount64(before ^ Hash(in[0], in[1], in[2]))
		}
		if avg := float64(total) / n; math.Abs(avg-32) > 1 {
			t.Errorf("argument %d: flipping one bit flips %.2f output bits on average, want about 32", arg, avg)
		}
	}
}

// TestHashSplitsIntoPrefixAndSalt pins Hash to its formula and checks that
// the shared prefix (HashOf) and the salted finish give the same value.
func TestHashSplitsIntoPrefixAndSalt(t *testing.T) {
	src := New(9)
	for range 10_000 {
		seed, req, salt := src.Uint64(), src.Uint64()>>src.Intn(64), src.Uint64()
		want := mix(mix((mix(seed+golden)^req)+golden) ^ salt*golden)
		if got := Hash(seed, req, salt); got != want {
			t.Fatalf("Hash(%x, %x, %x) = %x, want %x", seed, req, salt, got, want)
		}
		if got := SaltHash(HashOf(seed, req), salt); got != want {
			t.Fatalf("SaltHash(HashOf(%x, %x), %x) = %x, want %x", seed, req, salt, got, want)
		}
	}
	if Hash(1, 2, 3) != 0x55027c6940fa8442 {
		t.Fatalf("Hash(1, 2, 3) = %#x: the formula changed, and every seeded run with it", Hash(1, 2, 3))
	}
}

func TestHashFloatRange(t *testing.T) {
	sum := 0.0
	const n = 100_000
	for i := range uint64(n) {
		u := HashFloat(5, i, 11)
		if u < 0 || u >= 1 {
			t.Fatalf("HashFloat = %g outside [0, 1)", u)
		}
		sum += u
	}
	if m := sum / n; math.Abs(m-0.5) > 0.005 {
		t.Fatalf("HashFloat mean %g, want 0.5", m)
	}
	if ToFloat(math.MaxUint64) >= 1 || ToFloat(0) != 0 {
		t.Fatal("ToFloat bounds")
	}
}

func TestBoundedUniform(t *testing.T) {
	const k = 7
	for _, n := range []int{100_000, 1_000_000} {
		var counts [k]int
		src := New(3)
		for range n {
			counts[Bounded(src.Uint64(), k)]++
		}
		chi2 := 0.0
		want := float64(n) / k
		for i, c := range counts {
			// 100k: each share within 1 percentage point of 1/7 (as the
			// balancers' distribution tests); 1M: each count within 1%.
			if n == 100_000 && math.Abs(float64(c)/float64(n)-1.0/k) > 0.01 {
				t.Errorf("n=%d: value %d has share %.4f, want %.4f ± 0.01", n, i, float64(c)/float64(n), 1.0/k)
			}
			if n == 1_000_000 && math.Abs(float64(c)-want) > 0.01*want {
				t.Errorf("n=%d: value %d drawn %d times, want %.0f ± 1%%", n, i, c, want)
			}
			chi2 += (float64(c) - want) * (float64(c) - want) / want
		}
		if chi2 > 22.46 { // chi-square, 6 degrees of freedom, p = 0.001
			t.Errorf("n=%d: chi-square %.2f, counts %v", n, chi2, counts)
		}
	}
}

func TestBoundedIsTheHighWord(t *testing.T) {
	src := New(4)
	for i := range 100_000 {
		x, n := src.Uint64(), int(src.Uint64()>>(1+i%63))+1
		hi, _ := bits.Mul64(x, uint64(n))
		if got := Bounded(x, n); got != int(hi) || got < 0 || got >= n {
			t.Fatalf("Bounded(%x, %d) = %d, want %d", x, n, got, hi)
		}
		if got, frac := BoundedFrac(x, n); got != int(hi) || frac != x*uint64(n) {
			t.Fatalf("BoundedFrac(%x, %d) = %d %x", x, n, got, frac)
		}
	}
	if Bounded(math.MaxUint64, 7) != 6 || Bounded(0, 7) != 0 || Bounded(math.MaxUint64, 1) != 0 {
		t.Fatal("Bounded edge values")
	}
}

func TestSourceHelpers(t *testing.T) {
	src := New(6)
	const n = 200_000
	sumExp, sumN, sumN2 := 0.0, 0.0, 0.0
	for range n {
		if i := src.Intn(5); i < 0 || i >= 5 {
			t.Fatalf("Intn(5) = %d", i)
		}
		e := src.Exp()
		if e < 0 || math.IsInf(e, 0) {
			t.Fatalf("Exp = %g", e)
		}
		sumExp += e
		z := src.Norm()
		sumN += z
		sumN2 += z * z
	}
	if m := sumExp / n; math.Abs(m-1) > 0.01 {
		t.Errorf("Exp mean %g, want 1 ± 1%%", m)
	}
	if m, v := sumN/n, sumN2/n-(sumN/n)*(sumN/n); math.Abs(m) > 0.01 || math.Abs(v-1) > 0.01 {
		t.Errorf("Norm mean %g variance %g, want 0 and 1", m, v)
	}
}

func TestStringHash(t *testing.T) {
	// FNV-1a test vectors.
	if StringHash("") != 0xcbf29ce484222325 || StringHash("a") != 0xaf63dc4c8601ec8c {
		t.Fatalf("StringHash vectors: %x %x", StringHash(""), StringHash("a"))
	}
}
