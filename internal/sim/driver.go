package sim

import (
	"time"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/server"
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
		if z := w.net.Zones; w.net.Cut && z != nil && w.net.Crosses(z.Client(a.Client), z.Balancer(a.Bal)) {
			w.partitioned(now, h, a)
			return
		}
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
	if a.ConnNew { // the client's model opened it: counted as the live server counts a dial
		w.servers[a.Ticket.Server].conns++
	}
	if z := w.net.Zones; w.net.Cut && z != nil && w.net.Crosses(z.Client(a.Client), z.Server(a.Net.server)) {
		w.partitioned(now, h, a)
		return
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
	if z := w.net.Zones; w.net.Cut && z != nil && w.net.Crosses(z.Balancer(a.Bal), z.Server(a.Net.server)) {
		// the link to the server's zone is cut: the balancer's connection is
		// refused at once, and it answers 502 over its hop back
		a.Net.status, a.Net.result = server.Refused, policy.ResultOf(server.Refused)
		w.push(now, evReplyAtLB, h, 0)
		return
	}
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

// partitioned fails attempt h at once: its hop from the client would cross a
// cut link (network.partition), so no balancer or server sees it; the
// client reads it as a refused connection.
func (w *world) partitioned(now clock.Instant, h uint64, a *attempt) {
	a.Net.srvDone, a.Net.lbDone, a.Net.status, a.Net.result = true, true, server.Refused, policy.ResultOf(server.Refused)
	w.push(now, evReplyAtClient, h, 0)
}

// noServer answers an attempt that found no eligible server: 503 after delay.
func (w *world) noServer(now clock.Instant, h uint64, a *attempt, delay time.Duration) {
	a.Net.srvDone, a.Net.lbDone, a.Net.result = true, true, policy.Rejected
	if a.Net.traced {
		w.trace.noServer(now, h)
	}
	w.pushHop(now.Add(delay), evReplyAtClient, h)
}
