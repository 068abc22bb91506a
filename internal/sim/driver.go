package sim

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// The world is the policy.Driver of every call: attempts travel as events.

// Send starts an attempt: to the client's balancer, or straight to a server
// the client picks itself.
func (w *world) Send(now clock.Instant, c *policy.Call, kind server.Kind, sibling int) int {
	cs := w.callOf(c.Tag)
	h, a := w.newAttempt()
	a.call, a.kind, a.seq = c.Tag, kind, cs.req.Seq*16+uint64(c.Attempts)
	a.key, a.hashKey, a.work, a.deadline = cs.req.Key, cs.req.Key, cs.req.Work, c.Deadline
	if w.lab.Balancers.HashOn == "client" {
		a.hashKey = uint64(cs.req.Client)
	}
	if w.lab.Clients.WorkAt == "server" {
		a.work = -1 // each server draws the service time of each attempt itself
	}
	if sibling >= 0 {
		a.sibling = uint64(sibling)
	}
	w.col.Attempt(kind)
	if w.clientLB {
		a.bal = cs.client
		w.forward(now, h, a, w.hopDelay(h, 1))
		return int(h)
	}
	a.bal = cs.client % int32(len(w.bals))
	w.pushHop(now.Add(w.hopDelay(h, 1)), evAtBalancer, h)
	return int(h)
}

// Cancel sends a cancellation after the attempt; it drops the attempt only
// if it is still queued when it arrives.
func (w *world) Cancel(now clock.Instant, c *policy.Call, h int) {
	hops := 2
	if w.clientLB {
		hops = 1
	}
	w.push(now.Add(w.hop*time.Duration(hops)), evCancel, uint64(h), 0)
}

// Arm schedules a client timer.
func (w *world) Arm(at clock.Instant, c *policy.Call, t policy.Timer, h int) {
	if t == policy.TimerAttempt { // the attempt knows its call
		w.push(at, evTimer, uint64(h), int32(t))
		return
	}
	w.push(at, evTimer, c.Tag, int32(t))
}

// Finish records the request's outcome and frees it.
func (w *world) Finish(now clock.Instant, c *policy.Call) {
	cs := w.callOf(c.Tag)
	w.col.Finish(now, &cs.Call)
	w.pending--
	if cs.user >= 0 && now < w.stopAt {
		u := uint64(cs.user)
		w.push(now.Add(w.stream.Think(int(u), cs.req.Seq)), evThink, 0, cs.user)
	}
	w.freeCall(cs)
}

// forward picks a server with the attempt's balancer (or client) and sends
// the attempt on after delay; with no eligible server it answers 503.
func (w *world) forward(now clock.Instant, h uint64, a *attempt, delay time.Duration) {
	b := w.bals[a.bal]
	exclude := -1
	if s := w.attemptOf(a.sibling); a.sibling != 0 && s != nil {
		exclude = int(s.server)
	}
	t := b.Pick(now, balance.Request{Seq: a.seq, Key: a.hashKey}, exclude)
	if !t.Valid {
		a.srvDone, a.lbDone, a.result = true, true, policy.Rejected
		w.pushHop(now.Add(delay), evReplyAtClient, h)
		return
	}
	if w.check {
		w.checkPick(now, b, t)
	}
	a.ticket, a.server, a.lbSent = t, int32(t.Server), now
	if to := b.Timeout(); to > 0 {
		w.push(now.Add(to), evLBTimeout, h, 0)
		if d := now.Add(to); d < a.deadline {
			a.deadline = d
		}
	}
	if at := w.client.Cfg.AttemptTimeout; at > 0 {
		if d := now.Add(at); d < a.deadline {
			a.deadline = d
		}
	}
	w.pushHop(now.Add(delay), evAtServer, h)
}
