//go:build unix

package lab

import "syscall"

// The signals that make HAProxy (master-worker) and nginx reload their
// configuration gracefully.
var (
	reloadHAProxy = syscall.SIGUSR2
	reloadNginx   = syscall.SIGHUP
)
