package watch

import "sync/atomic"

// queueLock is the Server's lock. Unlike sync.Mutex it goes to those
// waiting for it in the order they asked: its one slot is a channel of
// one, whose blocked senders the Go runtime queues in order and hands the
// slot to, the first of them, on the receive that unlocks it. A
// sync.Mutex lets the goroutine that has just unlocked it take it again
// before a waiter woken for it runs (and turns fair only for a waiter
// that has lost that way once), so playback at max, which locks again at
// once after each tick, kept a request of the API waiting for two ticks
// (122 ms at the median on an idle 2-core machine, 230 ms beside two CPU
// hogs) when it should wait for one slice. It also tells playback whether anyone
// waits (waited), so that a tick ends after its slice.
type queueLock struct {
	slot    chan struct{} // holds a token while locked
	waiting atomic.Int32  // goroutines blocked in Lock
}

func newQueueLock() *queueLock { return &queueLock{slot: make(chan struct{}, 1)} }

func (l *queueLock) Lock() {
	select {
	case l.slot <- struct{}{}:
		return
	default:
	}
	l.waiting.Add(1)
	l.slot <- struct{}{}
	l.waiting.Add(-1)
}

func (l *queueLock) Unlock() { <-l.slot }

// waited reports whether some goroutine waits for the lock.
func (l *queueLock) waited() bool { return l.waiting.Load() > 0 }
