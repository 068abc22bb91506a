package loadgen

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// runqueueWait is how long the process's threads have waited for a CPU
// while ready to run (the second field of each /proc/self/task/*/schedstat):
// what a busy machine takes from the loadgen. 0 when the kernel does not say.
func runqueueWait() time.Duration {
	paths, _ := filepath.Glob("/proc/self/task/*/schedstat")
	var sum int64
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // a thread that just exited
		}
		f := bytes.Fields(b)
		if len(f) < 2 {
			continue
		}
		if ns, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
			sum += ns
		}
	}
	return time.Duration(sum)
}
