//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package backend

import "github.com/valyala/fasthttp"

// watchClose is not available here: cancellation works only through
// POST /admin/cancel.
func watchClose(*fasthttp.RequestCtx, func()) (stop func()) { return func() {} }
