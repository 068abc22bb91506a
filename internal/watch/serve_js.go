//go:build js

package watch

import (
	"fmt"
	"os"
)

// In the page's wasm module (cmd/labwasm) the worker hands the requests
// in (Answer) and ticks playback itself: no listener, no HTTP, no access
// guard (Access is empty) and no process log (a warning goes to the
// console, stderr); the page's files are the site's own (internal/site).

type (
	access = struct{}
	logger = struct{}
)

func orNop(l logger) logger { return l }

func (s *Server) warn(msg string, err error) { fmt.Fprintf(os.Stderr, "lab watch: %s: %v\n", msg, err) }
