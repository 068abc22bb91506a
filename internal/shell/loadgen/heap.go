package loadgen

import (
	"container/heap"

	"github.com/lblab/lblab/internal/clock"
)

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

func (q events) Len() int { return len(q) }
func (q events) Less(i, j int) bool {
	return q[i].at < q[j].at || (q[i].at == q[j].at && q[i].seq < q[j].seq)
}
func (q events) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *events) Push(x any)   { *q = append(*q, x.(event)) }
func (q *events) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// timerQueue is the heap of everything the loop must do at a given instant.
type timerQueue struct {
	items events
	seq   uint64
}

func (q *timerQueue) push(e event) {
	e.seq = q.seq
	q.seq++
	heap.Push(&q.items, e)
}

// peek returns the earliest instant, or clock.Never when empty.
func (q *timerQueue) peek() clock.Instant {
	if len(q.items) == 0 {
		return clock.Never
	}
	return q.items[0].at
}

func (q *timerQueue) pop() event { return heap.Pop(&q.items).(event) }
