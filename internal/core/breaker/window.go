package breaker

// window is a ring of the last len(ring) results, true = failed, with the
// running count of failures: invariant failed == count of true in ring[:n]
// (taken over the filled slots), n <= len(ring).
type window struct {
	ring   []bool
	next   int // slot the next result goes into
	n      int // results held
	failed int // failures among them
}

func newWindow(size int) window { return window{ring: make([]bool, size)} }

// add pushes one result, evicting the oldest once the ring is full.
func (w *window) add(failed bool) {
	if w.n == len(w.ring) {
		if w.ring[w.next] {
			w.failed--
		}
	} else {
		w.n++
	}
	w.ring[w.next] = failed
	if failed {
		w.failed++
	}
	w.next++
	if w.next == len(w.ring) {
		w.next = 0
	}
}

func (w *window) counts() (failed, total int) { return w.failed, w.n }

func (w *window) reset() {
	clear(w.ring)
	w.next, w.n, w.failed = 0, 0, 0
}
