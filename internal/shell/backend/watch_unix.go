//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package backend

import (
	"errors"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/wire"
)

// aLongTimeAgo is a read deadline that wakes a blocked read at once.
var aLongTimeAgo = time.Unix(1, 0)

// watchClose calls onClose if the client closes (or resets) the connection
// of ctx before stop is called. fasthttp has no close notification and is
// not reading while the handler runs, so a goroutine waits for the socket
// to become readable and peeks (MSG_PEEK) without consuming: zero bytes
// means the peer closed; data (a pipelined request) ends the watch. stop
// wakes the goroutine with a past read deadline and waits for it; fasthttp
// resets deadlines set through ctx after the handler. Only TCP connections
// are watched.
func watchClose(ctx *fasthttp.RequestCtx, onClose func()) (stop func()) {
	sc, ok := wire.NetConn(ctx.Conn()).(syscall.Conn)
	if !ok {
		return func() {}
	}
	rc, err := sc.SyscallConn()
	if err != nil || ctx.SetReadDeadline(time.Time{}) != nil { // fasthttp's ReadTimeout must not end the watch
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if peerClosed(rc) {
			onClose()
		}
	}()
	return func() {
		_ = ctx.SetReadDeadline(aLongTimeAgo)
		<-done
	}
}

// peerClosed waits until the socket is readable and reports whether that
// is because the peer closed it; false when the wait was cut short.
func peerClosed(rc syscall.RawConn) bool {
	var buf [1]byte
	closed := false
	err := rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EINTR):
			return false // not readable yet: the runtime poller waits
		case err != nil:
			closed = true // reset by the peer
		default:
			closed = n == 0
		}
		return true
	})
	return err == nil && closed
}
