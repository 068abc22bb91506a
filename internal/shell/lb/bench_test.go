package lb

import (
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/observe"
)

// BenchmarkProxy is the whole hot path over in-memory connections: client
// -> lb (pick under the mutex, forward, report) -> fake backend and back,
// no hop delay. Allocations count all three parties.
func BenchmarkProxy(b *testing.B) {
	_, _, hc, stop := memLB(b, Config{Lab: testLab(b)}, 0)
	defer stop()
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	req.SetRequestURI("http://lb/bench")
	b.ReportAllocs()
	for b.Loop() {
		if err := hc.Do(req, resp); err != nil || resp.StatusCode() != 200 {
			b.Fatal(err, resp.StatusCode())
		}
	}
}

// BenchmarkProxyParallel is BenchmarkProxy from GOMAXPROCS clients at once,
// so the pipeline mutex is contended.
func BenchmarkProxyParallel(b *testing.B) {
	_, _, hc, stop := memLB(b, Config{Lab: testLab(b)}, 0)
	defer stop()
	hc.MaxConns = 1024
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI("http://lb/bench")
		for pb.Next() {
			if err := hc.Do(req, resp); err != nil || resp.StatusCode() != 200 {
				b.Error(err, resp.StatusCode())
				return
			}
		}
	})
}

// BenchmarkPickReport is the locked part alone: Pick and Done of p2c over
// five backends under the mutex, from GOMAXPROCS goroutines.
func BenchmarkPickReport(b *testing.B) {
	var specs []BackendSpec
	for _, n := range []string{"s1", "s2", "s3", "s4", "s5"} {
		specs = append(specs, BackendSpec{Name: n, Addr: "127.0.0.1:9"})
	}
	l, err := New(Config{Lab: testLab(b), Backends: specs})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		var seq uint64
		for pb.Next() {
			seq++
			a := l.pick(balance.Request{Seq: seq, Key: seq}, seq, nil)
			l.report(&a, 0, false)
		}
	})
}

// BenchmarkObserve is the observer cost per proxied request: one Answered
// (a counter and a native+classic histogram, pre-resolved per backend),
// with the Prometheus observer and with the no-op one.
func BenchmarkObserve(b *testing.B) {
	for _, tc := range []struct {
		name string
		fw   observe.Forwards
	}{
		{"metrics", metrics.NewLB("lb1", nil, nil).Backend("s1")},
		{"nop", observe.Nop{}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var i int
			for b.Loop() {
				i++
				tc.fw.Answered(i&3, time.Duration(i%5000)*time.Microsecond)
			}
		})
		b.Run(tc.name+"-parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				var i int
				for pb.Next() {
					i++
					tc.fw.Answered(i&3, time.Duration(i%5000)*time.Microsecond)
				}
			})
		})
	}
}
