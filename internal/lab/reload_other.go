//go:build !unix

package lab

import "os"

// Where there are no such signals (systems that are not unix) a reload
// is a kill.
var (
	reloadHAProxy = os.Kill
	reloadNginx   = os.Kill
)
