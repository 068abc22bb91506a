package policy

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/hedge"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
)

// fakeDriver records what a Call asks for; tests play the network by hand.
type fakeDriver struct {
	sent     []server.Kind
	siblings []int
	cancels  []int
	timers   []armed
	finished int
}

type armed struct {
	at clock.Instant
	t  Timer
	h  int
}

func (d *fakeDriver) Send(now clock.Instant, c *Call, kind server.Kind, sibling int) int {
	d.sent = append(d.sent, kind)
	d.siblings = append(d.siblings, sibling)
	return len(d.sent) - 1
}
func (d *fakeDriver) Cancel(now clock.Instant, c *Call, h int) { d.cancels = append(d.cancels, h) }
func (d *fakeDriver) Arm(at clock.Instant, c *Call, t Timer, h int) {
	d.timers = append(d.timers, armed{at, t, h})
}
func (d *fakeDriver) Finish(now clock.Instant, c *Call) { d.finished++ }

// lastTimer returns the last armed timer of kind t.
func (d *fakeDriver) lastTimer(t *testing.T, kind Timer) armed {
	t.Helper()
	for i := len(d.timers) - 1; i >= 0; i-- {
		if d.timers[i].t == kind {
			return d.timers[i]
		}
	}
	t.Fatalf("no timer %d armed: %+v", kind, d.timers)
	return armed{}
}

const ms = clock.Instant(time.Millisecond)

func TestCallSucceedsFirstTry(t *testing.T) {
	cl := &Client{}
	var c Call
	d := &fakeDriver{}
	cl.Begin(10*ms, &c, d)
	c.OnReply(25*ms, 0, OK, d)
	if c.Outcome != Succeeded || c.End != 25*ms || d.finished != 1 || c.Attempts != 1 {
		t.Fatalf("call %+v, finished %d", c, d.finished)
	}
	c.OnReply(30*ms, 0, Error, d) // a duplicate answer changes nothing
	if d.finished != 1 || c.Outcome != Succeeded {
		t.Fatal("a second answer ended the call again")
	}
}

func TestCallRetriesWithBackoffThenFails(t *testing.T) {
	cl := &Client{Cfg: ClientConfig{Retries: 2, Backoff: retry.Backoff{Base: 10 * time.Millisecond}}}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	c.OnReply(5*ms, 0, Error, d)
	tm := d.lastTimer(t, TimerRetry)
	if tm.at != 15*ms { // base x 2^0 without jitter
		t.Fatalf("first retry at %v, want 15ms", tm.at)
	}
	c.OnTimer(tm.at, TimerRetry, -1, d)
	c.OnReply(20*ms, 1, Rejected, d)
	tm = d.lastTimer(t, TimerRetry)
	if tm.at != 40*ms { // base x 2^1
		t.Fatalf("second retry at %v, want 40ms", tm.at)
	}
	c.OnTimer(tm.at, TimerRetry, -1, d)
	c.OnReply(45*ms, 2, Rejected, d)
	if c.Outcome != Shed || c.Retries != 2 || d.finished != 1 {
		t.Fatalf("after retries ran out: outcome %v retries %d finished %d", c.Outcome, c.Retries, d.finished)
	}
	want := []server.Kind{server.First, server.Retry, server.Retry}
	for i, k := range want {
		if d.sent[i] != k {
			t.Fatalf("attempt kinds %v, want %v", d.sent, want)
		}
	}
}

func TestCallBudgetStopsRetries(t *testing.T) {
	b, err := retry.NewBudget(0.1) // capacity 10
	if err != nil {
		t.Fatal(err)
	}
	for b.Withdraw() {
	}
	cl := &Client{Cfg: ClientConfig{Retries: 3}, Budget: b}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d) // deposits 0.1: not a whole token
	c.OnReply(5*ms, 0, Error, d)
	if c.Outcome != Failed || c.Retries != 0 {
		t.Fatalf("with an empty budget the call should fail at once: %v, %d retries", c.Outcome, c.Retries)
	}
}

func TestCallDeadlineAbandonsAttempts(t *testing.T) {
	cl := &Client{Cfg: ClientConfig{Timeout: 100 * time.Millisecond, Retries: 3}}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	if tm := d.lastTimer(t, TimerDeadline); tm.at != 100*ms {
		t.Fatalf("deadline at %v", tm.at)
	}
	c.OnTimer(100*ms, TimerDeadline, -1, d)
	if c.Outcome != TimedOut || len(d.cancels) != 0 {
		t.Fatalf("outcome %v, cancels %v: a timeout abandons, it does not cancel", c.Outcome, d.cancels)
	}
	c.OnReply(150*ms, 0, OK, d)
	if c.Outcome != TimedOut || d.finished != 1 {
		t.Fatal("a late answer revived the call")
	}
}

func TestCallNoRetryPastDeadline(t *testing.T) {
	cl := &Client{Cfg: ClientConfig{Timeout: 20 * time.Millisecond, Retries: 3,
		Backoff: retry.Backoff{Base: 50 * time.Millisecond}}}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	c.OnReply(5*ms, 0, Error, d)
	if c.Outcome != Failed {
		t.Fatalf("a retry that would start after the deadline must not be scheduled: %v", c.Outcome)
	}
}

func TestCallAttemptTimeoutRetries(t *testing.T) {
	cl := &Client{Cfg: ClientConfig{AttemptTimeout: 30 * time.Millisecond, Retries: 1}}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	tm := d.lastTimer(t, TimerAttempt)
	if tm.at != 30*ms || tm.h != 0 {
		t.Fatalf("attempt timer %+v", tm)
	}
	c.OnTimer(30*ms, TimerAttempt, 0, d)
	if c.Live(0) {
		t.Fatal("a timed-out attempt is still live")
	}
	c.OnTimer(d.lastTimer(t, TimerRetry).at, TimerRetry, -1, d)
	c.OnReply(60*ms, 0, OK, d) // the abandoned attempt answers late: ignored
	if c.Outcome != Pending {
		t.Fatalf("an abandoned attempt's answer ended the call: %v", c.Outcome)
	}
	c.OnReply(70*ms, 1, OK, d)
	if c.Outcome != Succeeded {
		t.Fatalf("outcome %v", c.Outcome)
	}
}

func TestCallHedgeFirstAnswerWinsLoserCancelled(t *testing.T) {
	h, err := hedge.New(hedge.Config{Delay: 15 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	cl := &Client{Hedger: h}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	tm := d.lastTimer(t, TimerHedge)
	if tm.at != 15*ms {
		t.Fatalf("hedge at %v, want 15ms", tm.at)
	}
	c.OnTimer(tm.at, TimerHedge, -1, d)
	if len(d.sent) != 2 || d.sent[1] != server.Hedge || d.siblings[1] != 0 {
		t.Fatalf("hedge not sent to avoid the first attempt: %v %v", d.sent, d.siblings)
	}
	c.OnTimer(tm.at, TimerHedge, -1, d) // at most one hedge
	c.OnReply(20*ms, 1, OK, d)
	if c.Outcome != Succeeded || len(d.cancels) != 1 || d.cancels[0] != 0 {
		t.Fatalf("outcome %v cancels %v: the hedge won, the first attempt should be cancelled", c.Outcome, d.cancels)
	}
	if len(d.sent) != 2 {
		t.Fatalf("%d attempts", len(d.sent))
	}
}

func TestCallHedgeSiblingFailureWaits(t *testing.T) {
	h, _ := hedge.New(hedge.Config{Delay: 5 * time.Millisecond})
	cl := &Client{Hedger: h, Cfg: ClientConfig{Retries: 1}}
	var c Call
	d := &fakeDriver{}
	cl.Begin(0, &c, d)
	c.OnTimer(5*ms, TimerHedge, -1, d)
	c.OnReply(8*ms, 0, Error, d) // the first fails while the hedge is live: wait for it
	if c.Outcome != Pending || c.Retries != 0 {
		t.Fatalf("outcome %v retries %d", c.Outcome, c.Retries)
	}
	c.OnReply(12*ms, 1, OK, d)
	if c.Outcome != Succeeded {
		t.Fatalf("outcome %v", c.Outcome)
	}
}
