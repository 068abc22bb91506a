package sim

import (
	"fmt"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
)

// benchLab is a 16-server fleet at 70% load with p2c: the events/s figure.
func benchLab(b *testing.B, seconds int) *labfile.Lab {
	lab := labfile.Default()
	lab.Name = "bench"
	lab.Duration = time.Duration(seconds) * time.Second
	for _, kv := range [][2]string{{"clients.rate", "5600"}, {"servers[0].count", "16"},
		{"servers[0].workers", "4"}, {"clients.work.mean", "8ms"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			b.Fatal(err)
		}
	}
	return lab
}

// BenchmarkSimEvents reports simulated events per second of wall time with
// every statistic on (latency histogram, 250 ms series, per-server figures),
// and requests per second next to it: the events are those the loop fires
// (the report's sim_events), so a change that needed fewer events per
// request would show in requests/s, not inflate events/s.
func BenchmarkSimEvents(b *testing.B) {
	defer func(on bool) { assert.On = on }(assert.On)
	assert.On = false // as lab sim runs: the invariants' checks are the tests' and the torture's
	lab := benchLab(b, 10)
	var events, requests uint64
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := Run(lab, Options{Series: true})
		if err != nil {
			b.Fatal(err)
		}
		events += res.Run.Events
		requests += res.Run.Requests
	}
	secs := time.Since(start).Seconds()
	b.ReportMetric(float64(events)/secs, "events/s")
	b.ReportMetric(float64(requests)/secs, "requests/s")
}

// BenchmarkBareHeap is the peer of BenchmarkSimEvents in the same process: the
// same event heap with nothing behind it, holding about as many pending events
// (hold model: take one, push one a random time later, with the same
// hold/push/release calls the simulator's loop makes).
func BenchmarkBareHeap(b *testing.B) {
	var q eventQueue
	const pending = 512
	x := uint64(88172645463325252)
	next := func() clock.Instant { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return clock.Instant(x % 1e8) }
	for i := 0; i < pending; i++ {
		q.push(event{at: next()})
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ { // the simulator's own way: hold, push into the slot, release
		e := q.hold()
		q.push(event{at: e.at + next(), kind: e.kind})
		q.release()
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkCompareSix: six algorithms, 36,000 requests each, 10 servers.
func BenchmarkCompareSix(b *testing.B) {
	lab := labfile.Default()
	lab.Duration = 20 * time.Second
	for _, kv := range [][2]string{{"clients.rate", "1800"}, {"servers[0].count", "10"}, {"servers[0].workers", "4"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			b.Fatal(err)
		}
	}
	var settings []labfile.Setting
	for _, a := range []string{"round-robin", "random", "least-outstanding", "least-latency", "p2c", "p2c-peak-ewma"} {
		settings = append(settings, labfile.Setting{Name: a, Algorithm: a})
	}
	for i := 0; i < b.N; i++ {
		rep, err := Compare(lab, settings, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if rep.Runs[0].Requests < 35000 || rep.Runs[0].Requests > 37000 {
			b.Fatalf("%d requests", rep.Runs[0].Requests)
		}
	}
}

// BenchmarkHerd1000: 1,000 servers, 100 balancers on shared counts.
func BenchmarkHerd1000(b *testing.B) {
	for _, algo := range []string{"least-outstanding", "p2c"} {
		b.Run(algo, func(b *testing.B) {
			lab := labfile.Default()
			lab.Duration = 10 * time.Second
			for _, kv := range [][2]string{{"clients.rate", "20000"}, {"clients.count", "1000"},
				{"servers[0].count", "1000"}, {"servers[0].workers", "2"}, {"clients.work.mean", "70ms"},
				{"balancers.count", "100"}, {"balancers.load", "shared"}, {"balancers.algorithm", algo}} {
				if err := lab.Apply(kv[0], kv[1]); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", kv[0], err))
				}
			}
			for i := 0; i < b.N; i++ {
				if _, err := Run(lab, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
