//go:build unix

package wire

import "syscall"

// FDLimit is the soft limit on the process's open files. The Go runtime
// raises it to the hard limit when the program starts (Go 1.19 and later,
// on every Unix), so this is normally the hard limit; 1024 if unknown.
func FDLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil || r.Cur == 0 {
		return 1024
	}
	return r.Cur
}
