package lb

import (
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/valyala/fasthttp"
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
			now := l.clock.Now()
			a := l.pick(now, balance.Request{Seq: seq, Key: seq}, seq, nil)
			l.report(l.clock.Now(), &a, 0, 1000)
		}
	})
}
