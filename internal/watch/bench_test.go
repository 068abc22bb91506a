package watch

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// BenchmarkPlayback compares "max" playback with lab sim on rr-slow (120 s),
// in simulator events per second, the two alternating in each iteration so
// that the shared machine's load hits both alike: sim is sim.Run with the
// series; max is the engine's ticks back to back, as Serve runs them at max
// (each simulates for up to its budget, then builds and publishes a
// snapshot). go test -run - -bench 'Playback$' ./internal/watch/
func BenchmarkPlayback(b *testing.B) {
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		b.Fatal(err)
	}
	l.Compare = nil
	if err := l.Apply("duration", "120s"); err != nil { // long enough for many ticks
		b.Fatal(err)
	}
	var simEvents, maxEvents uint64
	var simTime, maxTime time.Duration
	for range b.N {
		start := time.Now()
		res, err := sim.Run(l, sim.Options{Series: true})
		if err != nil {
			b.Fatal(err)
		}
		simTime += time.Since(start)
		simEvents += res.Run.Events
		start = time.Now()
		s, err := New(Options{Lab: l})
		if err != nil {
			b.Fatal(err)
		}
		s.max = true
		for !s.sess.Ended() {
			s.playLocked(time.Now())
		}
		maxTime += time.Since(start)
		played, err := s.sess.Result()
		if err != nil {
			b.Fatal(err)
		}
		maxEvents += played.Run.Events
	}
	simRate, maxRate := float64(simEvents)/simTime.Seconds(), float64(maxEvents)/maxTime.Seconds()
	b.ReportMetric(simRate, "sim_events/s")
	b.ReportMetric(maxRate, "max_events/s")
	b.ReportMetric(maxRate/simRate, "max/sim")
}

// BenchmarkPlaybackScenarios plays each built-in scenario (its first
// compare setting, as lab watch does) at max and reports how many times
// faster than the wall clock that is: 1x keeps up while it is above 1
// (docs/BENCHMARKS.md). go test -run - -bench PlaybackScenarios -benchtime 1x ./internal/watch/
func BenchmarkPlaybackScenarios(b *testing.B) {
	for _, name := range scenarios.Names() {
		b.Run(name, func(b *testing.B) {
			l, _, err := dash.ScenarioSetting(name)
			if err != nil {
				b.Fatal(err)
			}
			var virtual time.Duration
			start := time.Now()
			for range b.N {
				s, err := New(Options{Lab: l})
				if err != nil {
					b.Fatal(err)
				}
				s.max = true
				for !s.sess.Ended() {
					s.playLocked(time.Now())
				}
				virtual += time.Duration(s.sess.Now())
			}
			b.ReportMetric(virtual.Seconds()/time.Since(start).Seconds(), "x_realtime")
		})
	}
}
