package wasmprims

import (
	"math"
	"math/bits"
	"testing"
)

// Each benchmark keeps its result in a sink so the loop is not removed, and
// feeds each step from the last so steps are not folded together.
var (
	sink  int
	sinkF float64
)

//go:noinline
func add(a, b int) int { return a + b }

// BenchmarkCall is a call the compiler does not inline (most of the event
// loop's handlers, the balancer's View methods).
func BenchmarkCall(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		s = add(s, i)
	}
	sink = s
}

// BenchmarkArith is arithmetic on one register with no branch or memory.
func BenchmarkArith(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		s += i ^ (s >> 3)
	}
	sink = s
}

// BenchmarkSlice is a bounds-checked read and write of a slice.
func BenchmarkSlice(b *testing.B) {
	a := make([]int, 1024)
	s := 0
	for i := 0; i < b.N; i++ {
		s += a[(i*7)&1023]
		a[i&1023] = s
	}
	sink = s
}

// BenchmarkSwitch is a switch on a value that changes each step (the loop's
// switch on an event's kind).
func BenchmarkSwitch(b *testing.B) {
	s := 0
	for i := 0; i < b.N; i++ {
		switch (s ^ i) & 7 {
		case 0:
			s++
		case 1:
			s += 3
		case 2:
			s ^= 5
		case 3:
			s--
		case 4:
			s += 7
		case 5:
			s ^= 9
		case 6:
			s += 11
		default:
			s += 2
		}
	}
	sink = s
}

// BenchmarkCopy copies a 32-byte struct (an event of the simulator's queue).
func BenchmarkCopy(b *testing.B) {
	type event struct{ at, seq, h, a int64 } // the queue's event: its time, order, handle, argument
	a := make([]event, 256)
	for i := 0; i < b.N; i++ {
		a[(i+1)&255] = a[i&255]
		a[(i+1)&255].at++
		a[i&255].seq, a[i&255].h, a[i&255].a = a[i&255].at, int64(i), a[i&255].seq
	}
	sink = int(a[0].at)
}

// BenchmarkMap is a map lookup with an int key.
func BenchmarkMap(b *testing.B) {
	m := map[int]int{}
	for i := range 1000 {
		m[i] = i
	}
	s := 0
	for i := 0; i < b.N; i++ {
		s += m[(i+s)%1000]
	}
	sink = s
}

// BenchmarkMul64 is a 64x64-bit multiply to 128 bits (random numbers).
func BenchmarkMul64(b *testing.B) {
	var s uint64 = 1
	for i := 0; i < b.N; i++ {
		h, l := bits.Mul64(s, 0x9E3779B97F4A7C15)
		s = h ^ l + uint64(i)
	}
	sink = int(s)
}

// BenchmarkLog is math.Log (an exponential draw).
func BenchmarkLog(b *testing.B) {
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += math.Log(float64(i) + 1.5)
	}
	sinkF = s
}

// BenchmarkExp is math.Exp (a lognormal draw, an EWMA's decay).
func BenchmarkExp(b *testing.B) {
	s := 0.0
	for i := 0; i < b.N; i++ {
		s += math.Exp(float64(i&1023) * 0.001)
	}
	sinkF = s
}
