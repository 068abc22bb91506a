package proc

import "syscall"

// childAttrs makes the kernel kill a child when lab dies, even by SIGKILL,
// so no process of a lab outlives it.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
