package wire

import (
	"net"
	"sync"

	"github.com/valyala/fasthttp"
)

// Serve runs srv on ln in a goroutine and returns once srv accepts
// connections (or has already stopped). fasthttp's Shutdown closes only the
// listeners Serve has registered, so a Shutdown that came before would
// return at once and leave Serve accepting forever. The channel is closed
// when Serve returns; onErr, if not nil, gets the error it returned.
func Serve(srv *fasthttp.Server, ln net.Listener, onErr func(error)) <-chan struct{} {
	done := make(chan struct{})
	accepting := &acceptSignal{Listener: ln, ch: make(chan struct{})}
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
