package loadgen

import (
	"slices"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/conns"
)

// connPool is an endpoint's bounded pool of keep-alive connections, for
// the attempts whose connection the lab does not model (conns.go does
// those): at most max open at once, the most recently used idle one first
// (LIFO), a new one dialed only when none is idle and the bound leaves
// room, otherwise a wait for one until the attempt's deadline (then
// fasthttp.ErrNoFreeConns). A connection that failed, or that either side
// said to close, is closed; one idle for idleConn is closed by the
// transport's reaper, and every idle one when the last worker leaves.
//
// It replaces fasthttp.HostClient, whose pool it follows, on the hot path:
// an exchange through HostClient read the clock four times (its timeouts
// and the connection's last use), took a pooled reader and writer and set
// both deadlines, about 7% of the loadgen's CPU in a closed loop against
// nginx; here it is one lock to take a connection, one to give it back, and
// the request written and the answer read on the connection's own buffers.
type connPool struct {
	addr string
	dial *conns.Dialer
	max  int
	quit <-chan struct{} // the transport stops: waiters give up

	mu      sync.Mutex
	idle    []idleConn     // oldest first; taken from the end
	open    int            // connections dialed or dialing and not closed: idle, in use, or a waiter's to dial
	waiters []chan *pooled // attempts waiting, first come first served
	tick    uint64         // the reaper's ticks (reapIdle)
}

// pooled is one connection of the pool.
type pooled struct{ c *conns.Conn }

// idleConn is an idle connection and the reaper's tick when it went idle.
type idleConn struct {
	p      *pooled
	parked uint64
}

// idleConnFor is how long a connection may idle before the reaper closes
// it (fasthttp's MaxIdleConnDuration, which the loadgen used before).
const idleConnFor = 10 * time.Second

// idleTicks is idleConnFor in reaper ticks, one more for a park before the
// tick counted.
const idleTicks = uint64(idleConnFor/reapEvery) + 1

func newConnPool(addr string, dial *conns.Dialer, maxConns int, quit <-chan struct{}) *connPool {
	return &connPool{addr: addr, dial: dial, max: max(maxConns, 1), quit: quit}
}

// do sends req over one of the pool's connections and reads the answer
// into resp, by deadline.
func (p *connPool) do(req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time) error {
	c, err := p.acquire(deadline)
	if err != nil {
		return err
	}
	err = c.c.Do(req, resp, deadline, 0)
	if err != nil || resp.ConnectionClose() || req.ConnectionClose() {
		p.discard(c)
		return err
	}
	p.release(c)
	return nil
}

// acquire returns an idle connection, a new one, or (at the bound) the
// first one given back or freed before the deadline.
func (p *connPool) acquire(deadline time.Time) (*pooled, error) {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1].p
		p.idle[n-1] = idleConn{}
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return c, nil
	}
	if p.open < p.max {
		p.open++
		p.mu.Unlock()
		return p.dialNew(deadline)
	}
	w := make(chan *pooled, 1)
	p.waiters = append(p.waiters, w)
	p.mu.Unlock()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	var c *pooled
	select {
	case c = <-w:
	case <-t.C:
		if c = p.leave(w); c == nil {
			return nil, fasthttp.ErrNoFreeConns
		}
	case <-p.quit:
		if c = p.leave(w); c == nil {
			return nil, errClosed
		}
	}
	if c.c == nil { // a connection closed: its place is this waiter's to dial
		return p.dialNew(deadline)
	}
	return c, nil
}

// leave takes waiter w off the list; if it was handed a connection (or a
// place) meanwhile, it returns that.
func (p *connPool) leave(w chan *pooled) *pooled {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.waiters {
		if x == w {
			p.waiters = slices.Delete(p.waiters, i, i+1)
			return nil
		}
	}
	return <-w // handed over just before: the send happened under mu
}

// dialNew dials a connection whose place (open) is already counted.
func (p *connPool) dialNew(deadline time.Time) (*pooled, error) {
	c := conns.New(p.addr)
	if err := c.Open(p.dial, deadline); err != nil {
		p.closed()
		return nil, err
	}
	return &pooled{c: c}, nil
}

// release gives a healthy connection back: to the first waiter, else idle.
func (p *connPool) release(c *pooled) {
	p.mu.Lock()
	if w := p.nextWaiter(); w != nil {
		w <- c
		p.mu.Unlock()
		return
	}
	p.idle = append(p.idle, idleConn{p: c, parked: p.tick})
	p.mu.Unlock()
}

// nextWaiter takes the first waiter off the list (nil: none). Caller
// holds mu.
func (p *connPool) nextWaiter() chan *pooled {
	if len(p.waiters) == 0 {
		return nil
	}
	w := p.waiters[0]
	p.waiters[0] = nil // the array keeps no channel of a waiter served
	p.waiters = p.waiters[1:]
	return w
}

// discard closes a connection that failed or was to be closed.
func (p *connPool) discard(c *pooled) {
	c.c.Close()
	p.closed()
}

// closed frees a connection's place: the first waiter's to dial, else
// counted off.
func (p *connPool) closed() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w := p.nextWaiter(); w != nil {
		w <- &pooled{} // no connection: dial one
		return
	}
	p.open--
}

// reapIdle is a tick of the transport's reaper: it closes the connections
// idle idleConnFor or more, or every idle one when all is set.
func (p *connPool) reapIdle(all bool) {
	p.mu.Lock()
	if !all {
		p.tick++
	}
	n := 0
	for n < len(p.idle) && (all || p.tick-p.idle[n].parked >= idleTicks) {
		n++
	}
	gone := make([]*pooled, n)
	for i := range n {
		gone[i] = p.idle[i].p
	}
	p.idle = slices.Delete(p.idle, 0, n) // which clears the tail it leaves: no closed connection is kept
	p.open -= n
	p.mu.Unlock()
	for _, c := range gone {
		c.c.Close()
	}
}

// CloseIdleConnections closes every idle connection (as HostClient's).
func (p *connPool) CloseIdleConnections() { p.reapIdle(true) }

// openConns is how many connections the pool holds open (tests).
func (p *connPool) openConns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open
}

// prime opens up to n connections idle (fewer when the bound is lower or
// a dial fails), by deadline; it returns how many it opened.
func (p *connPool) prime(n int, deadline time.Time) int {
	opened := 0
	for range n {
		p.mu.Lock()
		if p.open >= p.max {
			p.mu.Unlock()
			break
		}
		p.open++
		p.mu.Unlock()
		c, err := p.dialNew(deadline)
		if err != nil {
			break // the attempts will meet the error and report it
		}
		p.release(c)
		opened++
	}
	return opened
}
