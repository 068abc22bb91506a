package sim

import (
	"time"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/policy"
)

// The world is the client runtime's transport: attempts travel as events.

// Send puts an attempt on its first hop: to the client's balancer, or
// straight to the server the client picked.
func (w *world) Send(now clock.Instant, h uint64, a *attempt) {
	a.Net.server = -1
	if w.trace != nil {
		w.trace.sent(now, h, a)
	}
	if !w.clientLB {
		w.pushHop(now.Add(a.Handshake+w.hopDelay(a, policy.ClientOut)), evAtBalancer, h)
		return
	}
	delay := a.Handshake + w.hopDelay(a, policy.ClientOut)
	if !a.Ticket.Valid {
		w.noServer(now, h, a, delay)
		return
	}
	// A pick that waited in line for a connection was made earlier: its
	// breaker may have opened since, as for a real client whose pool is full.
	if w.check && !a.Waited {
		w.checkPick(now, w.bals[a.Bal], a.Ticket)
	}
	a.Net.server, a.Net.lbSent = int32(a.Ticket.Server), now
	if a.ConnNew {
		w.servers[a.Ticket.Server].conns++
	}
	w.pushHop(now.Add(delay), evAtServer, h)
}

// Cancel sends a cancellation after the attempt, over the attempt's own
// hops; it drops the attempt only if it is still queued when it arrives.
func (w *world) Cancel(now clock.Instant, h uint64, a *attempt) {
	d := w.hopDelay(a, policy.ClientOut)
	if !w.clientLB {
		d += w.hopDelay(a, policy.BalancerOut)
	}
	w.push(now.Add(d), evCancel, h, 0)
}

// Arm schedules a client timer.
func (w *world) Arm(at clock.Instant, t client.Timer) {
	w.push(at, evTimer, t.Ref, int32(t.Kind))
}

// forward is the balancer's part: it picks a server for the attempt and
// sends it on, a BalancerOut hop later (to the server's zone); with no
// eligible server it answers 503 after that leg's delay (to the client's).
func (w *world) forward(now clock.Instant, h uint64, a *attempt) {
	b := w.bals[a.Bal]
	exclude := -1
	if a.Sibling != 0 {
		if s := w.attemptOf(a.Sibling); s != nil {
			exclude = int(s.Net.server)
		}
	}
	req := balance.Request{Seq: a.Pick, Key: a.HashKey}
	t := b.Pick(now, req, exclude)
	w.sendProbes(now, int(a.Bal), req) // none unless the algorithm probes
	if a.Net.traced {
		w.trace.atLB(now, h)
		w.trace.picked(h, t.Server, t.Valid)
	}
	if !t.Valid {
		w.noServer(now, h, a, w.hopDelay(a, policy.BalancerOut))
		return
	}
	if w.check {
		w.checkPick(now, b, t)
	}
	a.Net.ticket, a.Net.server, a.Net.lbSent = t, int32(t.Server), now
	delay := w.hopDelay(a, policy.BalancerOut)
	w.openTicket(a.Bal)
	if to := b.Timeout(); to > 0 {
		w.push(now.Add(to), evLBTimeout, h, 0)
		a.Deadline = min(a.Deadline, now.Add(to)) // the server may drop it past the balancer's patience too
	}
	if w.balConns != nil {
		w.connectToServer(now, h, a)
		return
	}
	w.pushHop(now.Add(delay), evAtServer, h)
}

// noServer answers an attempt that found no eligible server: 503 after delay.
func (w *world) noServer(now clock.Instant, h uint64, a *attempt, delay time.Duration) {
	a.Net.srvDone, a.Net.lbDone, a.Net.result = true, true, policy.Rejected
	if a.Net.traced {
		w.trace.noServer(now, h)
	}
	w.pushHop(now.Add(delay), evReplyAtClient, h)
}
