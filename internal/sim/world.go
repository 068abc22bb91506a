// Package sim is the discrete-event simulator: the same policy objects as the
// live lab, driven in virtual time by an event heap ordered by (time, seq).
// Same lab file and seed give the same run, bit for bit.
package sim

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/slab"
	"github.com/lblab/lblab/internal/workload"
)

// srv is one emulated server and what the simulator tracks about it.
type srv struct {
	core      *server.Server
	spec      labfile.NamedServer
	wakeAt    clock.Instant // the pending wake-up event, clock.Never if none
	sent      uint64        // attempts that reached it
	completed uint64        // attempts it served with 200
	removed   bool
}

// attempt is one try of a request, from the client's send to the answer.
type attempt struct {
	call      uint64 // call handle
	seq       uint64 // pick number: request seq x 16 + attempt number
	sibling   uint64 // a hedge's sibling attempt handle (0 = none)
	kind      server.Kind
	key       uint64        // the request's key (cache, hashing)
	hashKey   uint64        // what affinity algorithms hash: the key or the client id
	work      time.Duration // the request's work at speed 1
	server    int32         // global server index, -1 until picked
	bal       int32         // balancer index, -1 when the client balances itself
	ticket    policy.Ticket
	lbSent    clock.Instant // when it was forwarded to the server
	deadline  clock.Instant // the tightest deadline it carries to the server
	status    server.Status
	result    policy.Result
	repLoadQ  int32 // the server's queue when it replied (piggybacked load)
	repLoadS  int32 // ... and requests in service
	repAt     clock.Instant
	lbDone    bool // the balancer has answered the client (forwarded or 504)
	srvDone   bool // the server's part is over (replied, or never reached)
	timedOut  bool // the balancer answered 504 before the server replied
	clientGot bool // the answer reached the client
}

// callState is one request and its lifecycle.
type callState struct {
	policy.Call
	req    workload.Request
	user   int32 // closed-loop user, -1 for open loop
	client int32
}

// world is one simulated run.
type world struct {
	lab       *labfile.Lab
	name      string
	seed      uint64
	now       clock.Instant
	stopAt    clock.Instant // arrivals end here
	cutAt     clock.Instant // requests still pending here are cut off
	q         eventQueue
	events    uint64
	servers   []*srv
	bals      []*policy.Balancer // the balancer tier, or one per client id when clients balance themselves
	client    policy.Client
	clientLB  bool
	stream    *workload.Stream
	next      workload.Request // the pending open-loop arrival
	arrivalAt clock.Instant    // when w.next is due; clock.Never when none
	userSeq   uint64           // closed loop: next request number
	users     int
	hop       time.Duration
	jitter    time.Duration
	health    []healthState

	calls    slab.Slab[callState]
	att      slab.Slab[attempt]
	pending  int
	replyBuf []server.Reply

	col   *collector
	check bool
	fault []string // invariant violations (check mode)
}

type healthState struct {
	fails, passes int
	healthy       bool
}

// attemptOf returns the attempt for h, or nil if it was freed since.
func (w *world) attemptOf(h uint64) *attempt { return w.att.Get(h) }

// callOf returns the call for h, or nil if it ended since.
func (w *world) callOf(h uint64) *callState { return w.calls.Get(h) }

func (w *world) newAttempt() (uint64, *attempt) {
	h, a := w.att.New()
	a.server, a.bal = -1, -1
	return h, a
}

// maybeFree releases an attempt once both the client and the server are done with it.
func (w *world) maybeFree(h uint64, a *attempt) {
	if a.clientGot && a.srvDone {
		w.att.Free(h)
	}
}

func (w *world) newCall() (uint64, *callState) {
	h, c := w.calls.New()
	c.user, c.Tag = -1, h
	return h, c
}

func (w *world) freeCall(c *callState) { w.calls.Free(c.Tag) }

func (w *world) push(at clock.Instant, k kind, h uint64, a int32) {
	w.q.push(event{at: at, kind: k, h: h, a: a})
}

// pushHop schedules an event one network hop after now: without jitter such
// events come due in the order they are pushed, so they skip the heap.
func (w *world) pushHop(at clock.Instant, k kind, h uint64) {
	if at.Sub(w.now) == w.hop {
		w.q.pushInOrder(at, k, h)
		return
	}
	w.q.push(event{at: at, kind: k, h: h})
}

// hopDelay is one network hop for message salt of attempt h.
func (w *world) hopDelay(h, salt uint64) time.Duration {
	if w.jitter <= 0 {
		return w.hop
	}
	return w.hop + time.Duration(float64(w.jitter)*rng.HashFloat(w.seed, h, salt))
}
