package server

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// waiting is an admitted job in the queue.
type waiting struct {
	id       uint64
	work     time.Duration // drawn at admission if the job carried none
	key      uint64
	deadline clock.Instant
	enq      clock.Instant // when it was admitted
	inflight int           // queued + in service at admission, itself included
	gen      uint32        // limiter generation at admission
	kind     Kind
	delay    time.Duration // a Fault's extra delay for its answer
}

// deque is a ring buffer of waiting jobs in admission order: the front is the
// oldest. FIFO serves from the front, LIFO from the back; evictions and queue
// timeouts take the front. It grows by doubling and never shrinks, so a
// steady state does not allocate.
type deque struct {
	buf  []waiting
	head int
	n    int
}

func newDeque(capacity int) deque {
	return deque{buf: make([]waiting, max(capacity, 16))}
}

func (q *deque) slot(i int) int { return (q.head + i) % len(q.buf) }

// at returns the i-th oldest job.
func (q *deque) at(i int) *waiting { return &q.buf[q.slot(i)] }

func (q *deque) pushBack(w waiting) {
	if q.n == len(q.buf) {
		q.grow()
	}
	q.buf[q.slot(q.n)] = w
	q.n++
}

func (q *deque) grow() {
	buf := make([]waiting, 2*len(q.buf))
	for i := 0; i < q.n; i++ {
		buf[i] = *q.at(i)
	}
	q.buf, q.head = buf, 0
}

func (q *deque) popFront() waiting {
	w := q.buf[q.head]
	q.head = q.slot(1)
	q.n--
	return w
}

func (q *deque) popBack() waiting {
	q.n--
	return q.buf[q.slot(q.n)]
}

// removeAt removes the i-th oldest job, shifting the newer ones forward.
func (q *deque) removeAt(i int) waiting {
	w := *q.at(i)
	for ; i < q.n-1; i++ {
		*q.at(i) = *q.at(i + 1)
	}
	q.n--
	return w
}

// find returns the position of the job with the given id, or -1.
func (q *deque) find(id uint64) int {
	for i := 0; i < q.n; i++ {
		if q.at(i).id == id {
			return i
		}
	}
	return -1
}

func (q *deque) clear() { q.head, q.n = 0, 0 }
