package sim

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/workload"
)

// step fires one event.
func (w *world) step(e event) {
	switch e.kind {
	case evThink:
		w.startUser(e.a)
	case evAtBalancer:
		if a := w.attemptOf(e.h); a != nil {
			w.forward(w.now, e.h, a, w.hopDelay(e.h, 2))
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
		w.onTimer(e)
	case evRefresh:
		w.onRefresh()
	case evHealth:
		w.onHealth()
	case evScript:
		w.onScript(int(e.a))
	case evBin:
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

// begin starts a request's call at its intended time.
func (w *world) begin(req workload.Request, user int32) {
	_, cs := w.newCall()
	cs.req, cs.user, cs.client = req, user, int32(req.Client)
	cs.Seq = req.Seq
	w.pending++
	w.col.Offered(w.now)
	w.client.Begin(w.now, &cs.Call, w)
}

func (w *world) startUser(user int32) {
	if w.now >= w.stopAt {
		return
	}
	req := w.stream.Draw(w.userSeq, w.now)
	w.userSeq++
	w.begin(req, user)
}

func (w *world) onAtServer(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	s := w.servers[a.server]
	s.sent++
	job := server.Job{ID: h, Work: a.work, Key: a.key, Kind: a.kind}
	if a.ticket.Probe {
		job.Kind = server.Probe
	}
	if a.deadline != clock.Never {
		job.Deadline = a.deadline
	}
	w.replyBuf = s.core.Arrive(w.now, job, w.replyBuf[:0])
	w.deliver(int(a.server))
	w.col.serverTouched(int(a.server))
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
		a.status, a.result, a.repAt = r.Status, resultOf(r.Status), r.At
		if r.Status == server.OK {
			s.completed++
		}
		q, in := s.core.Load()
		a.repLoadQ, a.repLoadS = int32(q), int32(in)
		if w.clientLB {
			a.srvDone = true
			w.pushHop(r.At.Add(w.hopDelay(r.ID, 3)), evReplyAtClient, r.ID)
		} else {
			w.pushHop(r.At.Add(w.hopDelay(r.ID, 3)), evReplyAtLB, r.ID)
		}
	}
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

func resultOf(st server.Status) policy.Result {
	switch st {
	case server.OK:
		return policy.OK
	case server.Rejected:
		return policy.Rejected
	case server.Cancelled:
		return policy.Cancelled
	case server.Dropped:
		return policy.Timeout
	}
	return policy.Error // error, fail, lost (reset), refused
}

func (w *world) onReplyAtLB(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	a.srvDone = true
	if a.lbDone { // the balancer already answered 504: the work was for nobody
		if a.status == server.OK {
			w.col.Wasted()
		}
		w.maybeFree(h, a)
		return
	}
	a.lbDone = true
	w.bals[a.bal].Done(w.now, a.ticket, a.result, w.now.Sub(a.lbSent))
	w.pushHop(w.now.Add(w.hopDelay(h, 4)), evReplyAtClient, h)
}

func (w *world) onLBTimeout(h uint64) {
	a := w.attemptOf(h)
	if a == nil || a.lbDone {
		return
	}
	a.lbDone, a.timedOut, a.result = true, true, policy.Timeout
	b := w.bals[a.bal]
	b.Done(w.now, a.ticket, policy.Timeout, b.Timeout())
	w.pushHop(w.now.Add(w.hopDelay(h, 4)), evReplyAtClient, h)
}

func (w *world) onReplyAtClient(h uint64) {
	a := w.attemptOf(h)
	if a == nil {
		return
	}
	if w.clientLB && a.ticket.Valid {
		b := w.bals[a.bal]
		b.Loads().Report(a.repAt, int(a.server), int(a.repLoadQ), int(a.repLoadS))
		b.Done(w.now, a.ticket, a.result, w.now.Sub(a.lbSent))
	}
	a.clientGot = true
	res, served, timedOut := a.result, a.status == server.OK, a.timedOut
	cs := w.callOf(a.call)
	if cs == nil || !cs.Live(int(h)) { // abandoned or lost the race: not counted again
		if served && !timedOut {
			w.col.Wasted()
		}
	} else {
		w.col.Result(res)
		cs.OnReply(w.now, int(h), res, w)
	}
	if a = w.attemptOf(h); a != nil {
		w.maybeFree(h, a)
	}
}

func (w *world) onCancel(h uint64) {
	a := w.attemptOf(h)
	if a == nil || a.srvDone || a.server < 0 {
		return
	}
	si := int(a.server)
	w.replyBuf = w.servers[si].core.Cancel(w.now, h, w.replyBuf[:0])
	w.deliver(si)
}

func (w *world) onTimer(e event) {
	t, h := policy.Timer(e.a), -1
	callHandle := e.h
	if t == policy.TimerAttempt {
		a := w.attemptOf(e.h)
		if a == nil {
			return // answered and done with: the timer is moot
		}
		h, callHandle = int(e.h), a.call
	}
	cs := w.callOf(callHandle)
	if cs == nil {
		return
	}
	if t == policy.TimerAttempt && cs.Live(h) {
		w.col.Result(policy.Timeout)
	}
	if t == policy.TimerDeadline {
		w.col.Deadline()
	}
	cs.OnTimer(w.now, t, h, w)
}
