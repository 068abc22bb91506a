package sim

import "github.com/lblab/lblab/internal/clock"

// kind is what an event does when it fires.
type kind uint8

const (
	evThink         kind = iota // a closed-loop user starts its next request (a = user)
	evAtBalancer                // an attempt reaches its balancer (h)
	evAtServer                  // an attempt reaches its server (h)
	evWake                      // a server's next deadline (a = server)
	evReplyAtLB                 // a server's reply reaches the balancer (h)
	evReplyAtClient             // an answer reaches the client (h)
	evLBTimeout                 // a balancer's per-attempt timeout (h)
	evCancel                    // a cancellation reaches the server (h)
	evTimer                     // a client timer (a = timer; h = call handle, or the attempt's for TimerAttempt)
	evRefresh                   // shared load reports
	evHealth                    // active health checks
	evScript                    // script event a
	evBin                       // close a 250 ms series bin
	evStop                      // the end of the arrivals
)

// event is a value type so the heap holds no pointers and allocates nothing.
type event struct {
	at   clock.Instant
	seq  uint64 // insertion order: ties at one instant fire first-in first-out
	h    uint64 // attempt or call handle
	a    int32
	kind kind
}

func (e *event) less(o *event) bool {
	return e.at < o.at || (e.at == o.at && e.seq < o.seq)
}

// eventQueue is a 4-ary min-heap of events ordered by (at, seq): shallower
// than a binary heap, so fewer cache misses per pop.
type eventQueue struct {
	items []event
	seq   uint64
	held  bool // the top has been taken (hold) but is still in place
}

func (q *eventQueue) Len() int { return len(q.items) }

// push schedules e (its seq is assigned here). Sifting moves a hole rather
// than swapping, so each level costs one 32-byte copy instead of two.
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	if q.held { // the taken top's slot: one sift instead of a pop and a push
		q.held = false
		q.siftDown(e, len(q.items))
		return
	}
	q.items = append(q.items, e)
	items := q.items
	i := len(items) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !e.less(&items[p]) {
			break
		}
		items[i] = items[p]
		i = p
	}
	items[i] = e
}

// hold takes the earliest event but leaves its slot in place: the first push
// while it is held reuses the slot, which saves a sift in the common case of
// an event that schedules another; release frees the slot if none came. The
// order of events is the same as with pop. The queue must not be empty.
func (q *eventQueue) hold() event {
	q.held = true
	return q.items[0]
}

// release removes a held top that no push has reused.
func (q *eventQueue) release() {
	if q.held {
		q.held = false
		q.pop()
	}
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() event {
	items := q.items
	top := items[0]
	n := len(items) - 1
	last := items[n]
	q.items = items[:n]
	if n > 0 {
		q.siftDown(last, n)
	}
	return top
}

// siftDown places e, starting from the root hole, among the first n items.
func (q *eventQueue) siftDown(e event, n int) {
	items := q.items
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if items[k].less(&items[best]) {
				best = k
			}
		}
		if !items[best].less(&e) {
			break
		}
		items[i] = items[best]
		i = best
	}
	items[i] = e
}

// peek returns the earliest event's time.
func (q *eventQueue) peek() clock.Instant { return q.items[0].at }
