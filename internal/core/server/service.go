package server

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// active is a job holding a worker.
type active struct {
	id       uint64
	enq      clock.Instant
	start    clock.Instant
	target   float64 // work-clock reading at which it finishes
	seq      uint64  // start order, breaks ties between equal targets
	inflight int
	gen      uint32
	kind     Kind
	hit      bool
	delay    time.Duration // a Fault's extra delay for its answer
}

// service holds the workers: slots and a binary min-heap of the busy slots
// ordered by (target, seq), so the top is the next to finish. Invariant:
// len(heap) + len(free) == len(slots) >= n, the worker count. A job starts
// only while fewer than n are busy; after resize cut n, the jobs already in
// service on the slots over it finish as they would have (len(heap) > n
// until they have).
type service struct {
	slots []active
	heap  []int32 // busy slot indices
	free  []int32 // idle slot indices
	n     int     // the worker count
}

func newService(workers int) service {
	s := service{slots: make([]active, workers), heap: make([]int32, 0, workers), free: make([]int32, workers), n: workers}
	for i := range s.free {
		s.free[i] = int32(workers - 1 - i)
	}
	return s
}

// resize sets the worker count to n, adding idle slots as needed; slots
// over n are kept (a busy one finishes its job), so a later growth reuses
// them.
func (s *service) resize(n int) {
	for len(s.slots) < n {
		s.slots = append(s.slots, active{})
		s.free = append(s.free, int32(len(s.slots)-1))
	}
	s.n = n
}

func (s *service) busy() int { return len(s.heap) }

func (s *service) idle() bool { return len(s.heap) < s.n }

// top returns the job that finishes first; the service must be busy.
func (s *service) top() *active { return &s.slots[s.heap[0]] }

func (s *service) less(i, j int) bool {
	a, b := &s.slots[s.heap[i]], &s.slots[s.heap[j]]
	return a.target < b.target || a.target == b.target && a.seq < b.seq
}

// push puts a on an idle worker; there must be one.
func (s *service) push(a active) {
	idx := s.free[len(s.free)-1]
	s.free = s.free[:len(s.free)-1]
	s.slots[idx] = a
	s.heap = append(s.heap, idx)
	for i := len(s.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s.heap[i], s.heap[p] = s.heap[p], s.heap[i]
		i = p
	}
}

// pop removes the job that finishes first and returns its slot, which stays
// as it is until the next push (no copy of the job on the way out).
func (s *service) pop() *active {
	idx := s.heap[0]
	last := len(s.heap) - 1
	s.heap[0] = s.heap[last]
	s.heap = s.heap[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= last {
			break
		}
		if c+1 < last && s.less(c+1, c) {
			c++
		}
		if !s.less(c, i) {
			break
		}
		s.heap[i], s.heap[c] = s.heap[c], s.heap[i]
		i = c
	}
	s.free = append(s.free, idx)
	return &s.slots[idx]
}

// clear frees every worker.
func (s *service) clear() {
	s.free = append(s.free, s.heap...)
	s.heap = s.heap[:0]
}
