package policy

import (
	"slices"
	"testing"

	"github.com/lblab/lblab/internal/core/balance"
)

// The pipeline hands jiq's announcements in and its queue out by global
// server index: a removed server's announcement is dropped and it leaves
// the queue; the pick takes the queue's head. An algorithm without an idle
// queue drops every announcement, and one switched to jiq starts taking
// them.
func TestBalancerIdleByGlobalIndex(t *testing.T) {
	b := newBal(t, "jiq", nil, 5)
	b.RemoveServer(1)
	for _, i := range []int{4, 1, 2, 0, 9, -1} { // 1 is gone; 9 and -1 are no server
		b.Idle(0, i)
	}
	if got := b.IdleQueue(nil); !slices.Equal(got, []int{4, 2, 0}) || b.IdleLen() != 3 {
		t.Fatalf("idle queue %v (length %d), want [4 2 0]", got, b.IdleLen())
	}
	if tk := b.Pick(0, balance.Request{Seq: 7}, -1); !tk.Valid || tk.Server != 4 {
		t.Fatalf("picked %+v, want server 4, the queue's head", tk)
	}
	b.Pick(0, balance.Request{Seq: 8}, -1)  // 2
	b.Pick(0, balance.Request{Seq: 9}, -1)  // 0
	b.Pick(0, balance.Request{Seq: 10}, -1) // at random
	if b.IdlePicks() != 3 || b.Sent() != 4 {
		t.Fatalf("%d of %d picks from the idle queue, want 3 of 4", b.IdlePicks(), b.Sent())
	}
	b.Idle(0, 2)
	b.Idle(0, 0)
	b.RemoveServer(2)
	if got := b.IdleQueue(nil); !slices.Equal(got, []int{0}) {
		t.Fatalf("idle queue %v after server 2 left, want [0]", got)
	}
	p2c := newBal(t, "p2c", nil, 3)
	p2c.Idle(0, 1)
	if got := p2c.IdleQueue(nil); len(got) != 0 || p2c.IdleLen() != 0 {
		t.Errorf("p2c keeps an idle queue %v", got)
	}
	cfg := p2c.cfg
	cfg.Algorithm.Name = "jiq"
	if err := p2c.Reconfigure(cfg); err != nil {
		t.Fatal(err)
	}
	p2c.Idle(0, 2)
	if got := p2c.IdleQueue(nil); !slices.Equal(got, []int{2}) {
		t.Errorf("after switching to jiq: idle queue %v, want [2]", got)
	}
}
