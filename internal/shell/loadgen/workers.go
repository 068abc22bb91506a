package loadgen

import (
	"runtime"
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
//
// Idle workers leave by the pool's reaper, not by a timer of their own: a
// worker waiting in a select with its own timer's channel puts that timer
// on the runtime's heap at every wait and takes it off at every wake-up,
// a lock and a heap update on each request (3% of the loadgen's CPU in a
// closed loop against nginx). The reaper ticks every reapEvery while any
// worker runs; a worker parks with the tick count of its park, and the
// reaper sends a leave (a task without out) to those parked reapTicks ticks
// or more before, which have been idle more than idleWorker: an idle worker
// leaves between idleWorker and idleWorker + reapEvery after its last
// attempt. With no worker left the reaper exits too. Each tick also closes
// the connections idle for idleConnFor (connpool.go), and the reaper's exit
// every idle one.
type workerPool struct {
	mu      sync.Mutex
	idle    []*worker     // by park, oldest first: their ticks never decrease
	live    int           // workers started and not told to leave
	reaping bool          // the reaper runs
	tick    uint64        // the reaper's ticks so far
	started atomic.Uint64 // workers ever started (for tests and benchmarks)
}

// worker is one attempt goroutine's mailbox: capacity 1, so a hand-off
// never blocks; parked is the reaper's tick at its last park.
type worker struct {
	next   chan task
	parked uint64
}

const (
	reapEvery = idleWorker / 2
	reapTicks = uint64(idleWorker/reapEvery) + 1 // a park before the tick counted, so one more
)

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
	w.parked = p.tick
	p.idle = append(p.idle, w)
	p.mu.Unlock()
}

// added counts a new worker; true when the reaper is to be started.
func (p *workerPool) added() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.live++
	start := !p.reaping
	p.reaping = true
	return start
}

// reap is one tick of the reaper: it tells the workers idle long enough to
// leave, and returns false (the reaper exits) when none is left.
func (p *workerPool) reap() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tick++
	n := 0
	for n < len(p.idle) && p.tick-p.idle[n].parked >= reapTicks {
		p.idle[n].next <- task{} // leave: its mailbox is empty while it is idle
		n++
	}
	p.idle = append(p.idle[:0], p.idle[n:]...)
	p.live -= n
	if p.live == 0 {
		p.reaping = false
		return false
	}
	return true
}

// reaper runs reap every reapEvery while workers run.
func (tr *transport) reaper() {
	defer tr.wg.Done()
	t := time.NewTicker(reapEvery)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if !tr.pool.reap() {
				tr.reapIdle(true) // no worker left: no connection idles on
				return
			}
			tr.reapIdle(false)
		case <-tr.quit:
			return
		}
	}
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
	if tr.pool.added() {
		tr.wg.Add(1)
		go tr.reaper()
	}
	go tr.work(&worker{next: make(chan task, 1)}, t)
}

// work runs attempts until the reaper tells the worker to leave or the
// loop stops. An answer the worker takes in itself (transport.inline) may
// start the next attempt (a closed-loop user with no think time), which the
// worker runs at once: no hand-over to the loop and back, no wait in the
// pool.
func (tr *transport) work(w *worker, t task) {
	defer tr.wg.Done()
	growStack(t.j.target)
	var ex exchangeBufs
	var r result // declared once: handed to inline by pointer, it lives on the heap
	for {
		r = tr.attempt(&t.j, &ex)
		var taken, has bool
		if tr.inline != nil {
			var next job
			if next, has, taken = tr.inline(&r); has {
				t.j = next
				// Let the other workers whose answers are in take them
				// first: their next requests then go out together, and the
				// server, woken by the first, reads the rest while awake
				// (waking its thread for every request was a third of the
				// cost of a write on loopback), as wrk's event loop reads
				// every ready answer before it writes.
				runtime.Gosched()
				continue
			}
		}
		if !taken && !tr.post(t.out, &r) {
			return
		}
		tr.pool.park(w)
		select {
		case t = <-w.next:
			if t.out == nil { // the reaper's leave
				return
			}
		case <-tr.quit:
			return
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
