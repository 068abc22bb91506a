package wire

import (
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// Classify reads an attempt's HTTP outcome as the policies see it. The lb
// applies it to a backend's answer, the loadgen to the lb's (or, when the
// clients balance themselves, the backend's); both read the answer back as
// the emulated server's status and map that with policy.ResultOf, as the
// simulator maps its replies. A transport timeout and the lb's own 504 are
// timeouts; any other transport error (refused, reset) is an error. An
// answer below 500 counts as served: a 4xx is the client's doing, not the
// server's failure, so it neither trips a breaker nor is retried.
func Classify(err error, code int, reason []byte) policy.Result {
	if err != nil {
		var te interface{ Timeout() bool }
		if errors.Is(err, fasthttp.ErrTimeout) || errors.As(err, &te) && te.Timeout() {
			return policy.Timeout
		}
		return policy.Error
	}
	if code == fasthttp.StatusGatewayTimeout {
		return policy.Timeout
	}
	return policy.ResultOf(StatusOf(code, reason))
}

// StatusOf is the emulated server's status behind an HTTP answer: the
// inverse of the backend's mapping (200; 500; 503 with a reason that tells a
// cancelled or expired job from a rejected one). Other codes of 500 and
// above are errors, codes below are served.
func StatusOf(code int, reason []byte) server.Status {
	switch {
	case code == fasthttp.StatusServiceUnavailable && string(reason) == server.ReasonCancelled:
		return server.Cancelled
	case code == fasthttp.StatusServiceUnavailable && string(reason) == server.ReasonExpired:
		return server.Dropped
	case code == fasthttp.StatusServiceUnavailable:
		return server.Rejected
	case code >= 500:
		return server.Error
	}
	return server.OK
}
