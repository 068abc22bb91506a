//go:build unix

package loadgen

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system, every thread) the process has
// used so far; 0 when the system does not say.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
