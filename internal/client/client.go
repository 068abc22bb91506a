// Package client is the client runtime that both clocks run: everything a
// client does with the requests of the seeded stream. It owns the calls
// (policy.Call: deadline, retries with backoff and budget, one hedge) and
// their attempts, prepares each attempt (pick number, the key that affinity
// algorithms hash, the work it carries, the tightest deadline), picks the
// server itself when the clients balance themselves, keeps the client's
// timers, accounts for every request and attempt exactly once
// (report.Recorder), starts closed-loop users, and cuts off what is still
// pending at the drain limit.
//
// It is written once and driven twice: internal/sim carries its sends,
// cancellations and timers as events in virtual time, internal/shell/loadgen
// as HTTP requests and wall-clock timers. A driver implements Transport (the
// three things only it can do) and feeds back what happens: Answer when an
// attempt's answer reaches the client, Fire when a timer comes due. Like the
// cores it reads no clock and starts no goroutine: every call is handed the
// instant. Not safe for concurrent use; the driver serializes calls.
//
// Why callbacks rather than a Ready value the driver drains (as etcd's raft
// does): the simulator turns each decision into an event at once, in the
// order the decisions are made, which fixes the order of same-instant events
// and so the report; a callback keeps that order with no buffer to fill and
// drain on the simulator's hot path. The contract that makes callbacks safe
// is policy.Driver's: a Transport never calls back into the runtime from
// Send, Cancel or Arm; answers and timers always come later.
package client

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/slab"
	"github.com/lblab/lblab/internal/workload"
)

// Config is one population of clients: its policy, its requests and how its
// attempts are addressed. internal/assemble builds it from a lab file.
type Config struct {
	// Live is what a running population can change (Reconfigure).
	Live

	Stream *workload.Stream
	Users  int           // closed loop: users (with UsersProfile, the most there will be); 0 = open loop
	StopAt clock.Instant // no request starts at or after it
	// UsersProfile, in closed loop, makes the number of users follow
	// UsersProfile.Value(t), read every UsersEvery: users beyond the count
	// stop after their request (or think) ends, new ones start with a think.
	UsersProfile *workload.Profile

	// Tier is the number of balancers in front of the servers: client c
	// sends to balancer c mod Tier. Unused when Balancers is set.
	Tier int
	// Balancers, when set, are the clients' own (one per client id): the
	// clients balance themselves and each attempt is picked here.
	Balancers []*policy.Balancer

	// Conns, when set, models the clients' connections (to their balancer,
	// or to the servers they pick): which attempts pay a handshake and
	// which wait for a connection (conns.go); a handshake's round trips
	// are counted in Live.Net.
	Conns *conn.Config

	Series   bool             // keep 250 ms bins
	Requests observe.Requests // nil = none
	Attempts observe.Attempts // nil = none
	// Log is told about every request and the answers it used (the
	// exports: trace, CSV, HdrHistogram log); nil = none.
	Log report.RequestLog
}

// Live is the part of a Config a running population takes from a set
// event (Reconfigure): the client policy, how attempts are addressed and
// the hops. The rest (the stream, the users, the balancers) stays.
type Live struct {
	Policy policy.Client

	HashClient   bool // affinity algorithms hash the client id, not the key
	WorkAtServer bool // attempts carry no work: each server draws its own

	// Sticky, when the clients balance themselves, is how many requests in
	// a row an owner (Attempt.Owner) sends to the server it picked; 0 = a
	// pick per attempt (sticky.go).
	Sticky int
	// StickyAge, with Sticky, also ends a run once it is this old, within
	// 10% (a maximum connection age); 0 = runs end by count only.
	StickyAge time.Duration
	// RetryOther, when the clients balance themselves, makes a retry avoid
	// the server of the request's previous attempt if another is eligible
	// (Envoy's previous_hosts retry predicate); false: a retry picks as
	// any attempt does and may land on the server it just failed on.
	RetryOther bool
	// Net is the hop model: the attempts' delays and the round trips of a
	// handshake (Conns).
	Net policy.Network
}

// Call is one request and its lifecycle.
type Call struct {
	policy.Call
	Req  workload.Request
	User int32         // closed-loop user, -1 for open loop
	Sent clock.Instant // when its first attempt really left (Attempt.Left)
	// Last is 1 + the server the clients' own balancer picked for the
	// call's latest attempt (0: none yet), which a retry avoids with
	// Config.RetryOther.
	Last int32
	// Crossed says an attempt of the call crossed a zone (zones.go).
	Crossed bool
}

// Attempt is one try of a request. Net is what the driver's transport keeps
// about it (where it is on the network, what the servers said).
type Attempt[N any] struct {
	Call     uint64        // the call's handle
	Pick     uint64        // pick number (policy.PickNumber)
	Kind     server.Kind   // first, retry or hedge (probe is the balancer's business)
	Sibling  uint64        // a hedge's sibling attempt, 0 for none
	Client   int32         // the request's client id
	Owner    int32         // who holds its connection and its sticky pick: the closed-loop user, else the client id
	Bal      int32         // its balancer: a tier member, or the client's own
	Key      uint64        // the request's key (caches)
	HashKey  uint64        // what key-affinity algorithms hash: the key or the client id
	Work     time.Duration // the work it carries at speed 1; < 0: none (the server draws)
	Fault    server.Fault  // the fault its request asks the server for (zero: none)
	Deadline clock.Instant // the tightest deadline it carries (clock.Never: none)
	Ticket   policy.Ticket // the client's own pick (client-side balancing only)
	SentAt   clock.Instant
	// Left is when it really left the client: SentAt, unless the
	// transport's Send says otherwise (live: the wall instant, later than
	// SentAt when the generator lags). Only the request log reads it.
	Left     clock.Instant
	Answered bool // its answer reached the client (or it was abandoned there)
	Crossed  bool // one of its hops so far crossed a zone (zones.go)
	Net      N

	// With connections modelled (conns.go): the connection it rides (0 =
	// none), whether it opened it, and the handshake that added before its
	// first hop.
	Conn      conn.ID
	ConnNew   bool
	Handshake time.Duration
	// Waited says it waited in line for a connection: it is sent later
	// than its pick was made (a breaker may have opened since).
	Waited   bool
	waiting  bool          // in line for a connection (at max_conns) ...
	waitFrom clock.Instant // ... since then
}

// Transport is what only a driver can do with an attempt: put it on the
// network, withdraw it, and wake the runtime later. None of them may call
// back into the Runtime.
type Transport[N any] interface {
	// Send carries attempt h to its balancer (a.Bal) or, when the clients
	// balance themselves, to the server of a.Ticket; an invalid ticket means
	// no server was eligible, and the driver answers Rejected after the hop.
	Send(now clock.Instant, h uint64, a *Attempt[N])
	// Cancel withdraws attempt h if it is still queued at its server.
	Cancel(now clock.Instant, h uint64, a *Attempt[N])
	// Arm asks for Fire(at, t) at instant at.
	Arm(at clock.Instant, t Timer)
}

// TimerKind is what a client timer does when it fires.
type TimerKind uint8

// The timers: a closed-loop user's think time, then the call's own.
const (
	Think    TimerKind = iota // Ref is the user
	Deadline                  // the whole request's deadline; Ref is the call
	Hedge                     // send the hedge now; Ref is the call
	Retry                     // the backoff before a retry is over; Ref is the call
	Patience                  // one attempt's client-side timeout; Ref is the attempt
	Users                     // read the users profile (Config.UsersProfile)
)

// UsersEvery is how often a closed-loop users profile is read.
const UsersEvery = 100 * time.Millisecond

// Timer is one timer a Transport arms and hands back to Fire.
type Timer struct {
	Kind TimerKind
	Ref  uint64
}

func timerOf(t policy.Timer) TimerKind {
	switch t {
	case policy.TimerDeadline:
		return Deadline
	case policy.TimerHedge:
		return Hedge
	case policy.TimerRetry:
		return Retry
	}
	return Patience
}

func (k TimerKind) policy() policy.Timer {
	return [...]policy.Timer{Deadline: policy.TimerDeadline, Hedge: policy.TimerHedge,
		Retry: policy.TimerRetry, Patience: policy.TimerAttempt}[k]
}

// Runtime is the clients of one run.
type Runtime[N any] struct {
	cfg     Config
	policy  policy.Client // calls point here: Reconfigure rewrites it in place
	tr      Transport[N]
	reqs    observe.Requests // nil when nobody listens: no call per request then
	atts    observe.Attempts // nil when nobody listens
	Rec     *report.Recorder
	calls   slab.Slab[Call]
	att     slab.Slab[Attempt[N]]
	pending int
	userSeq uint64
	log     report.RequestLog
	// answeredBy is the server of the answer being handed to a call, for
	// the request log's record if that answer ends the call.
	answeredBy string
	active     []bool      // with a users profile: user u is thinking or has a request out
	conns      *conn.Table // the clients' connections; nil when not modelled
	sticks     []stick     // by owner, when sticky
}

// New returns the runtime of cfg over tr.
func New[N any](cfg Config, tr Transport[N]) *Runtime[N] {
	rt := &Runtime[N]{cfg: cfg, policy: cfg.Policy, tr: tr, reqs: cfg.Requests, atts: cfg.Attempts,
		Rec: report.NewRecorder(cfg.Series), log: cfg.Log}
	if rt.cfg.Tier < 1 {
		rt.cfg.Tier = 1
	}
	if cfg.Conns != nil {
		rt.conns, _ = conn.NewTable(*cfg.Conns) // validated by the lab file
		rt.Rec.ModelConnections()
	}
	if cfg.Net.Zones != nil {
		rt.Rec.CountZones()
	}
	return rt
}

// Slots is how many request and attempt slots the runtime holds (its
// slabs never shrink): what its requests in flight have weighed at most.
func (rt *Runtime[N]) Slots() (calls, attempts int) { return rt.calls.Slots(), rt.att.Slots() }

// Start arms every closed-loop user's first think time (with a users
// profile, those of the users it starts with, and its first reading).
func (rt *Runtime[N]) Start() {
	n := rt.cfg.Users
	if rt.cfg.UsersProfile != nil {
		rt.active = make([]bool, rt.cfg.Users)
		n = rt.usersAt(0)
		rt.armUsers(0)
	}
	for u := range n {
		rt.startThinking(0, u, 1<<40)
	}
}

// startThinking arms user u's think time from now; iteration numbers the
// draw (Stream.Think).
func (rt *Runtime[N]) startThinking(now clock.Instant, u int, iteration uint64) {
	if rt.active != nil {
		rt.active[u] = true
	}
	rt.tr.Arm(now.Add(rt.cfg.Stream.Think(u, iteration)), Timer{Kind: Think, Ref: uint64(u)})
}

// UsersAt is the number of closed-loop users at now: the users profile's
// count, else Config.Users.
func (rt *Runtime[N]) UsersAt(now clock.Instant) int {
	if rt.active == nil {
		return rt.cfg.Users
	}
	return rt.usersAt(now)
}

// usersAt is the number of users the profile asks for at now.
func (rt *Runtime[N]) usersAt(now clock.Instant) int {
	v := math.Round(rt.cfg.UsersProfile.Value(now.Duration()))
	return int(min(max(v, 0), float64(len(rt.active))))
}

// armUsers arms the next reading of the users profile after now.
func (rt *Runtime[N]) armUsers(now clock.Instant) {
	if next := now.Add(UsersEvery); next < rt.cfg.StopAt {
		rt.tr.Arm(next, Timer{Kind: Users})
	}
}

// onUsers starts the users the profile adds at now, each with a think (a
// draw of its own for every reading); users beyond the count stop by
// themselves (stays).
func (rt *Runtime[N]) onUsers(now clock.Instant) {
	for u := range rt.usersAt(now) {
		if !rt.active[u] {
			rt.startThinking(now, u, 1<<41+uint64(now/clock.Instant(UsersEvery)))
		}
	}
	rt.armUsers(now)
}

// stays reports whether closed-loop user goes on at now: always, unless a
// users profile now asks for fewer users than its number (it then stops).
func (rt *Runtime[N]) stays(now clock.Instant, user int32) bool {
	if rt.active == nil || int(user) < rt.usersAt(now) {
		return true
	}
	rt.active[user] = false
	return false
}

// Begin starts req's call at now, its intended time (latency counts from
// there), for closed-loop user user (-1 in open loop).
func (rt *Runtime[N]) Begin(now clock.Instant, req workload.Request, user int32) {
	h, c := rt.calls.New()
	c.Req, c.User, c.Tag, c.Seq, c.Sent = req, user, h, req.Seq, now
	rt.pending++
	rt.Rec.Offered(now)
	if rt.log != nil {
		rt.log.RequestStarted(rt.record(c, now))
	}
	rt.policy.Begin(now, &c.Call, rt)
}

// record is the request log's record of call c.
func (rt *Runtime[N]) record(c *Call, intended clock.Instant) report.RequestRecord {
	return report.RequestRecord{Call: c.Tag, Seq: c.Req.Seq, Client: c.Req.Client, Key: c.Req.Key, Work: c.Req.Work,
		Intended: intended, Sent: c.Sent, End: c.End, Attempts: c.Attempts, Outcome: c.Outcome}
}

// startUser begins user's next request at now, unless the arrivals are over.
func (rt *Runtime[N]) startUser(now clock.Instant, user int32) {
	if now >= rt.cfg.StopAt || !rt.stays(now, user) {
		return
	}
	req := rt.cfg.Stream.Draw(rt.userSeq, now)
	rt.userSeq++
	rt.Begin(now, req, user)
}

// Fire runs timer t, due at now.
func (rt *Runtime[N]) Fire(now clock.Instant, t Timer) {
	switch t.Kind {
	case Think:
		rt.startUser(now, int32(t.Ref))
		return
	case Users:
		rt.onUsers(now)
		return
	}
	h, callHandle := -1, t.Ref
	if t.Kind == Patience {
		a := rt.att.Get(t.Ref)
		if a == nil {
			return // answered and done with: the timer is moot
		}
		h, callHandle = int(t.Ref), a.Call
	}
	c := rt.calls.Get(callHandle)
	if c == nil {
		return
	}
	switch {
	case t.Kind == Patience && c.Live(h):
		rt.Rec.Result(policy.Timeout)
		if rt.atts != nil {
			rt.atts.AttemptAnswered(int(policy.Timeout))
		}
		if rt.log != nil {
			a := rt.att.Get(t.Ref)
			rt.log.AttemptAnswered(report.AttemptRecord{Call: a.Call, Kind: a.Kind, Sent: a.Left, At: now,
				Result: policy.Timeout, Queue: -1, Service: -1})
		}
		rt.unstick(rt.att.Get(t.Ref), policy.Timeout)
	case t.Kind == Deadline:
		rt.Rec.Deadline()
	}
	c.OnTimer(now, t.Kind.policy(), h, rt)
}

// Reply is what an attempt's answer told the client besides its result.
type Reply struct {
	Load    load.Report   // the server's load report the answer carried (Valid false: none)
	Server  string        // who answered ("" = no server was picked, or the answer did not say)
	Queue   time.Duration // time queued at the server, as answered (when Timed)
	Service time.Duration // time in service, as answered (when Timed)
	Timed   bool          // the answer gave Queue and Service
}

// Answer hands attempt h's answer, arrived at the client at now, to its
// call: a client-side balancer learns the server's load and the result, a
// live attempt's result goes to its call (and to the request log), and a
// success nobody waits for any more counts as wasted work. The driver frees
// the attempt with Release when it is done with it.
func (rt *Runtime[N]) Answer(now clock.Instant, h uint64, res policy.Result, rep Reply) {
	a := rt.att.Get(h)
	if a == nil || a.Answered {
		return
	}
	rt.freeConn(now, a, false)
	rt.unstick(a, res)
	if rt.cfg.Balancers != nil && a.Ticket.Valid {
		b := rt.cfg.Balancers[a.Bal]
		if rep.Load.Valid {
			assert.That(rep.Load.At <= now, "client: an answer carried a load report from after it arrived")
			b.Report(a.Ticket.Server, rep.Load)
		}
		b.Done(now, a.Ticket, res, now.Sub(a.SentAt))
	}
	a.Answered = true
	c := rt.calls.Get(a.Call)
	rt.crossBack(c, a, rep.Server)
	if c == nil || !c.Live(int(h)) { // abandoned, or lost the race: not counted again
		if res == policy.OK {
			rt.Rec.Wasted()
			if rt.atts != nil {
				rt.atts.Wasted()
			}
		}
		return
	}
	rt.Rec.Result(res)
	if rt.atts != nil {
		rt.atts.AttemptAnswered(int(res))
	}
	if rt.log != nil {
		ar := report.AttemptRecord{Call: a.Call, Kind: a.Kind, Sent: a.Left, At: now, Result: res, Server: rep.Server,
			Queue: -1, Service: -1}
		if rep.Timed {
			ar.Queue, ar.Service = rep.Queue, rep.Service
		}
		rt.log.AttemptAnswered(ar)
		rt.answeredBy = rep.Server
	}
	c.OnReply(now, int(h), res, rt)
	rt.answeredBy = ""
}

// SetLog sets the request log, before the first request starts.
func (rt *Runtime[N]) SetLog(log report.RequestLog) { rt.log = log }

// Ended tells the request log that the run is over at end.
func (rt *Runtime[N]) Ended(end clock.Instant) {
	if rt.log != nil {
		rt.log.RunEnded(end)
	}
}

// Release frees attempt h; the driver calls it once neither it nor the
// client needs the attempt any more.
func (rt *Runtime[N]) Release(h uint64) { rt.att.Free(h) }

// CutOff ends every pending call at now as timed out (the drain limit).
func (rt *Runtime[N]) CutOff(now clock.Instant) {
	rt.calls.Each(func(_ uint64, c *Call) {
		rt.Rec.Deadline()
		c.OnTimer(now, policy.TimerDeadline, -1, rt)
	})
}

// StopAt moves the end of the arrivals (an interrupted live run stops
// them early): closed-loop users start nothing at or after it.
func (rt *Runtime[N]) StopAt(at clock.Instant) { rt.cfg.StopAt = at }

// Pending is the number of calls started and not yet ended.
func (rt *Runtime[N]) Pending() int { return rt.pending }

// Attempt returns attempt h, or nil once it is released.
func (rt *Runtime[N]) Attempt(h uint64) *Attempt[N] { return rt.att.Get(h) }

// EachAttempt calls fn for every attempt not yet released.
func (rt *Runtime[N]) EachAttempt(fn func(h uint64, a *Attempt[N])) { rt.att.Each(fn) }

// Call returns call h, or nil once it ended.
func (rt *Runtime[N]) Call(h uint64) *Call { return rt.calls.Get(h) }

// Balancers are the clients' own balancers (nil when a tier balances).
func (rt *Runtime[N]) Balancers() []*policy.Balancer { return rt.cfg.Balancers }

// ClientSide reports whether the clients balance themselves.
func (rt *Runtime[N]) ClientSide() bool { return rt.cfg.Balancers != nil }

// Policy is the client policy in force.
func (rt *Runtime[N]) Policy() *policy.Client { return &rt.policy }

// Reconfigure applies what a running population can change, next.Live:
// the client policy (calls in flight see the new one at once), how
// attempts are addressed and the hops (network.hop and jitter, for the
// attempts sent from then on). The stream, the users and the balancers
// stay.
func (rt *Runtime[N]) Reconfigure(next Config) {
	rt.policy, rt.cfg.Live = next.Policy, next.Live
}

// The runtime is the policy.Driver of its calls: it prepares their attempts
// and hands them to the transport.

// Send prepares attempt number c.Attempts of c, of kind, and sends it.
func (rt *Runtime[N]) Send(now clock.Instant, pc *policy.Call, kind server.Kind, sibling int) int {
	c := rt.calls.Get(pc.Tag)
	h, a := rt.att.New()
	req := &c.Req
	a.Call, a.Kind, a.Pick, a.Client = pc.Tag, kind, policy.PickNumber(req.Seq, pc.Attempts), int32(req.Client)
	a.Owner = a.Client
	if c.User >= 0 {
		a.Owner = c.User
	}
	a.Key, a.HashKey, a.Work, a.SentAt = req.Key, req.Key, req.Work, now
	a.Fault = server.Fault{}
	if !req.Fault.IsZero() {
		a.Fault = server.Fault{Status: req.Fault.Status, StatusPercent: 100, Delay: req.Fault.Delay, DelayPercent: 100}
	}
	if rt.cfg.HashClient {
		a.HashKey = uint64(req.Client)
	}
	if rt.cfg.WorkAtServer {
		a.Work = -1
	}
	// The server may drop work past the tightest deadline the client has.
	a.Deadline = pc.Deadline
	if at := rt.policy.Cfg.AttemptTimeout; at > 0 {
		a.Deadline = min(a.Deadline, now.Add(at))
	}
	if sibling >= 0 {
		a.Sibling = uint64(sibling)
	}
	a.Left = now
	rt.Rec.Attempt(kind)
	if rt.atts != nil {
		rt.atts.AttemptSent(int(kind))
	}
	if rt.cfg.Balancers != nil {
		a.Bal = a.Client
		rt.pick(now, a)
	} else {
		a.Bal = rt.route(a.Client)
	}
	rt.crossOut(c, a)
	rt.dispatch(now, uint64(h), a)
	if pc.Attempts == 1 {
		c.Sent = a.Left
	}
	return int(h)
}

// pick chooses the server when the clients balance themselves, never the
// server of a hedge's sibling if another is eligible, nor, with RetryOther,
// the server a retry's request was last sent to.
func (rt *Runtime[N]) pick(now clock.Instant, a *Attempt[N]) {
	exclude := -1
	if s := rt.att.Get(a.Sibling); a.Sibling != 0 && s != nil && s.Ticket.Valid {
		exclude = s.Ticket.Server
	}
	c := rt.calls.Get(a.Call)
	if a.Kind == server.Retry && rt.cfg.RetryOther && c.Last > 0 {
		exclude = int(c.Last) - 1
	}
	b, req := rt.cfg.Balancers[a.Bal], balance.Request{Seq: a.Pick, Key: a.HashKey}
	if rt.cfg.Sticky > 0 && a.Kind != server.Hedge {
		a.Ticket = rt.stickyPick(now, b, req, a.Owner, exclude)
	} else {
		a.Ticket = b.Pick(now, req, exclude)
	}
	if a.Ticket.Valid {
		c.Last = int32(a.Ticket.Server) + 1
	}
}

// Cancel withdraws attempt h (a hedge's loser) through the transport.
func (rt *Runtime[N]) Cancel(now clock.Instant, _ *policy.Call, h int) {
	a := rt.att.Get(uint64(h))
	switch {
	case a == nil:
	case a.waiting: // never sent: it leaves the line, and nobody needs it any more
		rt.conns.Withdraw(rt.pairOf(a), uint64(h))
		if rt.cfg.Balancers != nil && a.Ticket.Valid { // the client's own pick: no verdict, no load
			rt.cfg.Balancers[a.Bal].Done(now, a.Ticket, policy.Cancelled, 0)
		}
		rt.att.Free(uint64(h))
	default:
		rt.tr.Cancel(now, uint64(h), a)
	}
}

// Arm asks the transport for one of the call's timers.
func (rt *Runtime[N]) Arm(at clock.Instant, c *policy.Call, t policy.Timer, h int) {
	ref := c.Tag
	if t == policy.TimerAttempt { // the attempt knows its call
		ref = uint64(h)
	}
	rt.tr.Arm(at, Timer{Kind: timerOf(t), Ref: ref})
}

// Finish records the call's outcome and frees it; a closed-loop user then
// thinks before its next request.
func (rt *Runtime[N]) Finish(now clock.Instant, pc *policy.Call) {
	c := rt.calls.Get(pc.Tag)
	assert.That(c != nil && rt.pending > 0, "client: a request ended twice")
	rt.Rec.Finish(now, &c.Call)
	if c.Crossed {
		rt.Rec.CrossedRequest()
		if rt.reqs != nil {
			rt.reqs.RequestCrossed()
		}
	}
	if rt.reqs != nil {
		rt.reqs.RequestEnded(int(c.Outcome), now.Sub(c.Start))
	}
	if rt.log != nil {
		r := rt.record(c, c.Start)
		r.Server = rt.answeredBy
		rt.log.RequestEnded(r)
	}
	rt.pending--
	if c.User >= 0 && now < rt.cfg.StopAt && rt.stays(now, c.User) {
		rt.tr.Arm(now.Add(rt.cfg.Stream.Think(int(c.User), c.Req.Seq)), Timer{Kind: Think, Ref: uint64(c.User)})
	}
	rt.calls.Free(pc.Tag)
}
