package balance

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/core/load"
)

// A new member (no answer yet) is free while idle under Finagle's rule, so
// the latency costs try it at once; with a default RTT of 1 s it loses to
// a member measured at 20 ms until that one is 50 times as loaded (tower
// pull request 134); with 5 ms it wins again.
func TestDefaultRTTScoresANewMember(t *testing.T) {
	for _, name := range []string{"p2c-latency-load", "p2c-peak-ewma"} {
		for _, c := range []struct {
			rtt  time.Duration
			want int
		}{{0, 1}, {time.Second, 0}, {5 * time.Millisecond, 1}} {
			a := mustNew(t, Config{Name: name, Seed: 2, DefaultRTT: c.rtt})
			a.Update(names(2))
			v := newView(2, load.Local)
			v.tb.Sent(ms(0), 0)
			v.tb.Done(ms(20), 0, 20*time.Millisecond)
			for seq := uint64(0); seq < 50; seq++ {
				if j := a.Pick(ms(20), Request{Seq: seq}, v); j != c.want {
					t.Fatalf("%s default RTT %v: picked %d, want %d", name, c.rtt, j, c.want)
				}
			}
			if c.rtt != time.Second {
				continue
			}
			for range 50 { // member 0 now has 50 outstanding: 20 ms x 51 > 1 s
				v.tb.Sent(ms(20), 0)
			}
			if j := a.Pick(ms(20), Request{Seq: 1}, v); j != 1 {
				t.Errorf("%s default RTT 1s: with 50 outstanding on the measured member picked %d, want the new one", name, j)
			}
		}
	}
}
