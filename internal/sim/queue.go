package sim

import "github.com/lblab/lblab/internal/clock"

// kind is what an event does when it fires.
type kind uint8

const (
	evArrival       kind = iota // the next open-loop request is due
	evThink                     // a closed-loop user starts its next request (a = user)
	evAtBalancer                // an attempt reaches its balancer (h)
	evAtServer                  // an attempt reaches its server (h)
	evWake                      // a server's next deadline (a = server)
	evReplyAtLB                 // a server's reply reaches the balancer (h)
	evReplyAtClient             // an answer reaches the client (h)
	evLBTimeout                 // a balancer's per-attempt timeout (h)
	evCancel                    // a cancellation reaches the server (h)
	evTimer                     // a client timer (h = call handle, a = timer, b = attempt handle)
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
	b    uint64
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
}

func (q *eventQueue) Len() int { return len(q.items) }

// push schedules e (its seq is assigned here).
func (q *eventQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.items = append(q.items, e)
	i := len(q.items) - 1
	for i > 0 {
		p := (i - 1) / 4
		if !q.items[i].less(&q.items[p]) {
			break
		}
		q.items[i], q.items[p] = q.items[p], q.items[i]
		i = p
	}
}

// pop removes and returns the earliest event; the queue must not be empty.
func (q *eventQueue) pop() event {
	top := q.items[0]
	n := len(q.items) - 1
	q.items[0] = q.items[n]
	q.items = q.items[:n]
	q.down(0)
	return top
}

func (q *eventQueue) down(i int) {
	n := len(q.items)
	for {
		c := 4*i + 1
		if c >= n {
			return
		}
		best := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if q.items[k].less(&q.items[best]) {
				best = k
			}
		}
		if !q.items[best].less(&q.items[i]) {
			return
		}
		q.items[i], q.items[best] = q.items[best], q.items[i]
		i = best
	}
}

// peek returns the earliest event's time.
func (q *eventQueue) peek() clock.Instant { return q.items[0].at }
