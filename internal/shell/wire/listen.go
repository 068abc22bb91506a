package wire

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

// Limits bound one listener: how many connections it holds at once and how
// long a connection may take over a request, a response, or between two.
// The zero value bounds nothing.
type Limits struct {
	// MaxConns caps the open connections; one beyond it is answered 503
	// and closed at once, so a flood cannot take every file descriptor.
	MaxConns int
	// ReadTimeout bounds reading a whole request from its first byte (on a
	// new connection, from accept): slow headers cannot hold a connection.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing a whole response (a stream extends it per
	// write: see the lb's event stream).
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection idle this long, so the
	// goroutines a spike of clients left behind go away.
	IdleTimeout time.Duration
}

// Defaults of the listeners' limits. A data listener's cap defaults to
// DataConns(FDLimit()), an admin listener's is AdminConns(FDLimit()).
const (
	DefaultReadTime  = 10 * time.Second
	DefaultWriteTime = state.WriteTime
	DefaultIdleTime  = time.Minute
)

// AdminLimits are the limits of every admin listener (and lab's
// controller), with the connection cap AdminConns derives from the
// process's open-files limit now.
func AdminLimits() Limits {
	return Limits{MaxConns: AdminConns(FDLimit()), ReadTimeout: DefaultReadTime,
		WriteTimeout: DefaultWriteTime, IdleTimeout: DefaultIdleTime}
}

// DataLimits are the limits of a data (traffic) listener with at most
// maxConns connections (0 = DataConns(FDLimit())).
func DataLimits(maxConns int) Limits {
	if maxConns <= 0 {
		maxConns = DataConns(FDLimit())
	}
	return Limits{MaxConns: maxConns, ReadTimeout: DefaultReadTime, WriteTimeout: DefaultWriteTime,
		IdleTimeout: DefaultIdleTime}
}

// fdReserve are the descriptors kept out of the data listener's share for
// everything but the admin listener (whose cap AdminConns reserves on its
// own): the listeners, logs, health checks, pooled connections to other
// processes.
const fdReserve = 128

// Bounds of an admin listener's connection cap: a sixteenth of the
// open-files limit within them.
const (
	minAdminConns = 16
	maxAdminConns = 256
)

// AdminConns is the connection cap of an admin listener in a process that
// may open fdLimit descriptors: a sixteenth of them, at least 16 and at
// most 256. The data listener's default cap (DataConns) leaves these
// descriptors out, so a flood of admin connections cannot take the ones
// the data port needs (with 256 descriptors, a cap of 256 admin
// connections took them all).
func AdminConns(fdLimit uint64) int {
	return int(min(max(fdLimit/16, minAdminConns), maxAdminConns))
}

// DataConns is the default connection cap of a data listener in a process
// that may open fdLimit descriptors: half of what the admin listener's cap
// and the reserve leave, since a balancer needs a second descriptor
// towards a backend for each client connection; at least 64.
func DataConns(fdLimit uint64) int {
	reserve := fdReserve + uint64(AdminConns(fdLimit))
	if fdLimit <= 2*64+reserve {
		return 64
	}
	return int(min((fdLimit-reserve)/2, 1<<30))
}

// CheckMaxConns validates a --max-conns flag value (0 = the default).
func CheckMaxConns(n int) error {
	if n < 0 || n > 1<<30 {
		return fmt.Errorf("--max-conns: must be 0 (default: from the open-files limit) or in [1, %d], got %d", 1<<30, n)
	}
	return nil
}

// Backoff bounds of a listener whose accept fails for want of resources
// (descriptors, buffers): it waits, doubling the wait, and tries again.
const (
	acceptBackoffMin = 5 * time.Millisecond
	acceptBackoffMax = time.Second
)

// limitListener is a net.Listener that never gives up on a temporary
// accept error and caps the connections it holds.
type limitListener struct {
	net.Listener
	max    int64
	open   atomic.Int64
	logf   func(format string, args ...any)
	closed chan struct{}
	once   sync.Once

	mu      sync.Mutex // guards lastLog
	lastLog time.Time
}

// Listen wraps ln so that a temporary accept error (out of file
// descriptors, of memory or buffers, a connection aborted before accept)
// backs off from 5 ms, doubling to 1 s, and retries instead of ending the
// server's accept loop for good; and so that beyond maxConns open
// connections (0 = no cap) a new one is answered 503 and closed. logf
// (nil = silent) hears of both, at most once a second.
func Listen(ln net.Listener, maxConns int, logf func(format string, args ...any)) net.Listener {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &limitListener{Listener: ln, max: int64(maxConns), logf: logf, closed: make(chan struct{})}
}

func (l *limitListener) Accept() (net.Conn, error) {
	var wait time.Duration
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !temporary(err) {
				return nil, err
			}
			wait = min(max(2*wait, acceptBackoffMin), acceptBackoffMax)
			l.note("accept failed (%v); retrying in %v", err, wait)
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-l.closed:
				t.Stop()
				return nil, net.ErrClosed
			}
			continue
		}
		wait = 0
		if n := l.open.Add(1); l.max > 0 && n > l.max {
			l.open.Add(-1)
			refuse(c, l.max)
			l.note("refused a connection: %d are open, the cap (--max-conns)", l.max)
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

func (l *limitListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// note logs at most once a second.
func (l *limitListener) note(format string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	quiet := now.Sub(l.lastLog) < time.Second
	if !quiet {
		l.lastLog = now
	}
	l.mu.Unlock()
	if !quiet {
		l.logf("listener %s: "+format, append([]any{l.Addr()}, args...)...)
	}
}

// OpenConns is how many connections the listener holds now (for tests and
// metrics); 0 for a listener Listen did not make.
func OpenConns(ln net.Listener) int {
	if l, ok := ln.(*limitListener); ok {
		return int(l.open.Load())
	}
	return 0
}

// temporary reports whether an accept error is worth retrying: the
// process or the system is out of something that comes back.
func temporary(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EINTR, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// refuse answers a connection over the cap with a 503 and closes it. The
// write cannot block for long: a fresh socket's buffer is empty, and the
// deadline bounds it anyway.
func refuse(c net.Conn, max int64) {
	body := fmt.Sprintf(`{"error":"too many connections: this listener holds at most %d","code":503}`+"\n", max)
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = fmt.Fprintf(c, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
	_ = c.Close()
}

// countedConn gives its slot back when closed (once, however often Close
// is called).
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// NetConn is the connection the listener accepted under the wrapper Listen
// puts around it: code that needs the socket itself (a close watch, linger
// on a dropped connection) asks for it here.
func NetConn(c net.Conn) net.Conn {
	if cc, ok := c.(*countedConn); ok {
		return cc.Conn
	}
	return c
}
