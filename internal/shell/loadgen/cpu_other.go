//go:build !unix

package loadgen

import "time"

// cpuTime is 0 where the process's CPU time is not read: the report's
// generator CPU share is then 0.
func cpuTime() time.Duration { return 0 }
