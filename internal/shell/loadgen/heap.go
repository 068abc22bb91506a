package loadgen

import "github.com/lblab/lblab/internal/clock"

// kind is what a timer event does when it fires.
type kind uint8

const (
	evArrival  kind = iota // the pending open-loop request is due (b = arrival generation)
	evTimer                // a client timer (t = target, a = client.TimerKind, h = its Ref)
	evBin                  // close a 250 ms series bin
	evProgress             // redraw the progress line
	evStop                 // the end of the arrivals (wakes an idle loop)
	evCut                  // the drain limit: end what is still pending
	evSweep                // close the connections idle past keepalive (conns.go)
)

// event is one entry of the loop's timer heap, ordered by (at, seq) so ties
// fire first-in first-out, as in the simulator.
type event struct {
	at   clock.Instant
	seq  uint64
	h, b uint64
	a    int32
	t    int32
	kind kind
}

type events []event

func (q events) less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}

// timerQueue is the heap of everything the loop must do at a given instant:
// a binary heap of its own, not container/heap, whose Push and Pop take and
// return an any (an allocation for every event boxed, two per request in a
// closed loop).
type timerQueue struct {
	items events
	seq   uint64
}

func (q *timerQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	q.items = append(q.items, e)
	h := q.items
	for i := len(h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h.less(i, up) {
			break
		}
		h[i], h[up] = h[up], h[i]
		i = up
	}
}

// peek returns the earliest instant, or clock.Never when empty.
func (q *timerQueue) peek() clock.Instant {
	if len(q.items) == 0 {
		return clock.Never
	}
	return q.items[0].at
}

// pop takes the earliest event off; the heap must not be empty.
func (q *timerQueue) pop() event {
	h := q.items
	e := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		m, l, r := i, 2*i+1, 2*i+2
		if l < n && h.less(l, m) {
			m = l
		}
		if r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.items = h
	return e
}
