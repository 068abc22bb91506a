package client

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/hedge"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/workload"
)

const ms = clock.Instant(time.Millisecond)

// net is a transport the tests play by hand: it records what the runtime
// asks for.
type net struct {
	sent    []uint64
	cancels []uint64
	timers  []armed
}

type armed struct {
	at clock.Instant
	t  Timer
}

type tag struct{ hops int }

func (n *net) Send(_ clock.Instant, h uint64, a *Attempt[tag]) {
	n.sent = append(n.sent, h)
	a.Net.hops++
}
func (n *net) Cancel(_ clock.Instant, h uint64, _ *Attempt[tag]) {
	n.cancels = append(n.cancels, h)
}
func (n *net) Arm(at clock.Instant, t Timer) { n.timers = append(n.timers, armed{at, t}) }

// last returns the last armed timer of kind k.
func (n *net) last(t *testing.T, k TimerKind) armed {
	t.Helper()
	for i := len(n.timers) - 1; i >= 0; i-- {
		if n.timers[i].t.Kind == k {
			return n.timers[i]
		}
	}
	t.Fatalf("no timer %d armed: %+v", k, n.timers)
	return armed{}
}

func stream(t *testing.T, think time.Duration) *workload.Stream {
	t.Helper()
	s, err := workload.New(workload.Config{Seed: 1, Rate: 100, Clients: 4, Keys: 10, Work: rng.Constant{Value: 10 * time.Millisecond}, Think: think})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func req(seq uint64, client int) workload.Request {
	return workload.Request{Seq: seq, Key: 3, Client: client, Work: 10 * time.Millisecond}
}

// An attempt is prepared the same way for both drivers: its pick number,
// key, work and tightest deadline.
func TestAttemptPreparation(t *testing.T) {
	n := &net{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Cfg: policy.ClientConfig{Timeout: 100 * time.Millisecond,
		AttemptTimeout: 30 * time.Millisecond}}, HashClient: true}, Stream: stream(t, 0), StopAt: clock.Never, Tier: 3}, n)
	rt.Begin(10*ms, req(5, 4), -1)
	a := rt.Attempt(n.sent[0])
	if a.Pick != policy.PickNumber(5, 1) || a.Kind != server.First || a.Bal != 4%3 || a.Net.hops != 1 {
		t.Fatalf("attempt %+v", a)
	}
	if a.Key != 3 || a.HashKey != 4 || a.Work != 10*time.Millisecond {
		t.Errorf("key %d, hashed %d, work %v; want 3, the client 4, 10ms", a.Key, a.HashKey, a.Work)
	}
	if a.Deadline != 40*ms { // the attempt timeout comes before the call's deadline at 110 ms
		t.Errorf("deadline %v, want 40ms", a.Deadline)
	}
	rt.Reconfigure(Config{Live: Live{Policy: *rt.Policy(), WorkAtServer: true}})
	rt.Begin(20*ms, req(6, 1), -1)
	if b := rt.Attempt(n.sent[1]); b.Work >= 0 || b.HashKey != 3 {
		t.Errorf("after reconfiguring: work %v, hashed %d; want none, the key", b.Work, b.HashKey)
	}
}

// A failed attempt is retried after its backoff, with the next pick number;
// each request ends exactly once and the recorder counts what the client saw.
func TestRetryThenSuccessIsCountedOnce(t *testing.T) {
	n := &net{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Cfg: policy.ClientConfig{Retries: 2,
		Backoff: retry.Backoff{Base: 10 * time.Millisecond}}}}, Stream: stream(t, 0), StopAt: clock.Never}, n)
	rt.Begin(0, req(9, 0), -1)
	rt.Answer(5*ms, n.sent[0], policy.Error, Reply{})
	rt.Release(n.sent[0])
	tm := n.last(t, Retry)
	rt.Fire(tm.at, tm.t)
	a := rt.Attempt(n.sent[1])
	if a.Kind != server.Retry || a.Pick != policy.PickNumber(9, 2) {
		t.Fatalf("retry %+v", a)
	}
	rt.Answer(30*ms, n.sent[1], policy.OK, Reply{})
	rt.Answer(31*ms, n.sent[1], policy.OK, Reply{}) // a duplicate changes nothing
	c := rt.Rec.Total
	if rt.Pending() != 0 || c.Offered != 1 || c.Succeeded != 1 || c.Attempts != 2 || c.Retries != 1 || c.Errors != 1 || c.Wasted != 0 {
		t.Fatalf("pending %d, counts %+v", rt.Pending(), c)
	}
}

// The winner of a hedge race cancels the loser; the loser's later success
// is wasted work, not a second outcome.
func TestHedgeLoserIsCancelledAndWasted(t *testing.T) {
	h, err := hedge.New(hedge.Config{Delay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	n := &net{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Hedger: h}}, Stream: stream(t, 0), StopAt: clock.Never}, n)
	rt.Begin(0, req(1, 0), -1)
	tm := n.last(t, Hedge)
	rt.Fire(tm.at, tm.t)
	first, second := n.sent[0], n.sent[1]
	if a := rt.Attempt(second); a.Kind != server.Hedge || a.Sibling != first {
		t.Fatalf("hedge %+v", a)
	}
	rt.Answer(30*ms, second, policy.OK, Reply{})
	if len(n.cancels) != 1 || n.cancels[0] != first {
		t.Fatalf("cancelled %v, want the first attempt", n.cancels)
	}
	rt.Answer(40*ms, first, policy.OK, Reply{})
	if c := rt.Rec.Total; c.Succeeded != 1 || c.Wasted != 1 || c.Hedges != 1 {
		t.Fatalf("counts %+v", c)
	}
}

// An attempt abandoned by the client's patience counts as a timeout once;
// the deadline ends the call; the cut-off ends what is left.
func TestTimersAndCutOff(t *testing.T) {
	n := &net{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Cfg: policy.ClientConfig{Timeout: 50 * time.Millisecond,
		AttemptTimeout: 20 * time.Millisecond}}}, Stream: stream(t, 0), StopAt: clock.Never}, n)
	rt.Begin(0, req(1, 0), -1)
	p := n.last(t, Patience)
	rt.Fire(p.at, p.t)
	rt.Fire(p.at, p.t) // a stale firing is moot
	if c := rt.Rec.Total; c.Timeouts != 1 || rt.Pending() != 0 || c.Failed != 1 {
		t.Fatalf("after the attempt timeout: pending %d, counts %+v", rt.Pending(), c)
	}
	rt.Begin(100*ms, req(2, 0), -1)
	rt.Begin(100*ms, req(3, 1), -1)
	rt.CutOff(120 * ms)
	if c := rt.Rec.Total; rt.Pending() != 0 || c.Failed != 3 || c.Offered != 3 {
		t.Fatalf("after the cut-off: pending %d, counts %+v", rt.Pending(), c)
	}
}

// Closed loop: each user starts with a think time, and after each answer
// thinks again; nothing starts at or after StopAt.
func TestClosedLoopUsers(t *testing.T) {
	n := &net{}
	rt := New[tag](Config{Stream: stream(t, 10*time.Millisecond), Users: 2, StopAt: 100 * ms}, n)
	rt.Start()
	if len(n.timers) != 2 || n.timers[0].t != (Timer{Kind: Think, Ref: 0}) || n.timers[1].t.Ref != 1 {
		t.Fatalf("first thinks %+v", n.timers)
	}
	rt.Fire(5*ms, n.timers[0].t)
	if rt.Pending() != 1 || rt.Call(rt.Attempt(n.sent[0]).Call).User != 0 {
		t.Fatal("user 0 did not start a request")
	}
	rt.Answer(20*ms, n.sent[0], policy.OK, Reply{})
	if tm := n.last(t, Think); tm.t.Ref != 0 || tm.at <= 20*ms {
		t.Fatalf("user 0 thinks until %v", tm.at)
	}
	rt.Fire(100*ms, Timer{Kind: Think, Ref: 1})
	if rt.Pending() != 0 {
		t.Fatal("a user started a request after the end of the arrivals")
	}
}

// Clients that balance themselves pick here: a hedge avoids its sibling's
// server, and the answer's piggybacked load reaches the client's balancer.
func TestClientSidePick(t *testing.T) {
	servers := []balance.Server{{Name: "a"}, {Name: "b"}}
	b, err := policy.NewBalancer(policy.BalancerConfig{Algorithm: balance.Config{Name: "round-robin"}, Load: load.Local}, servers)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := hedge.New(hedge.Config{Delay: 5 * time.Millisecond})
	n := &net{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Hedger: h}}, Stream: stream(t, 0), StopAt: clock.Never, Balancers: []*policy.Balancer{b}}, n)
	for range 3 { // whatever round robin's turn, the hedge goes elsewhere
		n.sent, n.timers = nil, nil
		rt.Begin(0, req(1, 0), -1)
		tm := n.last(t, Hedge)
		rt.Fire(tm.at, tm.t)
		first, hedged := rt.Attempt(n.sent[0]), rt.Attempt(n.sent[1])
		if !first.Ticket.Valid || !hedged.Ticket.Valid || first.Ticket.Server == hedged.Ticket.Server {
			t.Fatalf("first on %d, hedge on %d", first.Ticket.Server, hedged.Ticket.Server)
		}
		rt.Answer(10*ms, n.sent[1], policy.OK, Reply{Load: load.Report{At: 9 * ms, Valid: true, Queued: 4, InService: 1}})
		if q := b.Loads().Stats[hedged.Ticket.Server].Queued; q != 4 {
			t.Fatalf("the piggybacked queue of 4 reached the balancer as %d", q)
		}
		rt.Answer(12*ms, n.sent[0], policy.Cancelled, Reply{})
	}
}

// logged records what the runtime tells its request log.
type logged struct {
	started, ended []report.RequestRecord
	answers        []report.AttemptRecord
	end            clock.Instant
}

func (l *logged) RequestStarted(r report.RequestRecord)  { l.started = append(l.started, r) }
func (l *logged) AttemptAnswered(a report.AttemptRecord) { l.answers = append(l.answers, a) }
func (l *logged) RequestEnded(r report.RequestRecord)    { l.ended = append(l.ended, r) }
func (l *logged) RunEnded(end clock.Instant)             { l.end = end }

// lateNet is a transport whose attempts really leave 2 ms after the
// instant they are sent at (a lagging live generator).
type lateNet struct{ net }

func (n *lateNet) Send(now clock.Instant, h uint64, a *Attempt[tag]) {
	n.net.Send(now, h, a)
	a.Left = now + 2*ms
}

// The request log hears each request's start, the answers it used (a
// client-side timeout included, with no server), its end with the server
// whose answer ended it, and when each attempt really left.
func TestRequestLog(t *testing.T) {
	n, log := &lateNet{}, &logged{}
	rt := New[tag](Config{Live: Live{Policy: policy.Client{Cfg: policy.ClientConfig{Retries: 1, AttemptTimeout: 20 * time.Millisecond,
		Backoff: retry.Backoff{Base: time.Millisecond}}}}, Stream: stream(t, 0), StopAt: clock.Never, Log: log}, n)
	rt.Begin(10*ms, req(7, 2), -1)
	rt.Fire(30*ms, n.last(t, Patience).t) // the first attempt's client-side timeout
	rt.Fire(31*ms, n.last(t, Retry).t)
	rt.Answer(40*ms, n.sent[1], policy.OK, Reply{Server: "s3", Queue: time.Millisecond, Service: 5 * time.Millisecond, Timed: true})
	rt.Begin(50*ms, req(8, 1), -1)
	rt.CutOff(60 * ms)
	rt.Ended(70 * ms)
	if len(log.started) != 2 || log.started[0].Seq != 7 || log.started[0].Intended != 10*ms || log.started[1].Seq != 8 {
		t.Fatalf("started: %+v", log.started)
	}
	if len(log.answers) != 2 {
		t.Fatalf("answers: %+v", log.answers)
	}
	timeout, ok := log.answers[0], log.answers[1]
	if timeout.Result != policy.Timeout || timeout.Server != "" || timeout.Queue >= 0 || timeout.Sent != 12*ms || timeout.At != 30*ms {
		t.Errorf("the timed out attempt: %+v", timeout)
	}
	if ok.Result != policy.OK || ok.Kind != server.Retry || ok.Server != "s3" || ok.Queue != time.Millisecond ||
		ok.Service != 5*time.Millisecond || ok.Call != log.started[0].Call {
		t.Errorf("the answer: %+v", ok)
	}
	if len(log.ended) != 2 {
		t.Fatalf("ended: %+v", log.ended)
	}
	first, cut := log.ended[0], log.ended[1]
	if first.Outcome != policy.Succeeded || first.Server != "s3" || first.Sent != 12*ms || first.End != 40*ms ||
		first.Attempts != 2 || first.Latency() != 30*time.Millisecond || first.Key != 3 || first.Client != 2 {
		t.Errorf("the first request ended as %+v", first)
	}
	if cut.Outcome != policy.TimedOut || cut.Server != "" || cut.End != 60*ms {
		t.Errorf("the cut-off request ended as %+v", cut)
	}
	if log.end != 70*ms {
		t.Errorf("run ended at %v", log.end)
	}
}

// Clients that balance themselves with ring hash send every attempt of a
// key to its owner, the retry too, so a retry lands on the server that just
// failed it (ingress-nginx issue 6632); with RetryOther it goes elsewhere,
// and the next request of the key goes back to the owner.
func TestRetryOtherAvoidsThePreviousServer(t *testing.T) {
	servers := []balance.Server{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	for _, other := range []bool{false, true} {
		b, err := policy.NewBalancer(policy.BalancerConfig{Algorithm: balance.Config{Name: "ring-hash", Seed: 1}, Load: load.Local}, servers)
		if err != nil {
			t.Fatal(err)
		}
		n := &net{}
		rt := New[tag](Config{Live: Live{Policy: policy.Client{Cfg: policy.ClientConfig{Retries: 1, Backoff: retry.Backoff{Base: 10 * time.Millisecond}}}, RetryOther: other}, Stream: stream(t, 0), StopAt: clock.Never, Balancers: []*policy.Balancer{b}}, n)
		rt.Begin(0, req(9, 0), -1)
		owner := rt.Attempt(n.sent[0]).Ticket.Server
		rt.Answer(5*ms, n.sent[0], policy.Error, Reply{})
		rt.Release(n.sent[0])
		tm := n.last(t, Retry)
		rt.Fire(tm.at, tm.t)
		if got := rt.Attempt(n.sent[1]).Ticket.Server; (got == owner) == other {
			t.Errorf("retry_other %v: the first attempt went to %d, the retry to %d", other, owner, got)
		}
		rt.Answer(30*ms, n.sent[1], policy.OK, Reply{})
		rt.Begin(40*ms, req(9, 0), -1) // the same key again: a first attempt, to the owner
		if got := rt.Attempt(n.sent[2]).Ticket.Server; got != owner {
			t.Errorf("retry_other %v: the key's next request went to %d, its owner is %d", other, got, owner)
		}
	}
}
