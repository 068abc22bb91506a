// Package slab keeps values in reusable slots addressed by handles that carry
// a generation, so a stale handle (an event about an attempt long since
// finished) finds nothing instead of the slot's next occupant. The simulator
// and the live loadgen keep their calls and attempts here: memory stays flat
// however long the run.
package slab

// Slab holds values of T. Pointers it returns stay valid until the value is
// freed (slots are allocated once and reused). Not safe for concurrent use.
type Slab[T any] struct {
	chunks []*[chunkLen]slot[T] // slots live in fixed chunks: contiguous, and never moved
	n      uint32               // slots made so far
	free   []uint32
}

const chunkBits = 8
const chunkLen = 1 << chunkBits

func (s *Slab[T]) slot(idx uint32) *slot[T] {
	return &s.chunks[idx>>chunkBits][idx&(chunkLen-1)]
}

type slot[T any] struct {
	v    T
	gen  uint32
	live bool
}

// pack makes a handle of a slot index and its generation (never 0).
func pack(idx, gen uint32) uint64 { return uint64(gen)<<32 | uint64(idx) }

func unpack(h uint64) (idx, gen uint32) { return uint32(h), uint32(h >> 32) }

// New takes a slot, zeroes its value and returns its handle and value.
func (s *Slab[T]) New() (uint64, *T) {
	var idx uint32
	if n := len(s.free); n > 0 {
		idx, s.free = s.free[n-1], s.free[:n-1]
	} else {
		if s.n%chunkLen == 0 {
			s.chunks = append(s.chunks, new([chunkLen]slot[T]))
		}
		idx = s.n
		s.n++
	}
	sl := s.slot(idx)
	var zero T
	sl.v, sl.gen, sl.live = zero, sl.gen+1, true
	return pack(idx, sl.gen), &sl.v
}

// Get returns the value of h, or nil if h was freed since.
func (s *Slab[T]) Get(h uint64) *T {
	// Small enough to inline (the loops call it for every event): a slot
	// past s.n in the last chunk was never taken, so it is not live.
	idx := uint32(h)
	if c := idx >> chunkBits; c < uint32(len(s.chunks)) {
		if sl := &s.chunks[c][idx&(chunkLen-1)]; sl.live && sl.gen == uint32(h>>32) {
			return &sl.v
		}
	}
	return nil
}

// Free releases h's slot; freeing a stale handle does nothing.
func (s *Slab[T]) Free(h uint64) {
	idx, gen := unpack(h)
	if idx < s.n {
		if sl := s.slot(idx); sl.live && sl.gen == gen {
			sl.live = false
			s.free = append(s.free, idx)
		}
	}
}

// Each calls fn for every live value, in slot order.
func (s *Slab[T]) Each(fn func(h uint64, v *T)) {
	for i := uint32(0); i < s.n; i++ {
		if sl := s.slot(i); sl.live {
			fn(pack(i, sl.gen), &sl.v)
		}
	}
}

// Len is the number of live values.
func (s *Slab[T]) Len() int { return int(s.n) - len(s.free) }

// Slots is how many slots the slab holds, live or free: it never shrinks,
// so this is what it weighs (whole chunks of 256).
func (s *Slab[T]) Slots() int { return len(s.chunks) * chunkLen }
