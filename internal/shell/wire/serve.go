package wire

import (
	"net"
	"sync"

	"github.com/valyala/fasthttp"
)

// Serve runs srv on ln in a goroutine and returns once srv accepts
// connections (or has already stopped). Every fasthttp server of lblab's
// is served here, so none can miss what Serve puts on it: a logger that
// redacts secrets (srv.Logger is wrapped in Redact; none becomes
// ServerLogger(nil), never fasthttp's default, which writes a request it
// cannot parse to stderr as it came, Authorization header and all), and
// SecureErrorLogMessage, which keeps the request's bytes out of fasthttp's
// errors altogether. A request srv cannot read gets a
// JSON error naming the limit it broke (LimitErrors). lim's timeouts are set on srv
// where lim gives them, and ln is wrapped by Listen with lim's cap, so a
// temporary accept error never ends the server. fasthttp's Shutdown closes
// only the listeners Serve has registered, so a Shutdown that came before
// would return at once and leave Serve accepting forever. The channel is
// closed when Serve returns; onErr, if not nil, gets the error it returned.
func Serve(srv *fasthttp.Server, ln net.Listener, lim Limits, onErr func(error)) <-chan struct{} {
	lim.apply(srv)
	srv.Logger = redacting(srv.Logger)
	srv.SecureErrorLogMessage = true
	if srv.ErrorHandler == nil {
		LimitErrors(srv) // 413 / 431 with a JSON reason naming the limit
	}
	done := make(chan struct{})
	accepting := &acceptSignal{Listener: Listen(ln, lim.MaxConns, srv.Logger.Printf), ch: make(chan struct{})}
	go func() {
		defer close(done)
		if err := srv.Serve(accepting); err != nil && onErr != nil {
			onErr(err)
		}
	}()
	select {
	case <-accepting.ch:
	case <-done:
	}
	return done
}

// apply sets the timeouts lim gives on srv (zero leaves srv's own).
func (lim Limits) apply(srv *fasthttp.Server) {
	if lim.ReadTimeout > 0 {
		srv.ReadTimeout = lim.ReadTimeout
	}
	if lim.WriteTimeout > 0 {
		srv.WriteTimeout = lim.WriteTimeout
	}
	if lim.IdleTimeout > 0 {
		srv.IdleTimeout = lim.IdleTimeout
	}
}

// acceptSignal closes ch on the first Accept: by then fasthttp's Serve has
// registered the listener, so Shutdown will close it.
type acceptSignal struct {
	net.Listener
	once sync.Once
	ch   chan struct{}
}

func (a *acceptSignal) Accept() (net.Conn, error) {
	a.once.Do(func() { close(a.ch) })
	return a.Listener.Accept()
}
