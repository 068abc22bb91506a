package loadgen

import (
	"time"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
)

// A target is its runtime's transport: attempts become HTTP requests on
// goroutines, timers become entries of the loop's heap.

// Send hands attempt h to a goroutine: to the client's balancer URL, or
// straight to the server the client picked. The goroutine answers later,
// never inside Send.
func (t *target) Send(now clock.Instant, h uint64, a *attempt) {
	a.Left = t.l.leftAt() // the generator may lag behind now, the intended instant
	j := t.l.job(t, h, a, now)
	tm := -1 // the template it sends
	switch {
	case t.rt.FirstHopCut(t.l.net, a): // across a cut link: refused at once, nothing sent
		j.cut, j.sendAt = true, time.Time{}
	case !t.rt.ClientSide():
		tm = int(a.Bal)
		if t.bySeq {
			tm = int(j.seq % uint64(len(t.tmpls)))
		}
		if s := t.rt.Attempt(a.Sibling); a.Sibling != 0 && s != nil {
			j.exclude = s.Net.server // known only if the sibling already answered
		}
	case a.Ticket.Valid:
		tm = a.Ticket.Server
		if a.Ticket.Probe {
			j.kind = server.Probe
		}
		t.servers[a.Ticket.Server].sent++
	default:
		j.reject = true
	}
	a.Net.ep = -1
	if tm >= 0 {
		j.tmpl = &t.tmpls[tm]
		a.Net.ep = int32(j.tmpl.ep)
		j.ep = t.eps[j.tmpl.ep]
		t.connFor(&j, a)
	}
	a.Net.kind = j.kind // as sent: a client-side breaker probe says probe
	t.l.launch(j)
}

// Arm puts a client timer on the loop's heap.
func (t *target) Arm(at clock.Instant, tm client.Timer) {
	t.l.q.push(event{at: at, kind: evTimer, t: int32(t.idx), h: tm.Ref, a: int32(tm.Kind)})
}

// job fills in the wire fields of attempt h, sent at now.
func (l *loop) job(t *target, h uint64, a *attempt, now clock.Instant) job {
	hop := t.rt.FirstHop(l.net, a).Delay(a.Pick, policy.ClientOut)
	seq, n := policy.SplitPick(a.Pick)
	j := job{target: t.idx, h: h, seq: seq, try: n, client: int(a.Client), key: a.Key,
		work: a.Work, kind: a.Kind, plain: l.cfg.HTTP.Plain, fault: a.Fault}
	if d := a.Handshake + hop; d > 0 { // none: sent at once, without a look at the clock
		j.sendAt = l.wall(now.Add(d))
	}
	if a.Deadline != clock.Never { // the server may drop work past it
		j.labDL = l.wall(a.Deadline).UnixNano()
	}
	// The HTTP exchange outlives the call a little so that late answers
	// are still seen (and counted as wasted), but never the run.
	dl := l.cutAt
	if c := t.rt.Call(a.Call); c != nil {
		dl = min(c.Deadline, dl)
	}
	j.deadline = l.wall(dl.Add(a.Handshake + hop + httpGrace))
	return j
}

// httpGrace is how long after its call's deadline an attempt still waits
// for its answer.
const httpGrace = time.Second
