// Package conns is the live side of the connection model
// (internal/core/conn, docs/model.md "Connections"): one real TCP (or TLS)
// connection per connection the model names, dialed when the model says
// the connection is new and closed when the model closes it, carrying one
// HTTP/1.1 exchange at a time. The loadgen and the lb run the model and use
// it; the backends and the lb count the connections they accept with
// Listen, so a run shows whether the processes opened what the model
// counted. It also makes and loads the lab's self-signed certificate.
package conns

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
)

// Dialer opens connections: TCP through Dial, then a TLS handshake when TLS
// is set (a full one each time: no session cache, so every new connection
// costs what the model says it does).
type Dialer struct {
	Dial func(addr string) (net.Conn, error) // nil = TCP with a 3 s timeout
	TLS  *tls.Config                         // nil = plain HTTP
}

// Conn is one connection of the model: not dialed until Open, used by one
// exchange at a time. Close may come from another goroutine (shutdown).
type Conn struct {
	addr string
	c    net.Conn
	rd   counter
	br   *bufio.Reader
	bw   *bufio.Writer
}

// New returns the connection to addr, not yet dialed.
func New(addr string) *Conn { return &Conn{addr: addr} }

// Opened reports whether the connection was dialed.
func (c *Conn) Opened() bool { return c.c != nil }

// Open dials the connection (and shakes hands over TLS) by deadline.
func (c *Conn) Open(d *Dialer, deadline time.Time) error {
	dial := d.Dial
	if dial == nil {
		nd := &net.Dialer{Timeout: 3 * time.Second}
		dial = func(addr string) (net.Conn, error) { return nd.Dial("tcp", addr) }
	}
	raw, err := dial(c.addr)
	if err != nil {
		return err
	}
	nc := raw
	if d.TLS != nil {
		cfg := d.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(c.addr)
		}
		tc := tls.Client(raw, cfg)
		_ = tc.SetDeadline(deadline)
		if err := tc.Handshake(); err != nil {
			raw.Close()
			return err
		}
		nc = tc
	}
	c.c = nc
	c.rd.r = nc
	c.br, c.bw = bufio.NewReaderSize(&c.rd, 4096), bufio.NewWriterSize(nc, 4096)
	return nil
}

// Do writes req and reads its answer into resp (a body of at most maxBody
// bytes; 0 = fasthttp's default), by deadline (zero = none).
func (c *Conn) Do(req *fasthttp.Request, resp *fasthttp.Response, deadline time.Time, maxBody int) error {
	if c.c == nil {
		return errNotOpen
	}
	_ = c.c.SetDeadline(deadline)
	c.rd.n = 0
	if err := req.Write(c.bw); err != nil {
		return err
	}
	if err := c.bw.Flush(); err != nil {
		return err
	}
	return resp.ReadLimitBody(c.br, maxBody)
}

var errNotOpen = errors.New("conns: connection not open")

// Stale reports whether err, from Do on a connection that was used before,
// means the other end had closed it while it was idle (nothing of the answer
// was read): the request never reached a server, and a fresh connection may
// carry it.
func (c *Conn) Stale(err error) bool {
	if err == nil || c.rd.n > 0 {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, fasthttp.ErrConnectionClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed)
}

// Close closes the connection (if it was dialed); safe to call twice.
func (c *Conn) Close() {
	if c.c != nil {
		_ = c.c.Close()
	}
}

// Reopen closes the connection and dials a fresh one to the same address.
func (c *Conn) Reopen(d *Dialer, deadline time.Time) error {
	c.Close()
	c.c = nil
	return c.Open(d, deadline)
}

// counter counts the bytes read through it since Do began.
type counter struct {
	r io.Reader
	n int
}

func (r *counter) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.n += n
	return n, err
}
