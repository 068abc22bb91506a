package balance

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
)

// TestLatencyCapsDeclared: an algorithm without Caps.Latency picks exactly
// the same whatever the members' latency averages say (a driver may leave
// them unkept, load.Table.Unkept), and one with it does not.
func TestLatencyCapsDeclared(t *testing.T) {
	const n = 8
	views := func() (*testView, *testView) {
		plain, timed := newView(n, load.Local), newView(n, load.Local)
		for j := range n {
			rtt := time.Duration(1+(j*5)%n) * 7 * time.Millisecond
			timed.tb.Done(ms(10*j), j, rtt)
		}
		for j := range n {
			out := (j * 3) % 4
			plain.tb.Stats[j].Outstanding, timed.tb.Stats[j].Outstanding = out, out
		}
		return plain, timed
	}
	for _, name := range Names {
		t.Run(name, func(t *testing.T) {
			plain, timed := views()
			a, b := build(t, name, n), build(t, name, n)
			differ := false
			for seq := range uint64(400) {
				now := ms(200 + int(seq))
				if a.Pick(now, Request{Seq: seq, Key: seq}, plain) != b.Pick(now, Request{Seq: seq, Key: seq}, timed) {
					differ = true
					break
				}
			}
			if reads := CapsOf(name).Latency; differ != reads {
				t.Fatalf("picks on latency averages differ: %v, but Caps.Latency is %v", differ, reads)
			}
		})
	}
}
