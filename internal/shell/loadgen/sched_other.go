//go:build !linux

package loadgen

import "time"

// runqueueWait is 0 where the kernel does not tell how long the process
// waited for a CPU.
func runqueueWait() time.Duration { return 0 }
