package policy

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/hedge"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/rng"
)

// Outcome is how a request ended for its client: exactly one per request.
type Outcome uint8

const (
	Pending   Outcome = iota
	Succeeded         // an attempt answered 200 in time
	Failed            // the last attempt answered 500/502 and no retry was left
	Shed              // the last attempt answered 503 and no retry was left
	TimedOut          // the deadline passed, or the last attempt timed out
)

func (o Outcome) String() string {
	return [...]string{"pending", "succeeded", "failed", "rejected", "timed-out"}[o]
}

// Timer names a client-side timer a Call asks its driver to arm.
type Timer uint8

const (
	TimerDeadline Timer = iota // the whole request's deadline
	TimerHedge                 // send the hedge now
	TimerRetry                 // the backoff before a retry is over
	TimerAttempt               // one attempt's client-side timeout (with the attempt's handle)
)

// Driver carries a Call's decisions out: the simulator with events, the live
// loadgen with HTTP requests and timers.
type Driver interface {
	// Send starts an attempt of kind; sibling is the handle of an attempt the
	// hedge must avoid (its server), or -1. It returns the new attempt's handle.
	// Send must not call back into the Call: even an immediate failure is
	// delivered later through OnReply.
	Send(now clock.Instant, c *Call, kind server.Kind, sibling int) int
	// Cancel asks for attempt h to be dropped if it is still queued.
	Cancel(now clock.Instant, c *Call, h int)
	// Arm asks for c.OnTimer(at, t, h) at instant at.
	Arm(at clock.Instant, c *Call, t Timer, h int)
	// Finish reports the request's single outcome.
	Finish(now clock.Instant, c *Call)
}

// ClientConfig is the client-side resilience policy.
type ClientConfig struct {
	Timeout        time.Duration // whole request; 0 = none
	AttemptTimeout time.Duration // per attempt at the client; 0 = none
	Retries        int
	Backoff        retry.Backoff
	Seed           uint64 // backoff jitter draws
}

// Client is the state shared by one client's calls: config, retry budget
// (nil = none) and hedger (nil = no hedging).
type Client struct {
	Cfg    ClientConfig
	Budget *retry.Budget
	Hedger *hedge.Hedger
}

// Call is one request's lifecycle: deadline, attempts, retries with backoff
// and budget, at most one hedge. At most two attempts are live at once
// (the first and its hedge); an attempt abandoned by a client-side attempt
// timeout is no longer live, and its answer, if it comes, is ignored.
type Call struct {
	Tag      uint64 // the driver's own handle for the call
	Seq      uint64
	Start    clock.Instant // intended send time: latency is measured from here
	Deadline clock.Instant // clock.Never when none
	Outcome  Outcome
	End      clock.Instant
	Attempts int // attempts sent, hedges included
	Retries  int
	Hedged   bool

	cl   *Client
	live [2]int // live attempt handles, -1 = empty slot
	last Result
}

// Begin starts the call at now (its intended start) and sends the first attempt.
func (cl *Client) Begin(now clock.Instant, c *Call, d Driver) {
	*c = Call{Tag: c.Tag, Seq: c.Seq, Start: now, Deadline: clock.Never, cl: cl, live: [2]int{-1, -1}}
	if cl.Cfg.Timeout > 0 {
		c.Deadline = now.Add(cl.Cfg.Timeout)
		d.Arm(c.Deadline, c, TimerDeadline, -1)
	}
	if cl.Budget != nil {
		cl.Budget.Deposit()
	}
	c.send(now, d, server.First, -1)
	if cl.Hedger != nil {
		if delay, ok := cl.Hedger.Delay(); ok && now.Add(delay) < c.Deadline {
			d.Arm(now.Add(delay), c, TimerHedge, -1)
		}
	}
}

func (c *Call) send(now clock.Instant, d Driver, kind server.Kind, sibling int) {
	c.Attempts++
	h := d.Send(now, c, kind, sibling)
	c.addLive(h)
	if at := c.cl.Cfg.AttemptTimeout; at > 0 {
		d.Arm(now.Add(at), c, TimerAttempt, h)
	}
}

func (c *Call) addLive(h int) {
	if c.live[0] < 0 {
		c.live[0] = h
	} else {
		c.live[1] = h
	}
}

// dropLive removes h from the live set and reports whether it was live.
func (c *Call) dropLive(h int) bool {
	for i, l := range c.live {
		if l == h && h >= 0 {
			c.live[i] = -1
			return true
		}
	}
	return false
}

func (c *Call) anyLive() bool { return c.live[0] >= 0 || c.live[1] >= 0 }

// Live reports whether attempt h still matters to the call.
func (c *Call) Live(h int) bool { return c.Outcome == Pending && (c.live[0] == h || c.live[1] == h) }

// OnReply feeds attempt h's answer back. Answers of attempts that no longer
// matter (the call ended, or the attempt was abandoned) are ignored; the
// driver counts their work as wasted.
func (c *Call) OnReply(now clock.Instant, h int, r Result, d Driver) {
	if c.Outcome != Pending || !c.dropLive(h) {
		return
	}
	if r == OK {
		if c.cl.Hedger != nil {
			c.cl.Hedger.Observe(now.Sub(c.Start))
		}
		c.finish(now, Succeeded, d)
		return
	}
	c.failed(now, r, d)
}

// failed handles an unsuccessful attempt: wait for a live sibling, retry
// after backoff if allowed, or end the call.
func (c *Call) failed(now clock.Instant, r Result, d Driver) {
	c.last = r
	if c.anyLive() {
		return
	}
	if c.Retries < c.cl.Cfg.Retries {
		u := rng.HashFloat(c.cl.Cfg.Seed, c.Seq, uint64(c.Retries)+0xb0ff)
		at := now.Add(c.cl.Cfg.Backoff.Delay(c.Retries+1, u))
		if at < c.Deadline && (c.cl.Budget == nil || c.cl.Budget.Withdraw()) {
			c.Retries++
			d.Arm(at, c, TimerRetry, -1)
			return
		}
	}
	c.finish(now, outcomeOf(r), d)
}

func outcomeOf(r Result) Outcome {
	switch r {
	case Rejected:
		return Shed
	case Timeout:
		return TimedOut
	case OK:
		return Succeeded
	}
	return Failed
}

// OnTimer fires timer t (with attempt handle h for TimerAttempt).
func (c *Call) OnTimer(now clock.Instant, t Timer, h int, d Driver) {
	if c.Outcome != Pending {
		return
	}
	switch t {
	case TimerDeadline:
		c.finish(now, TimedOut, d)
	case TimerHedge:
		if !c.Hedged && c.Retries == 0 && c.live[0] >= 0 && c.live[1] < 0 {
			c.Hedged = true
			c.send(now, d, server.Hedge, c.live[0])
		}
	case TimerRetry:
		c.send(now, d, server.Retry, -1)
	case TimerAttempt:
		if c.dropLive(h) { // abandoned: the server may still work on it (wasted)
			c.failed(now, Timeout, d)
		}
	}
}

// finish ends the call. After a success the losing hedge is cancelled (it is
// dropped if still queued; in service it runs on as wasted work). After a
// timeout the attempts are abandoned: the servers never hear of it.
func (c *Call) finish(now clock.Instant, o Outcome, d Driver) {
	c.Outcome, c.End = o, now
	for i, h := range c.live {
		if h >= 0 {
			c.live[i] = -1
			if o == Succeeded {
				d.Cancel(now, c, h)
			}
		}
	}
	d.Finish(now, c)
}

// Last is the result of the last failed attempt.
func (c *Call) Last() Result { return c.last }
