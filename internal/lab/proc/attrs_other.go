//go:build !linux

package proc

import "syscall"

// childAttrs: without Pdeathsig, children are stopped by lab's own shutdown.
func childAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
