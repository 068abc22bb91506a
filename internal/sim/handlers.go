package sim

import (
	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// step fires one event.
func (w *world) step(e event) {
	switch e.kind {
	case evAtBalancer:
		if a := w.attemptOf(e.h); a != nil {
			w.forward(w.now, e.h, a)
		}
	case evAtServer:
		w.onAtServer(e.h)
	case evWake:
		w.onWake(int(e.a), e.at)
	case evReplyAtLB:
		w.onReplyAtLB(e.h)
	case evReplyAtClient:
		w.onReplyAtClient(e.h)
	case evLBTimeout:
		w.onLBTimeout(e.h)
	case evCancel:
		w.onCancel(e.h)
	case evTimer:
		w.rt.Fire(w.now, client.Timer{Kind: client.TimerKind(e.a), Ref: e.h})
	case evRefresh:
		w.onRefresh()
	case evHealth:
		w.onHealth()
	case evScript:
		w.onScript(int(e.a))
		w.builtStale = true // the lab's objects may have changed (guard.go)
	case evUndo:
		w.onUndo(int(e.a))
		w.builtStale = true
	case evProbeAtServer:
		w.onProbeAtServer(e.h)
	case evProbeAtLB:
		w.onProbeAtLB(e.h)
	case evIdleAtLB:
		w.onIdleAtLB(int(e.h), int(e.a))
	case evBin:
		if w.onBin != nil {
			w.onBin()
		}
		w.col.closeBin(w.now)
		if w.now < w.stopAt {
			w.push(w.now.Add(binWidth), evBin, 0, 0)
		}
	}
}

// scheduleArrival pulls the next open-loop request; it is due at
// w.arrivalAt (clock.Never when it falls after the end of the run). The
// pending arrival stays out of the event heap: the loop merges it in, which
// saves a push and a pop per request.
func (w *world) scheduleArrival() {
	w.next = w.stream.Next()
	w.arrivalAt = clock.Never
	if w.next.At < w.stopAt {
		w.arrivalAt = w.next.At
	}
}

func (w *world) onAtServer(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	s := w.servers[a.Net.server]
	s.sent++
	if a.Net.traced {
		w.trace.atServer(w.now, h)
	}
	job := server.Job{ID: h, Work: a.Work, Key: a.Key, Kind: a.Kind, Pick: a.Pick, Fault: a.Fault}
	if a.Net.ticket.Probe || a.Ticket.Probe {
		job.Kind = server.Probe
	}
	if a.Deadline != clock.Never {
		job.Deadline = a.Deadline
	}
	w.replyBuf = s.core.Arrive(w.now, job, w.replyBuf[:0])
	w.deliver(int(a.Net.server))
	w.col.serverTouched(int(a.Net.server))
}

func (w *world) onWake(si int, at clock.Instant) {
	s := w.servers[si]
	if at != s.wakeAt {
		return // superseded by an earlier wake-up
	}
	s.wakeAt = clock.Never
	w.replyBuf = s.core.Advance(w.now, w.replyBuf[:0])
	w.deliver(si)
	w.col.serverTouched(si)
}

// deliver routes the replies in replyBuf from server si back towards their
// clients and re-arms the server's wake-up.
func (w *world) deliver(si int) {
	s := w.servers[si]
	for _, r := range w.replyBuf {
		a := w.attemptOf(r.ID)
		if a == nil {
			continue
		}
		n := &a.Net
		n.status, n.repQueue, n.repSvc = r.Status, r.Queue, r.Service
		if a.Net.traced {
			w.trace.replied(r)
		}
		if !n.lbDone { // a balancer that answered 504 (or 503) already stays answered
			n.result = policy.ResultOf(r.Status)
		}
		if r.Served() {
			s.completed++
		}
		n.repLoad = s.core.Report(w.now) // measured as the server replies, stamped when the answer leaves it
		n.repLoad.At = r.At
		if w.clientLB {
			n.srvDone = true
			w.pushHop(r.At.Add(w.hopDelay(a, policy.ServerBack)), evReplyAtClient, r.ID)
		} else {
			w.pushHop(r.At.Add(w.hopDelay(a, policy.ServerBack)), evReplyAtLB, r.ID)
		}
	}
	w.idleAfterReplies(si)
	w.schedWake(si)
}

// schedWake makes sure a wake-up event is pending for server si's next deadline.
func (w *world) schedWake(si int) {
	s := w.servers[si]
	at, ok := s.core.NextDeadline()
	if !ok || at >= s.wakeAt {
		return
	}
	if at < w.now {
		at = w.now
	}
	s.wakeAt = at
	w.push(at, evWake, 0, int32(si))
}

func (w *world) onReplyAtLB(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	n := &a.Net
	n.srvDone = true
	w.freeBalancerConn(h, a, broken(n.status))
	if n.lbDone { // the balancer already answered 504: the work was for nobody
		if n.status == server.OK {
			w.col.Wasted()
		}
		w.maybeFree(h, a)
		return
	}
	n.lbDone = true
	if a.Net.traced {
		w.trace.backAtLB(w.now, h, false)
	}
	w.closeTicket(a.Bal)
	b := w.bals[a.Bal]
	if perCall, _ := b.Reports(); perCall && n.repLoad.Valid { // the report the answer carries, as it passes the balancer
		rep := n.repLoad
		rep.At = w.now
		w.report(int(a.Bal), n.ticket.Server, rep)
	}
	b.Done(w.now, n.ticket, n.result, w.now.Sub(n.lbSent))
	w.pushHop(w.now.Add(w.hopDelay(a, policy.BalancerBack)), evReplyAtClient, h)
}

func (w *world) onLBTimeout(h uint64) {
	a := w.attemptOf(h)
	if a == nil || a.Net.lbDone {
		return
	}
	n := &a.Net
	n.lbDone, n.timedOut, n.result = true, true, policy.Timeout
	if a.Net.traced {
		w.trace.backAtLB(w.now, h, true)
	}
	w.abandonBalancerConn(h, a)
	b := w.bals[a.Bal]
	w.closeTicket(a.Bal)
	b.Done(w.now, n.ticket, policy.Timeout, b.Timeout())
	w.pushHop(w.now.Add(w.hopDelay(a, policy.BalancerBack)), evReplyAtClient, h)
}

// onReplyAtClient hands an answer to the client runtime; the attempt is
// freed once the server is done with it too.
func (w *world) onReplyAtClient(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	n := &a.Net
	n.clientGot = true
	rep := client.Reply{Load: n.repLoad}
	if n.server >= 0 { // who the balancer (or the client) picked: it answered, or the balancer gave up on it
		rep.Server = w.servers[n.server].spec.Name
		// Times only when the server itself answered: not after a balancer's
		// 504, nor from a killed or down server (live: a reset connection).
		rep.Queue, rep.Service = n.repQueue, n.repSvc
		rep.Timed = !n.timedOut && n.status != server.Lost && n.status != server.Refused
	}
	if w.clientLB && broken(n.status) {
		w.rt.Broken(w.now, h)
	}
	if a.Net.traced {
		w.trace.atClient(w.now, h, n.result, a.Answered)
	}
	w.rt.Answer(w.now, h, n.result, rep)
	w.maybeFree(h, a)
}

func (w *world) onCancel(h uint64) {
	a := w.attemptOf(h)
	if a == nil || a.Net.srvDone || a.Net.server < 0 {
		return
	}
	si := int(a.Net.server)
	w.replyBuf = w.servers[si].core.Cancel(w.now, h, w.replyBuf[:0])
	w.deliver(si)
}
