package balance

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// at is an explicit instant: n milliseconds after the run's epoch.
func at(n int) clock.Instant { return clock.Instant(time.Duration(n) * time.Millisecond) }

// run makes the algorithm for three servers a, b, c over a fresh local table.
func run(cfg Config, servers ...Server) (Algorithm, *testView) {
	if len(servers) == 0 {
		servers = []Server{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	}
	alg, err := New(cfg)
	if err != nil {
		panic(err)
	}
	alg.Update(servers)
	return alg, newView(len(servers), load.Local)
}

// picks returns the letters of count picks from seq on, sending each.
func picks(alg Algorithm, v *testView, now clock.Instant, seq uint64, count int) string {
	out := ""
	for i := 0; i < count; i++ {
		j := alg.Pick(now, Request{Seq: seq + uint64(i), Key: seq + uint64(i)}, v)
		if j < 0 {
			return out + "-"
		}
		v.tb.Sent(now, j)
		out += string(rune('a' + j))
	}
	return out
}

func ExampleNew_roundRobin() {
	alg, v := run(Config{Name: "round-robin", Seed: 1})
	fmt.Println(picks(alg, v, at(0), 0, 6))
	v.down[1] = true // b's breaker opens
	fmt.Println(picks(alg, v, at(10), 6, 6))
	// Output:
	// cabcab
	// cacaca
}

func ExampleNew_weightedRoundRobin() {
	alg, v := run(Config{Name: "weighted-round-robin"}, Server{"a", 5}, Server{"b", 1}, Server{"c", 1})
	fmt.Println(picks(alg, v, at(0), 0, 7))
	// Output:
	// aabacaa
}

func ExampleNew_random() {
	alg, v := run(Config{Name: "random", Seed: 1})
	v.down[2] = true
	fmt.Println(picks(alg, v, at(0), 0, 12))
	// Output:
	// babaaabababb
}

func ExampleNew_leastOutstanding() {
	alg, v := run(Config{Name: "least-outstanding", RotatingStart: true})
	v.tb.Sent(at(0), 0)
	v.tb.Sent(at(0), 0) // a has two outstanding
	fmt.Println(picks(alg, v, at(1), 0, 7))
	v.tb.Done(at(20), 1, 19*time.Millisecond)
	fmt.Println(picks(alg, v, at(21), 7, 1)) // b has one fewer now
	// Output:
	// bcbcabc
	// b
}

func ExampleNew_leastLatency() {
	alg, v := run(Config{Name: "least-latency", Seed: 1})
	v.tb.Done(at(100), 0, 30*time.Millisecond)
	v.tb.Done(at(100), 1, 10*time.Millisecond)
	fmt.Println(picks(alg, v, at(101), 0, 1)) // c has no sample yet: it is tried
	v.tb.Done(at(150), 2, 20*time.Millisecond)
	fmt.Println(picks(alg, v, at(151), 1, 3)) // then everything herds onto b
	// Output:
	// c
	// bbb
}

func ExampleNew_p2c() {
	alg, v := run(Config{Name: "p2c", Seed: 1})
	for k := 0; k < 5; k++ {
		v.tb.Sent(at(0), 0) // a is busy
	}
	// a (5 outstanding) loses every draw while b and c have fewer.
	fmt.Println(picks(alg, v, at(1), 0, 8))
	// Output:
	// bcbcbbbc
}

func ExampleNew_p2cLatencyLoad() {
	alg, v := run(Config{Name: "p2c-latency-load", Seed: 1}, Server{Name: "a"}, Server{Name: "b"})
	v.tb.Done(at(100), 0, 10*time.Millisecond) // a: 10 ms x (0+1)
	v.tb.Done(at(100), 1, 4*time.Millisecond)  // b: 4 ms x (n+1)
	// The lower of 10 ms x (n_a+1) and 4 ms x (n_b+1) wins; a tie goes to the first drawn.
	fmt.Println(picks(alg, v, at(101), 0, 6))
	// Output:
	// bbabba
}

func ExampleNew_p2cPeakEWMA() {
	alg, v := run(Config{Name: "p2c-peak-ewma", Seed: 1}, Server{Name: "a"}, Server{Name: "b"})
	v.tb.Done(at(100), 0, 5*time.Millisecond)
	v.tb.Done(at(100), 1, 5*time.Millisecond)
	v.tb.Done(at(200), 0, 80*time.Millisecond) // one slow answer: a's peak jumps to 80 ms
	fmt.Println(picks(alg, v, at(201), 0, 1))
	fmt.Printf("a costs %.1f ms at 201 ms, %.1f ms at 5 s\n",
		v.tb.Stats[0].Peak.At(at(201))/1e6, v.tb.Stats[0].Peak.At(at(5000))/1e6)
	v.tb.Done(at(5000), 1, 5*time.Millisecond) // b's request comes back
	fmt.Println(picks(alg, v, at(5000), 1, 1)) // a's peak has decayed: it is retried
	// Output:
	// b
	// a costs 79.9 ms at 201 ms, 0.7 ms at 5 s
	// a
}

func ExampleNew_ringHash() {
	alg, v := run(Config{Name: "ring-hash"})
	owner := alg.(Hasher).Owner(42)
	fmt.Println("owner of key 42:", string(rune('a'+owner)))
	v.down[owner] = true
	j := alg.Pick(at(0), Request{Seq: 1, Key: 42}, v)
	fmt.Println("owner down, next clockwise:", string(rune('a'+j)))
	// Output:
	// owner of key 42: c
	// owner down, next clockwise: a
}

func ExampleNew_ringHashBounded() {
	alg, v := run(Config{Name: "ring-hash-bounded", Epsilon: 0.25})
	// Every request has the same key: the owner takes it until it holds its
	// capacity ceil(1.25 (in flight + 1) / 3), then the overflow walks on.
	for seq := uint64(0); seq < 12; seq++ {
		j := alg.Pick(at(int(seq)), Request{Seq: seq, Key: 42}, v)
		v.tb.Sent(at(int(seq)), j)
		fmt.Print(string(rune('a' + j)))
	}
	fmt.Println()
	for _, s := range v.tb.Stats {
		fmt.Print(s.Outstanding, " ")
	}
	fmt.Println()
	// Output:
	// cacacabcacab
	// 5 2 5
}

func ExampleNew_maglev() {
	alg, _ := run(Config{Name: "maglev", MaglevSize: 251})
	h := alg.(Hasher)
	for key := uint64(1); key <= 8; key++ {
		fmt.Print(string(rune('a' + h.Owner(key))))
	}
	fmt.Println()
	// Output:
	// babcbbab
}

func ExampleNew_p2cStale() {
	alg, v := run(Config{Name: "p2c-stale", Seed: 1})
	v.tb.Mode = load.Shared
	v.tb.Report(0, load.Report{At: at(1000), Valid: true, Queued: 4, InService: 1})
	v.tb.Report(1, load.Report{At: at(1000), Valid: true, Queued: 0, InService: 1})
	v.tb.Report(2, load.Report{At: at(1000), Valid: true, Queued: 0, InService: 2})
	// Fresh reports: the least queued of two wins (b before c on in-service);
	// each send counts optimistically in Queued until the next report.
	fmt.Println(picks(alg, v, at(1000), 0, 8))
	// Ten seconds later nothing is trusted: picks are uniform.
	fmt.Println(picks(alg, v, at(11000), 8, 8))
	// Output:
	// bcbcbbbc
	// bbaaaaac
}

func ExampleSubset() {
	fleet := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	fmt.Println(Subset(1, 2, fleet, 3))
	// Removing a server outside the subset changes nothing: the same three
	// servers (c, d and h), now one place earlier in the list.
	fmt.Println(Subset(1, 2, []string{"b", "c", "d", "e", "f", "g", "h"}, 3))
	// Output:
	// [2 3 7]
	// [1 2 6]
}
