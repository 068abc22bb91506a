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
	gen       uint32
	live      bool
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
	gen    uint32
	live   bool
	req    workload.Request
	user   int32 // closed-loop user, -1 for open loop
	client int32
}

// world is one simulated run.
type world struct {
	lab      *labfile.Lab
	name     string
	seed     uint64
	now      clock.Instant
	stopAt   clock.Instant // arrivals end here
	cutAt    clock.Instant // requests still pending here are cut off
	q        eventQueue
	events   uint64
	servers  []*srv
	bals     []*policy.Balancer // the balancer tier, or one per client id when clients balance themselves
	client   policy.Client
	clientLB bool
	stream   *workload.Stream
	next     workload.Request // the pending open-loop arrival
	arrGen   uint64           // bumps when the pending arrival is redrawn
	userSeq  uint64           // closed loop: next request number
	users    int
	hop      time.Duration
	jitter   time.Duration
	health   []healthState

	calls    []*callState
	freeC    []uint32
	att      []attempt
	freeA    []uint32
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

// handle packs a slab index with its generation so stale events are ignored.
func handle(idx, gen uint32) uint64 { return uint64(gen)<<32 | uint64(idx) }

func split(h uint64) (uint32, uint32) { return uint32(h), uint32(h >> 32) }

// attemptOf returns the attempt for h, or nil if it was freed since.
func (w *world) attemptOf(h uint64) *attempt {
	idx, gen := split(h)
	if int(idx) >= len(w.att) {
		return nil
	}
	a := &w.att[idx]
	if !a.live || a.gen != gen {
		return nil
	}
	return a
}

// callOf returns the call for h, or nil if it ended since.
func (w *world) callOf(h uint64) *callState {
	idx, gen := split(h)
	if int(idx) >= len(w.calls) {
		return nil
	}
	c := w.calls[idx]
	if !c.live || c.gen != gen {
		return nil
	}
	return c
}

func (w *world) newAttempt() (uint64, *attempt) {
	var idx uint32
	if n := len(w.freeA); n > 0 {
		idx = w.freeA[n-1]
		w.freeA = w.freeA[:n-1]
	} else {
		w.att = append(w.att, attempt{})
		idx = uint32(len(w.att) - 1)
	}
	a := &w.att[idx]
	*a = attempt{gen: a.gen + 1, live: true, server: -1, bal: -1}
	return handle(idx, a.gen), a
}

// maybeFree releases an attempt once both the client and the server are done with it.
func (w *world) maybeFree(h uint64, a *attempt) {
	if a.clientGot && a.srvDone {
		a.live = false
		idx, _ := split(h)
		w.freeA = append(w.freeA, idx)
	}
}

func (w *world) newCall() (uint64, *callState) {
	var idx uint32
	if n := len(w.freeC); n > 0 {
		idx = w.freeC[n-1]
		w.freeC = w.freeC[:n-1]
	} else {
		w.calls = append(w.calls, &callState{})
		idx = uint32(len(w.calls) - 1)
	}
	c := w.calls[idx]
	gen := c.gen + 1
	*c = callState{gen: gen, live: true, user: -1}
	c.Tag = handle(idx, gen)
	return c.Tag, c
}

func (w *world) freeCall(c *callState) {
	c.live = false
	idx, _ := split(c.Tag)
	w.freeC = append(w.freeC, idx)
}

func (w *world) push(at clock.Instant, k kind, h uint64, a int32) {
	w.q.push(event{at: at, kind: k, h: h, a: a})
}

// hopDelay is one network hop for message salt of attempt h.
func (w *world) hopDelay(h, salt uint64) time.Duration {
	if w.jitter <= 0 {
		return w.hop
	}
	return w.hop + time.Duration(float64(w.jitter)*rng.HashFloat(w.seed, h, salt))
}
