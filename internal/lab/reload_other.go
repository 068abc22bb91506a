//go:build !unix

package lab

import "os"

// Where there are no such signals (js/wasm: lab builds there for the
// page's module, which starts no process) a reload is a kill.
var (
	reloadHAProxy = os.Kill
	reloadNginx   = os.Kill
)
