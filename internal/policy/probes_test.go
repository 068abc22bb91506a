package policy

import (
	"slices"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
)

// The pipeline hands a probing algorithm's probes out and its answers in
// by global server index: a removed server is never probed and its late
// answer is dropped, the pool shows global indices, and the pick goes to
// the answer of the member it names. An algorithm that does not probe
// sends none.
func TestBalancerProbesByGlobalIndex(t *testing.T) {
	b := newBal(t, "prequal", nil, 4) // 3 probes a pick, the paper's default
	b.RemoveServer(1)
	for seq := range uint64(50) {
		got := b.Probes(0, balance.Request{Seq: seq}, nil)
		if len(got) != 3 || slices.Contains(got, 1) {
			t.Fatalf("pick %d probes %v: want the three servers left, never the removed 1", seq, got)
		}
	}
	b.Probed(clock.Instant(time.Millisecond), 1, 7, load.Probe{RIF: 0, Latency: time.Microsecond}) // gone: dropped
	b.Probed(clock.Instant(time.Millisecond), 3, 7, load.Probe{RIF: 0, Latency: time.Millisecond})
	b.Probed(clock.Instant(time.Millisecond), 2, 7, load.Probe{RIF: 0, Latency: 5 * time.Millisecond})
	b.Probed(clock.Instant(time.Millisecond), 0, 7, load.Probe{RIF: -1}) // not sane: dropped
	pool := b.Pool()
	var members []int
	for _, e := range pool {
		members = append(members, e.Member)
	}
	slices.Sort(members)
	if !slices.Equal(members, []int{2, 3}) {
		t.Fatalf("pool %+v, want the answers of servers 2 and 3", pool)
	}
	if tk := b.Pick(clock.Instant(2*time.Millisecond), balance.Request{Seq: 100}, -1); !tk.Valid || tk.Server != 3 {
		t.Errorf("picked %+v, want server 3 (cold, fastest)", tk)
	}
	if !b.Probing() {
		t.Error("prequal does not say it probes")
	}
	p2c := newBal(t, "p2c", nil, 4)
	if got := p2c.Probes(0, balance.Request{Seq: 1}, nil); len(got) != 0 || p2c.Probing() || p2c.Pool() != nil {
		t.Errorf("p2c probes %v", got)
	}
	// a reconfigured algorithm probes or not as it says
	cfg := p2c.cfg
	cfg.Algorithm.Name = "prequal"
	if err := p2c.Reconfigure(cfg); err != nil || !p2c.Probing() {
		t.Errorf("after switching to prequal: probing %v, %v", p2c.Probing(), err)
	}
}
