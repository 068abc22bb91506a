//go:build !linux

package proc

import "syscall"

// childAttrs: without Pdeathsig, nothing but the terminal's signal or lab's
// own shutdown stops a child when lab dies, so children stay in lab's
// process group (and a terminal's Ctrl-C reaches them too).
func childAttrs() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
