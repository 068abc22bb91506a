package loadgen

import (
	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/slab"
	"github.com/lblab/lblab/internal/workload"
)

// callState is one request of one target and its lifecycle.
type callState struct {
	policy.Call
	req    workload.Request
	user   int32 // closed-loop user, -1 for open loop
	client int32
}

// attempt is one try, from Send until its goroutine's answer is handled
// (even when the call has stopped caring about it).
type attempt struct {
	call   uint64
	seq    uint64 // pick number: request seq x 16 + attempt number (as the simulator)
	ep     int32  // endpoint index
	bal    int32  // client-side: the client's balancer; -1 otherwise
	ticket policy.Ticket
	sentAt clock.Instant
	server string      // X-Lab-Server of its answer, once known
	kind   server.Kind // X-Lab-Attempt as sent (what a cancellation names)
}

// srvStat is what one target learnt about a server from its answers.
type srvStat struct {
	name            string
	sent, completed uint64
	maxQueue        int
}

// target is one run of the report: its own client policy, recorder, calls
// and (client-side) balancers. It is the policy.Driver of its calls. Only the
// loop goroutine touches it.
type target struct {
	l       *loop
	idx     int
	name    string
	algo    string
	client  policy.Client
	rec     *report.Recorder
	reqObs  observe.Requests
	attObs  observe.Attempts
	eps     []*endpoint
	bals    []*policy.Balancer // client-side: one per client id; nil in balancer mode
	servers []srvStat
	byName  map[string]int
	calls   slab.Slab[callState]
	att     slab.Slab[attempt]
	pending int
	userSeq uint64
	log     []report.LogLine
	admins  []*fasthttp.HostClient // per endpoint, where cancellations go (nil: none); see cancel.go
}

func (t *target) callOf(h uint64) *callState { return t.calls.Get(h) }

func (t *target) attemptOf(h uint64) *attempt { return t.att.Get(h) }

func (t *target) newCall() *callState {
	h, c := t.calls.New()
	c.user, c.Tag = -1, h
	return c
}

func (t *target) freeCall(c *callState) { t.calls.Free(c.Tag) }

func (t *target) newAttempt() (uint64, *attempt) {
	h, a := t.att.New()
	a.bal, a.ep = -1, -1
	return h, a
}

func (t *target) freeAttempt(h uint64) { t.att.Free(h) }

// begin starts a request's call at its intended time req.At: latency is
// measured from there, however late the loop got to it.
func (t *target) begin(req workload.Request, user int32) {
	cs := t.newCall()
	cs.req, cs.user, cs.client, cs.Seq = req, user, int32(req.Client), req.Seq
	t.pending++
	t.rec.Offered(req.At)
	t.client.Begin(req.At, &cs.Call, t)
}

// server returns the stats entry of a server name, adding it if new.
func (t *target) server(name string) *srvStat {
	i, ok := t.byName[name]
	if !ok {
		i = len(t.servers)
		t.servers = append(t.servers, srvStat{name: name})
		t.byName[name] = i
	}
	return &t.servers[i]
}

// onResult handles an attempt's answer like the simulator's onReplyAtClient:
// the client-side balancer learns the piggybacked load, a live attempt's
// result goes to its call, an answer nobody waits for any more is wasted.
func (t *target) onResult(now clock.Instant, r *result) {
	a := t.attemptOf(r.h)
	if a == nil {
		return
	}
	res := r.policyResult()
	t.l.noteResult(r, res)
	t.noteServer(a, r)
	if a.bal >= 0 && a.ticket.Valid {
		b := t.bals[a.bal]
		if r.hasLoad {
			b.Loads().Report(now, a.ticket.Server, r.loadQ, r.loadB)
		}
		b.Done(now, a.ticket, res, now.Sub(a.sentAt))
	}
	cs := t.callOf(a.call)
	if cs == nil || !cs.Live(int(r.h)) {
		if res == policy.OK {
			t.rec.Wasted()
			t.attObs.Wasted()
		}
	} else {
		t.rec.Result(res)
		t.attObs.AttemptAnswered(int(res))
		cs.OnReply(now, int(r.h), res, t)
	}
	t.freeAttempt(r.h)
}

// noteServer counts the answer against the server that gave it.
func (t *target) noteServer(a *attempt, r *result) {
	var s *srvStat
	switch {
	case a.bal >= 0 && a.ticket.Valid:
		s = &t.servers[a.ticket.Server] // counted as sent at the pick
	case r.server != "":
		s = t.server(r.server)
		s.sent++
	default:
		return
	}
	a.server = s.name
	if r.status == 200 {
		s.completed++
	}
	if r.hasLoad && r.loadQ > s.maxQueue {
		s.maxQueue = r.loadQ
	}
}

// onTimer fires a call timer (the simulator's onTimer).
func (t *target) onTimer(at clock.Instant, e event) {
	cs := t.callOf(e.h)
	if cs == nil {
		return
	}
	tm := policy.Timer(e.a)
	if tm == policy.TimerAttempt && cs.Live(int(e.b)) {
		t.rec.Result(policy.Timeout)
		t.attObs.AttemptAnswered(int(policy.Timeout))
	}
	if tm == policy.TimerDeadline {
		t.rec.Deadline()
	}
	cs.OnTimer(at, tm, int(e.b), t)
}

// cutOff ends every pending call as timed out (the drain limit).
func (t *target) cutOff(now clock.Instant) {
	t.calls.Each(func(_ uint64, cs *callState) {
		t.rec.Deadline()
		cs.OnTimer(now, policy.TimerDeadline, -1, t)
	})
}

func (t *target) logf(now clock.Instant, text string) {
	t.log = append(t.log, report.LogLine{T: now.Seconds(), Text: text})
}
