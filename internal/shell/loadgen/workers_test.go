package loadgen

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/lblab/lblab/internal/shell/pace"
)

// A worker stays while it is in use and leaves once it has been idle for
// idleWorker (its idle timer is armed once, not per attempt: it leaves
// between idleWorker and twice that after its last attempt).
func TestIdleWorkersLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTransport(nil, "", nil, pace.Runtime)
		out := make(chan result, 4)
		attempt := func() {
			tr.launch(job{reject: true}, out) // answered 503 at once: no HTTP
			if r := <-out; r.status != 503 {
				t.Fatalf("status %d, want 503", r.status)
			}
			synctest.Wait() // the worker is parked again
		}
		idle := func() int {
			tr.pool.mu.Lock()
			defer tr.pool.mu.Unlock()
			return len(tr.pool.idle)
		}
		attempt()
		for range 6 { // used every 0.7 idleWorker (off the timer's beat): never idle long
			time.Sleep(idleWorker * 7 / 10)
			attempt()
		}
		if n := tr.pool.started.Load(); n != 1 || idle() != 1 {
			t.Fatalf("%d workers started, %d idle; want the one worker reused", n, idle())
		}
		time.Sleep(idleWorker - time.Millisecond)
		synctest.Wait()
		if idle() != 1 {
			t.Fatalf("the worker left %v after its last attempt, before idleWorker (%v)", idleWorker-time.Millisecond, idleWorker)
		}
		time.Sleep(idleWorker + time.Millisecond) // twice idleWorker since the last attempt
		synctest.Wait()
		if idle() != 0 {
			t.Fatalf("the worker is still there %v after its last attempt", 2*idleWorker)
		}
		close(tr.quit)
		tr.wg.Wait()
	})
}
