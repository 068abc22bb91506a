//go:build unix

package pace

import (
	"syscall"
	"testing"
	"time"
)

// BenchmarkSleepLateness sleeps 700 us over and over, one wait at a time,
// on a precise scheduler and on Go's timers, and reports how late the
// waits ended (p50, p99, in us) and the process's CPU per wait (us, from
// getrusage): the mechanism alone, without the lab around it
// (bench/timing.sh measures the processes).
//
//	go test -run '^$' -bench SleepLateness -benchtime 2000x ./internal/shell/pace
func BenchmarkSleepLateness(b *testing.B) {
	for _, name := range []string{"precise", "runtime"} {
		b.Run(name, func(b *testing.B) {
			s := Runtime
			if name == "precise" {
				var err error
				if s, err = newScheduler(); err != nil {
					b.Fatal(err)
				}
			}
			s.tally = tally{}
			c0 := cpuTime()
			for b.Loop() {
				s.Sleep(Hop, 700*time.Microsecond)
			}
			cpu := cpuTime() - c0
			st := s.Stats()[0]
			b.ReportMetric(st.P50us, "late-p50-us")
			b.ReportMetric(st.P99us, "late-p99-us")
			b.ReportMetric(float64(cpu)/1e3/float64(b.N), "cpu-us/wait")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// cpuTime is the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
