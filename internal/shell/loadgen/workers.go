package loadgen

import (
	"sync"
	"sync/atomic"
	"time"
)

// idleWorker is how long a worker waits for its next attempt before exiting.
const idleWorker = 2 * time.Second

// workerPool keeps the goroutines that run attempts. A goroutine per attempt
// paid for a fresh stack and its growth through the HTTP client every time,
// which was most of the loadgen's CPU at high rates. Idle workers wait on a
// stack, so the one that finished last (its stack warm and already grown) is
// reused first, and a new one starts only when none is idle: handing off is
// a buffered send, never a race with a worker on its way back.
type workerPool struct {
	mu      sync.Mutex
	idle    []*worker
	started atomic.Uint64 // workers ever started (for tests and benchmarks)
}

type worker struct{ next chan task } // capacity 1: a hand-off never blocks

// take pops the most recently idle worker, or nil.
func (p *workerPool) take() *worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	w := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return w
}

func (p *workerPool) park(w *worker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// leave removes w from the idle stack; false if a launcher took it first
// (and is handing it a task).
func (p *workerPool) leave(w *worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.idle {
		if x == w {
			p.idle = append(p.idle[:i], p.idle[i+1:]...)
			return true
		}
	}
	return false
}

// launch hands j to an idle worker, or starts a new one.
func (tr *transport) launch(j job, out chan<- result) {
	t := task{j, out}
	if w := tr.pool.take(); w != nil {
		w.next <- t
		return
	}
	tr.pool.started.Add(1)
	tr.wg.Add(1)
	go tr.work(&worker{next: make(chan task, 1)}, t)
}

// work runs attempts until the worker has been idle for idleWorker or the
// loop stops.
//
// Its idle timer is armed once, not per attempt (a Reset per attempt is a
// lock and a heap update of the runtime's timers on every request): when it
// fires, a worker that ran attempts since it was armed re-arms it and waits
// on, so an idle worker leaves between idleWorker and twice that after its
// last attempt.
func (tr *transport) work(w *worker, t task) {
	defer tr.wg.Done()
	growStack(t.j.target)
	timer := time.NewTimer(idleWorker)
	defer timer.Stop()
	used := false // ran an attempt since the timer was armed
	for {
		if !tr.run(t) {
			return
		}
		used = true
		tr.pool.park(w)
		var ok bool
		if t, ok = tr.await(w, timer, &used); !ok {
			return
		}
	}
}

// await waits for w's next task; false when the worker is to exit: idle
// since its timer was last armed, or the loop has stopped.
func (tr *transport) await(w *worker, timer *time.Timer, used *bool) (task, bool) {
	for {
		select {
		case t := <-w.next:
			return t, true
		case <-timer.C:
			if *used { // used since: wait on
				*used = false
				timer.Reset(idleWorker)
				continue
			}
			if tr.pool.leave(w) {
				return task{}, false
			}
			return <-w.next, true // taken just now: its task is on the way
		case <-tr.quit:
			return task{}, false
		}
	}
}

// stackNeed is about the stack an attempt takes through the HTTP client.
const stackNeed = 16 << 10

// growStack makes a new worker's stack as large as an attempt needs in one
// step. Left to itself, the stack starts small and doubles several times
// on the way through fasthttp, each time copying the frames already on it;
// that was 18-29% of the loadgen's CPU samples when a stall made it start
// many workers at once (BenchmarkWorkerStart: 2.2 us against 5.3).
//
//go:noinline
func growStack(i int) byte {
	var pad [stackNeed]byte // indexed by an argument: the frame stays
	pad[i%stackNeed] = 1
	return pad[(i+1)%stackNeed]
}
