package proc

import "syscall"

// childAttrs starts a child in a process group of its own and makes the
// kernel kill it when lab dies, even by SIGKILL, so no process of a lab
// outlives it. The group of its own keeps it out of the terminal's job:
// Ctrl-C signals the whole foreground group, and a child that took its
// SIGINT would be gone before lab read its counters for the report; lab
// stops its children itself (Stop, Kill), and their death with lab is
// Pdeathsig's, not the terminal's.
func childAttrs() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
