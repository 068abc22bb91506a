// Package rng is the project's only source of randomness: a seeded generator
// that each component splits off by name, and a stateless hash for per-request
// draws, so one policy's draws never shift another's stream.
package rng

import (
	"math"
	"math/bits"
)

// mix is SplitMix64's finaliser: a bijective avalanche of 64 bits.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	z ^= z >> 31
	return z
}

const golden = 0x9e3779b97f4a7c15

// Hash returns a well-mixed 64-bit value for (seed, request, salt). Policies
// use it for per-request choices, so the draw depends only on these three.
func Hash(seed, request, salt uint64) uint64 {
	return SaltHash(HashOf(seed, request), salt)
}

// HashOf is the part of Hash that depends on (seed, request) alone: several
// draws for one request (different salts) share it, and SaltHash(HashOf(seed,
// request), salt) == Hash(seed, request, salt) at two mixes fewer each.
func HashOf(seed, request uint64) uint64 { return mix((mix(seed+golden) ^ request) + golden) }

// SaltHash finishes Hash from HashOf's value.
func SaltHash(of, salt uint64) uint64 { return mix(of ^ salt*golden) }

// HashFloat returns Hash mapped to [0, 1).
func HashFloat(seed, request, salt uint64) float64 {
	return ToFloat(Hash(seed, request, salt))
}

// ToFloat maps 64 random bits to [0, 1) using the top 53.
func ToFloat(x uint64) float64 { return float64(x>>11) / (1 << 53) }

// Bounded maps 64 random bits to [0, n) without modulo bias worth measuring
// (Lemire's multiply-shift). n must be > 0.
func Bounded(x uint64, n int) int {
	hi, _ := bits.Mul64(x, uint64(n)) // one MUL instruction on amd64 and arm64
	return int(hi)
}

// BoundedFrac is Bounded plus the fraction left over: x·n = i·2^64 + frac,
// so frac is itself uniform in [0, 2^64). The alias method draws its column
// and its coin from one 64-bit value this way.
func BoundedFrac(x uint64, n int) (int, uint64) {
	hi, lo := bits.Mul64(x, uint64(n))
	return int(hi), lo
}

// StringHash is FNV-1a of s, used to turn names and keys into salts.
func StringHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// Source is a seeded SplitMix64 generator. Not safe for concurrent use.
type Source struct{ state uint64 }

// New returns a generator seeded with seed.
func New(seed uint64) *Source { return &Source{state: mix(seed + golden)} }

// Split returns the generator for the component called name, derived from
// seed alone: adding a component never shifts another's stream.
func Split(seed uint64, name string) *Source {
	return New(Hash(seed, StringHash(name), 0x5eed))
}

// Uint64 returns the next 64 random bits.
func (s *Source) Uint64() uint64 {
	s.state += golden
	return mix(s.state)
}

// Float64 returns a uniform value in [0, 1).
func (s *Source) Float64() float64 { return ToFloat(s.Uint64()) }

// Intn returns a uniform int in [0, n); n must be > 0.
func (s *Source) Intn(n int) int { return Bounded(s.Uint64(), n) }

// Exp returns an exponential variate with mean 1.
func (s *Source) Exp() float64 { return -math.Log(1 - s.Float64()) }

// Norm returns a standard normal variate (Box-Muller, one of the pair).
func (s *Source) Norm() float64 {
	u1 := 1 - s.Float64() // (0, 1]
	u2 := s.Float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}
