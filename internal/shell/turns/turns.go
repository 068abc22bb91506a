// Package turns saves a system call per HTTP/1.1 exchange on connections
// whose two sides take turns: the client writes a request and reads its
// answer, the server writes an answer and reads the next request.
//
// Go's netpoller tries every read before it waits, and right after one side
// has written its turn the other side's reply cannot be there yet, so that
// first read returns EAGAIN: a whole system call for nothing (on a virtual
// machine a system call is most of what a proxied request costs:
// docs/BENCHMARKS.md, "lb next to HAProxy"). A Conn holds what is written
// back until the next read, which sends it from inside the poller's read
// (syscall.RawConn.Read) and waits for the socket to turn readable before
// it reads. The order is what makes the wait safe: the poller forgets
// readiness when a read starts, so bytes that came in between a send and a
// separate read's start would not wake it; sent after the start, a reply
// can only come later and always wakes it.
//
// A client (Client) is owed an answer to every request, so its wait always
// ends. A server (Server) cannot know that its peer waited for the answer:
// a client that pipelines may have sent its next request already, before
// the read started, and would then not wake it. So a server's wait is
// guarded: after Guard without a wake-up it reads anyway, and a connection
// whose peer was found twice in a row to have sent early is read the
// ordinary way for its next EarlyReads reads (a pipelining client waits at
// most 2 x Guard once in so many requests). Once alone is not enough: on a
// busy machine a request often comes just as the guard runs out, before the
// server reads, and looks the same. Only the wait's first Guard is changed: the
// read deadline the caller set still bounds it.
//
// Anything else takes the ordinary paths: a second write before a read
// sends the first at once, a write larger than MaxHeld or one the socket
// cannot take whole is sent by net.TCPConn's Write, which waits for room,
// and Close sends what is held first. Deadlines, errors and EOF read as a
// plain TCP connection's.
package turns

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// MaxHeld is the largest write held back; a larger one is sent at once.
const MaxHeld = 64 << 10

// Guard is how long a server waits for the peer's next request before it
// looks whether the request came before its answer went. Longer than a
// loaded closed-loop client's turn-around (32 connections at 10,000
// requests/s: 3 ms), so it rarely runs out while requests flow.
const Guard = 10 * time.Millisecond

// EarlyReads is how many reads a server does the ordinary way after its
// peer was found to have sent before its turn.
const EarlyReads = 1024

// Conn is a TCP connection that holds a turn back until the next read.
type Conn struct {
	*net.TCPConn
	raw    syscall.RawConn
	server bool

	mu     sync.Mutex // guards the fields below (Close may come from another goroutine)
	held   []byte     // written, not yet sent
	spare  []byte     // the other buffer: held is swapped out while it is sent
	rd     time.Time  // the read deadline the caller set
	synced bool       // the socket's read deadline is rd (else the guard's, or not yet set)
	early  int        // reads left to do the ordinary way: the peer sent before its turn
	found  int        // guards in a row that ran out and found the peer's bytes there (the reader's own)
}

// Client wraps a client's connection to a server (c unchanged when it is
// not TCP).
func Client(c net.Conn) net.Conn { return wrap(c, false) }

// Server wraps a connection a server accepted (c unchanged when it is not
// TCP).
func Server(c net.Conn) net.Conn { return wrap(c, true) }

func wrap(c net.Conn, server bool) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &Conn{TCPConn: tc, raw: raw, server: server, synced: true}
}

// Listen wraps every TCP connection ln accepts with Server.
func Listen(ln net.Listener) net.Listener { return listener{ln} }

type listener struct{ net.Listener }

func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return Server(c), nil
}

// guarded reports whether a read with something held waits under the guard.
// Caller holds mu.
func (c *Conn) guarded() bool { return c.server && c.early == 0 && len(c.held) > 0 }

func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.flushLocked(); err != nil {
		return 0, err
	}
	if c.server && c.early > 0 { // an answer sent at once counts as an ordinary read's
		c.early--
		return c.TCPConn.Write(p)
	}
	if len(p) > MaxHeld {
		return c.TCPConn.Write(p)
	}
	c.held = append(c.held, p...)
	return len(p), nil
}

// flushLocked sends what is held through net.TCPConn's Write. Caller holds mu.
func (c *Conn) flushLocked() error {
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.TCPConn.Write(c.held)
	c.held = c.held[:0]
	return err
}

// syncLocked sets the socket's read deadline to the caller's. Caller holds mu.
func (c *Conn) syncLocked() error {
	if c.synced {
		return nil
	}
	c.synced = true
	return c.TCPConn.SetReadDeadline(c.rd)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd, c.synced = t, false
	if c.guarded() {
		return nil // the next read sets it, or the guard's if sooner
	}
	return c.syncLocked()
}

func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.SetReadDeadline(t)
}

func (c *Conn) Close() error {
	c.mu.Lock()
	_ = c.flushLocked() // as a plain connection would have sent it already
	c.mu.Unlock()
	return c.TCPConn.Close()
}

func (c *Conn) Read(b []byte) (int, error) {
	c.mu.Lock()
	var guard time.Time
	if c.server {
		// The caller's deadline bounds the whole wait; one sooner than the
		// guard's leaves no time to guard it: read the ordinary way.
		guard = time.Now().Add(Guard)
	}
	if len(c.held) == 0 || len(b) == 0 || (c.server && (c.early > 0 || (!c.rd.IsZero() && c.rd.Before(guard)))) {
		return c.plainRead(b, c.flushLocked)
	}
	var err error
	if c.server {
		c.synced = false
		err = c.TCPConn.SetReadDeadline(guard)
	}
	p := c.held
	c.held, c.spare = c.spare[:0], p
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}

	if stall != nil {
		stall()
	}
	n, rest, werr, err := c.sendThenRead(p, b)
	switch {
	case werr != nil:
		return 0, c.opError("write", os.NewSyscallError("write", werr))
	case rest != nil: // the socket did not take it all, or the poller returned before the send
		c.mu.Lock()
		return c.plainRead(b, func() error { _, err := c.TCPConn.Write(rest); return err })
	case err != nil && c.server && errors.Is(err, os.ErrDeadlineExceeded):
		// The guard's time is up (the caller's deadline is later). If the
		// peer's bytes came before the answer went, they are there now.
		c.mu.Lock()
		err = c.syncLocked()
		c.mu.Unlock()
		if err != nil {
			return 0, err
		}
		return c.readAfterWait(b)
	case err != nil:
		return 0, c.readError(err)
	case n == 0:
		return 0, io.EOF
	}
	c.found = 0 // woken in time
	return n, nil
}

// plainRead finishes a read the ordinary way: send (what is held, or the
// rest of it) and the caller's read deadline back on the socket under mu,
// which the caller holds and plainRead releases, then net's read.
func (c *Conn) plainRead(b []byte, send func() error) (int, error) {
	err := send()
	if err == nil {
		err = c.syncLocked()
	}
	c.mu.Unlock()
	if err != nil {
		return 0, err
	}
	return c.TCPConn.Read(b)
}

// stall, when set (by tests only), runs between a guarded read setting the
// guard's deadline and the poller's read: a goroutine that the scheduler
// runs late.
var stall func()

// sendThenRead sends p and then reads into b once the socket is readable,
// in one pass of the poller's read loop: n and err are the read's; rest is
// what the socket did not take (nil: all sent), werr a failed send.
//
// The poller checks the read deadline before it calls the callback: when
// the deadline has already passed (a server's guard, 10 ms, is over before
// a goroutine held up by a busy machine gets here; or a client's own), it
// returns at once and nothing is sent. Then all of p is rest, and the
// caller sends it the ordinary way: a turn once written is always sent.
func (c *Conn) sendThenRead(p, b []byte) (n int, rest []byte, werr, err error) {
	sent := false
	defer func() {
		if !sent {
			rest = p
		}
	}()
	var rerr error
	err = c.raw.Read(func(fd uintptr) bool {
		if !sent {
			sent = true
			w, e := ignoringEINTR(func() (int, error) { return syscall.Write(int(fd), p) })
			switch {
			case e == syscall.EAGAIN:
				rest = p
				return true
			case e != nil:
				werr = e
				return true
			case w < len(p):
				rest = p[w:]
				return true
			}
			return false // the reply cannot be there yet: wait for it
		}
		n, rerr = ignoringEINTR(func() (int, error) { return syscall.Read(int(fd), b) })
		return rerr != syscall.EAGAIN
	})
	if err == nil && rerr != nil {
		err = os.NewSyscallError("read", rerr)
	}
	return n, rest, werr, err
}

// readAfterWait reads once the guard ran out: bytes there at once mean the
// peer sent before its turn (it pipelines, or its request came just as the
// guard ran out); the second time in a row, the connection's next
// EarlyReads reads are ordinary. Else it goes on waiting, under the
// caller's deadline.
func (c *Conn) readAfterWait(b []byte) (int, error) {
	first := true
	var n int
	var rerr error
	err := c.raw.Read(func(fd uintptr) bool {
		n, rerr = ignoringEINTR(func() (int, error) { return syscall.Read(int(fd), b) })
		if rerr == syscall.EAGAIN {
			first = false
			return false
		}
		if first && n > 0 {
			if c.found++; c.found >= 2 {
				c.mu.Lock()
				c.early, c.found = EarlyReads, 0
				c.mu.Unlock()
			}
		}
		return true
	})
	switch {
	case err != nil:
		return 0, c.readError(err)
	case rerr != nil:
		return 0, c.opError("read", os.NewSyscallError("read", rerr))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// readError is err as net.TCPConn's Read would have returned it.
func (c *Conn) readError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	return c.opError("read", err)
}

func (c *Conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
