package lb

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// exchangeConn is a pooled TCP connection to a backend, on which whatever is
// written is a request and what is read next is its answer. It saves the
// read that could only fail: Go's netpoller tries every read before it
// waits, and right after a request is sent its answer cannot be there yet,
// so that first read returns EAGAIN, a whole system call for nothing (on a
// virtual machine a system call is most of a proxied request's cost:
// docs/BENCHMARKS.md). Here a request's bytes are held back until the
// answer is read; the read then sends them from inside the poller's read
// loop (RawConn.Read) and waits for the socket to turn readable before
// reading. Sending after the read has armed the poller is what makes the
// wait safe: an answer can only follow its request, so its arrival always
// wakes the wait. (Armed after the send, the wake-up of an answer that came
// in between would be lost: the poller forgets readiness when a read
// starts.)
//
// Anything else takes the ordinary paths: a second write before a read
// sends the first at once, a write too large to hold or one the socket
// cannot take whole is sent by net.Conn's own Write, which waits for room,
// and Close sends what is held first.
type exchangeConn struct {
	*net.TCPConn
	raw  syscall.RawConn
	held []byte // a request not yet sent
}

// maxHeld is the largest request held back; a larger one is sent at once.
const maxHeld = 64 << 10

// newExchangeConn wraps c when it is a TCP connection (else returns it).
func newExchangeConn(c net.Conn) net.Conn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c
	}
	return &exchangeConn{TCPConn: tc, raw: raw}
}

func (c *exchangeConn) Write(p []byte) (int, error) {
	if err := c.flush(); err != nil {
		return 0, err
	}
	if len(p) > maxHeld {
		return c.TCPConn.Write(p)
	}
	c.held = append(c.held, p...)
	return len(p), nil
}

// flush sends what is held through net.Conn's Write.
func (c *exchangeConn) flush() error {
	if len(c.held) == 0 {
		return nil
	}
	_, err := c.TCPConn.Write(c.held)
	c.held = c.held[:0]
	return err
}

func (c *exchangeConn) Read(b []byte) (int, error) {
	if len(c.held) == 0 || len(b) == 0 {
		return c.TCPConn.Read(b)
	}
	var (
		n         int
		rerr      error
		sent      bool
		unsent    bool // the socket took less than all: net.Conn's Write sends the rest
		writeFail error
	)
	err := c.raw.Read(func(fd uintptr) bool {
		if !sent {
			sent = true
			w, err := ignoringEINTR(func() (int, error) { return syscall.Write(int(fd), c.held) })
			switch {
			case err == syscall.EAGAIN:
				unsent = true
				return true
			case err != nil:
				writeFail = err
				return true
			case w < len(c.held):
				c.held = c.held[:copy(c.held, c.held[w:])]
				unsent = true
				return true
			}
			c.held = c.held[:0]
			return false // the answer cannot be there yet: wait for it
		}
		n, rerr = ignoringEINTR(func() (int, error) { return syscall.Read(int(fd), b) })
		return rerr != syscall.EAGAIN
	})
	switch {
	case writeFail != nil:
		c.held = c.held[:0]
		return 0, c.opError("write", os.NewSyscallError("write", writeFail))
	case unsent:
		if err := c.flush(); err != nil {
			return 0, err
		}
		return c.TCPConn.Read(b)
	case err != nil:
		var oe *net.OpError
		if errors.As(err, &oe) {
			err = oe.Err
		}
		return 0, c.opError("read", err)
	case rerr != nil:
		return 0, c.opError("read", os.NewSyscallError("read", rerr))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *exchangeConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

func (c *exchangeConn) Close() error {
	_ = c.flush() // as a plain connection would have sent it already
	return c.TCPConn.Close()
}

func ignoringEINTR(f func() (int, error)) (int, error) {
	for {
		n, err := f()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
