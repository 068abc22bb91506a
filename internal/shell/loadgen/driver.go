package loadgen

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
)

// A target is the policy.Driver of its calls: attempts become HTTP requests
// on goroutines, timers become entries of the loop's heap.

// Send starts an attempt: to the client's balancer URL, or straight to a
// server the client picks itself. The goroutine answers later, never inside
// Send.
func (t *target) Send(now clock.Instant, c *policy.Call, kind server.Kind, sibling int) int {
	cs := t.callOf(c.Tag)
	h, a := t.newAttempt()
	a.call, a.seq, a.sentAt = c.Tag, cs.req.Seq*16+uint64(c.Attempts), now
	t.rec.Attempt(kind)
	t.attObs.AttemptSent(int(kind))
	j := t.l.job(t, h, cs, c, kind, now, t.l.hopDelay(a.seq))
	if t.bals != nil {
		t.pick(now, a, cs, sibling, &j)
	} else {
		a.ep = cs.client % int32(len(t.eps))
		j.ep = t.eps[a.ep]
		if s := t.attemptOf(uint64(sibling)); sibling >= 0 && s != nil {
			j.exclude = s.server // known only if the sibling already answered
		}
	}
	a.kind = j.kind // as sent: a client-side breaker probe says probe
	t.l.launch(j)
	return int(h)
}

// pick chooses the server in client-side mode, avoiding a hedge's sibling.
func (t *target) pick(now clock.Instant, a *attempt, cs *callState, sibling int, j *job) {
	a.bal = cs.client
	b := t.bals[a.bal]
	exclude := -1
	if s := t.attemptOf(uint64(sibling)); sibling >= 0 && s != nil && s.ticket.Valid {
		exclude = s.ticket.Server
	}
	key := cs.req.Key
	if t.l.lab.Balancers.HashOn == "client" {
		key = uint64(cs.req.Client)
	}
	tk := b.Pick(now, balance.Request{Seq: a.seq, Key: key}, exclude)
	if !tk.Valid {
		j.reject = true
		return
	}
	a.ticket, a.ep = tk, int32(tk.Server)
	j.ep = t.eps[tk.Server]
	if tk.Probe {
		j.kind = server.Probe
	}
	t.servers[tk.Server].sent++
}

// Arm puts a call timer on the loop's heap.
func (t *target) Arm(at clock.Instant, c *policy.Call, tm policy.Timer, h int) {
	t.l.q.push(event{at: at, kind: evTimer, t: int32(t.idx), h: c.Tag, a: int32(tm), b: uint64(h)})
}

// Finish records the request's outcome; a closed-loop user thinks, then
// starts its next request.
func (t *target) Finish(now clock.Instant, c *policy.Call) {
	cs := t.callOf(c.Tag)
	t.rec.Finish(now, &cs.Call)
	t.reqObs.RequestEnded(int(cs.Outcome), now.Sub(cs.Start))
	t.pending--
	if cs.user >= 0 && now < t.l.stopAt {
		at := now.Add(t.l.stream.Think(int(cs.user), cs.req.Seq))
		t.l.q.push(event{at: at, kind: evThink, t: int32(t.idx), a: cs.user})
	}
	t.freeCall(cs)
}

// hopDelay is the client's outbound hop for pick number seq: network.hop
// plus a uniform share of network.jitter drawn from the seed.
func (l *loop) hopDelay(seq uint64) time.Duration {
	hop, jit := l.lab.Network.Hop, l.lab.Network.Jitter
	if jit <= 0 {
		return hop
	}
	return hop + time.Duration(float64(jit)*rng.HashFloat(l.lab.Seed, seq, 1))
}

// job fills in the wire fields of an attempt sent at now after hop.
func (l *loop) job(t *target, h uint64, cs *callState, c *policy.Call, kind server.Kind, now clock.Instant, hop time.Duration) job {
	j := job{target: t.idx, h: h, seq: cs.req.Seq, client: cs.req.Client, key: cs.req.Key,
		work: cs.req.Work, kind: kind, sendAt: l.wall(now.Add(hop))}
	if l.lab.Clients.WorkAt == "server" {
		j.work = -1 // no X-Lab-Work: each server draws the attempt's service time
	}
	// The server may drop work past the tightest deadline the client has.
	dl := c.Deadline
	if at := t.client.Cfg.AttemptTimeout; at > 0 {
		dl = min(dl, now.Add(at))
	}
	if dl != clock.Never {
		j.labDL = l.wall(dl).UnixNano()
	}
	// The HTTP exchange outlives the call a little so that late answers
	// are still seen (and counted as wasted), but never the run.
	j.deadline = l.wall(min(c.Deadline, l.cutAt).Add(hop + httpGrace))
	return j
}

// httpGrace is how long after its call's deadline an attempt still waits
// for its answer.
const httpGrace = time.Second
