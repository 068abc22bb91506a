package breaker

import (
	"fmt"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func ExampleBreaker() {
	b, _ := New(Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1})
	b.OnChange = func(now clock.Instant, from, to State) { fmt.Println(now, from, "->", to) }
	t := clock.Instant(0)
	for range 10 {
		t = t.Add(time.Millisecond)
		b.Allow(t)
		b.Done(t, false, false)
	}
	t = t.Add(time.Second)
	ok, probe := b.Allow(t)
	fmt.Println("allow", ok, "probe", probe)
	b.Done(t.Add(5*time.Millisecond), true, probe)
	// Output:
	// 10ms closed -> open
	// 1.01s open -> half-open
	// allow true probe true
	// 1.015s half-open -> closed
}

func BenchmarkBreakerAllowDone(b *testing.B) {
	br, err := New(Config{Window: 100, Threshold: 0.5, Open: time.Second, Probes: 3})
	if err != nil {
		b.Fatal(err)
	}
	now := clock.Instant(0)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now += clock.Instant(time.Millisecond)
		ok, probe := br.Allow(now)
		if ok {
			br.Done(now, i%8 != 0, probe)
		}
	}
}
