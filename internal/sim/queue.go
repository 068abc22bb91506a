package sim

import "github.com/lblab/lblab/internal/clock"

// kind is what an event does when it fires.
type kind uint8

const (
	evAtBalancer    kind = iota // an attempt reaches its balancer (h)
	evAtServer                  // an attempt reaches its server (h)
	evWake                      // a server's next deadline (a = server)
	evReplyAtLB                 // a server's reply reaches the balancer (h)
	evReplyAtClient             // an answer reaches the client (h)
	evLBTimeout                 // a balancer's per-attempt timeout (h)
	evCancel                    // a cancellation reaches the server (h)
	evTimer                     // a client timer (a = client.TimerKind, h = its Ref)
	evRefresh                   // shared load reports
	evHealth                    // active health checks
	evScript                    // script event a
	evBin                       // close a 250 ms series bin
	evStop                      // the end of the arrivals
	evUndo                      // the undo of a time-boxed script event (a = index in world.undos)
	evProbeAtServer             // a probe reaches its server (h: world.probes)
	evProbeAtLB                 // a probe's answer reaches its balancer (h: world.probes)
	evIdleAtLB                  // a server's idle announcement reaches its balancer (h: balancer, a: server)
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

// eventQueue orders events by (at, seq). Most events are network hops: a
// fixed delay after the instant they are scheduled, so they come due in the
// order they were pushed. Those go to a FIFO ring (O(1) both ways) and the
// rest to a 4-ary min-heap (shallower than a binary heap, so fewer cache
// misses per pop); taking the earlier of the two heads gives exactly the
// order one heap would, so reports do not change.
type eventQueue struct {
	items []event // the heap
	seq   uint64
	held  bool // the heap's top has been taken (hold) but is still in place
	fifo  ring // events pushed in (at, seq) order
}

func (q *eventQueue) Len() int { return len(q.items) + q.fifo.n }

// Places is how many events the queue has room for (its heap's and its
// FIFO's arrays): what it weighs.
func (q *eventQueue) Places() int { return cap(q.items) + len(q.fifo.buf) }

// pushInOrder schedules e, which is usually due no earlier than every event
// pushed this way before it (a fixed delay from a clock that never goes
// back): then it joins the FIFO; otherwise the heap.
func (q *eventQueue) pushInOrder(at clock.Instant, k kind, h uint64) {
	if q.fifo.n > 0 && at < q.fifo.last().at {
		q.push(event{at: at, kind: k, h: h})
		return
	}
	e := q.fifo.grab() // filled in place: no 32-byte copies on the way
	e.at, e.seq, e.h, e.a, e.kind = at, q.seq, h, 0, k
	q.seq++
}

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

// hold takes the heap's earliest event but leaves its slot in place: the
// first push while it is held reuses the slot, which saves a sift in the
// common case of an event that schedules another; release frees the slot if
// none came. The order of events is the same as with pop. The heap must not
// be empty (the loop calls it when earliest says fromHeap).
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

// source says where the loop's next event comes from.
type source uint8

const (
	fromHeap source = iota
	fromFIFO
	fromArrival // the pending open-loop arrival, kept outside the queue
)

// earliest returns the time of the earliest event (clock.Never when empty)
// and whether it heads the heap or the FIFO.
func (q *eventQueue) earliest() (clock.Instant, source) {
	if q.fifo.n > 0 && (len(q.items) == 0 || q.fifo.first().less(&q.items[0])) {
		return q.fifo.first().at, fromFIFO
	}
	if len(q.items) > 0 {
		return q.items[0].at, fromHeap
	}
	return clock.Never, fromHeap
}

// ring is a FIFO of events in a power-of-two circular buffer that doubles
// when full, so a long run reuses the same memory.
type ring struct {
	buf  []event
	head int // index of the first event
	n    int // events held
}

func (r *ring) first() *event { return &r.buf[r.head] }
func (r *ring) last() *event  { return &r.buf[(r.head+r.n-1)&(len(r.buf)-1)] }

// grab appends a slot at the tail and returns it to be filled.
func (r *ring) grab() *event {
	if r.n == len(r.buf) {
		r.grow()
	}
	e := &r.buf[(r.head+r.n)&(len(r.buf)-1)]
	r.n++
	return e
}

func (r *ring) take() event {
	e := r.buf[r.head]
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
	return e
}

func (r *ring) grow() {
	buf := make([]event, max(64, 2*len(r.buf)))
	for i := 0; i < r.n; i++ {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}
