package wire

import (
	"errors"
	"fmt"
	"net"

	"github.com/valyala/fasthttp"
)

// fasthttpReadBuffer is fasthttp's ReadBufferSize when a server sets none.
const fasthttpReadBuffer = 4096

// LimitErrors makes srv answer a request it could not read with the JSON
// error body and a status that says why, naming the limit: 413 for a body
// over srv.MaxRequestBodySize, 431 for headers over srv.ReadBufferSize,
// 408 for a read that timed out, 400 for anything else. (fasthttp's own
// answers are text/plain, and 400 for a body too large.) Serve installs it
// on every server that has no ErrorHandler of its own.
func LimitErrors(srv *fasthttp.Server) {
	body, header := srv.MaxRequestBodySize, srv.ReadBufferSize
	if body <= 0 {
		body = fasthttp.DefaultMaxRequestBodySize
	}
	if header <= 0 {
		header = fasthttpReadBuffer
	}
	srv.ErrorHandler = func(ctx *fasthttp.RequestCtx, err error) {
		var small *fasthttp.ErrSmallBuffer
		var netErr net.Error
		switch {
		case errors.Is(err, fasthttp.ErrBodyTooLarge):
			WriteError(ctx, fasthttp.StatusRequestEntityTooLarge, "request body too large: the limit is %s", ByteSize(body))
		case errors.As(err, &small):
			WriteError(ctx, fasthttp.StatusRequestHeaderFieldsTooLarge, "request headers too large: the limit is %s", ByteSize(header))
		case errors.As(err, &netErr) && netErr.Timeout():
			WriteError(ctx, fasthttp.StatusRequestTimeout, "the request did not arrive in time")
		default:
			WriteError(ctx, fasthttp.StatusBadRequest, "cannot read the request: %v", err)
		}
	}
}

// ByteSize writes n bytes as the docs do: 1 MiB, 64 KiB, 512 bytes.
func ByteSize(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
