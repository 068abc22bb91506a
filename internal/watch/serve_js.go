//go:build js

package watch

import (
	"fmt"
	"net/http"
	"os"
)

// In the page's wasm module (cmd/labwasm) the worker hands the requests
// in and ticks playback itself: no listener, no access guard (Access is
// empty) and no process log (a warning goes to the console, stderr); the
// page's files are the site's own (internal/site), so GET / finds nothing
// here.

type (
	access = struct{}
	logger = struct{}
)

func page() http.Handler { return http.NotFoundHandler() }

func orNop(l logger) logger { return l }

func (s *Server) warn(msg string, err error) { fmt.Fprintf(os.Stderr, "lab watch: %s: %v\n", msg, err) }
