package testbin

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// Starved is the CPU pressure at which a live test's timing no longer
// holds: the share of the wall time in which some runnable task waited for
// a CPU (Linux's /proc/pressure/cpu, "some"). A lab of real processes
// alone on two cores reaches 0.5-0.6 in a retry storm, beside two CPU-bound
// loops 0.9, beside four 0.97; a whole make test's parallel packages more.
const Starved = 0.95

// CPUPressure starts measuring the machine's CPU pressure and returns the
// function that reads the share of the wall time since in which some task
// waited for a CPU (-1 where the kernel does not say: not Linux, or no PSI).
func CPUPressure() func() float64 {
	at, ok := stalledMicros()
	start := time.Now()
	return func() float64 {
		now, ok2 := stalledMicros()
		wall := time.Since(start).Microseconds()
		if !ok || !ok2 || wall <= 0 {
			return -1
		}
		return float64(now-at) / float64(wall)
	}
}

// stalledMicros is the "some" total of /proc/pressure/cpu: microseconds in
// which at least one runnable task waited.
func stalledMicros() (int64, bool) {
	data, err := os.ReadFile("/proc/pressure/cpu")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "some ") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, "total="); ok {
				n, err := strconv.ParseInt(v, 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
