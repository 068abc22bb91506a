package pace

// entry is one pending wait.
type entry struct {
	at    int64 // deadline (mono)
	idx   int   // position in the heap; -1 when not queued
	kind  Kind
	timer bool          // a Timer's channel: lateness recorded when it fires
	ch    chan struct{} // capacity 1: receives a value when due
	f     func()        // or: run on its own goroutine when due
}

// run is an AfterFunc timer's firing, on its own goroutine.
func (e *entry) run(s *Scheduler, at int64, f func()) {
	s.tally.record(e.kind, mono()-at)
	f()
}

// heap is a binary min-heap of entries by deadline, each knowing its index
// so that a cancelled wait or a reset timer leaves in O(log n).
type heap []*entry

func (h *heap) push(e *entry) {
	e.idx = len(*h)
	*h = append(*h, e)
	h.up(e.idx)
}

func (h *heap) pop() *entry {
	e := (*h)[0]
	h.remove(e)
	return e
}

func (h *heap) remove(e *entry) {
	q := *h
	i, last := e.idx, len(q)-1
	if i != last {
		q[i] = q[last]
		q[i].idx = i
	}
	q[last] = nil
	*h = q[:last]
	if i != last {
		if !h.down(i) {
			h.up(i)
		}
	}
	e.idx = -1
}

func (h heap) up(i int) {
	e := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if h[p].at <= e.at {
			break
		}
		h[i] = h[p]
		h[i].idx = i
		i = p
	}
	h[i] = e
	e.idx = i
}

// down sifts h[i] down; false if it did not move.
func (h heap) down(i int) bool {
	e, start, n := h[i], i, len(h)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && h[r].at < h[c].at {
			c = r
		}
		if h[c].at >= e.at {
			break
		}
		h[i] = h[c]
		h[i].idx = i
		i = c
	}
	h[i] = e
	e.idx = i
	return i != start
}
