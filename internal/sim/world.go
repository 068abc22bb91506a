// Package sim is the discrete-event simulator: the same policy objects as the
// live lab, driven in virtual time by an event heap ordered by (time, seq).
// Same lab file and seed give the same run, bit for bit.
//
// The clients are internal/client's runtime, as in the live loadgen; the
// simulator is its transport (attempts travel as events), and it plays the
// balancers, the servers and the network itself.
package sim

import (
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/health"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/slab"
	"github.com/lblab/lblab/internal/workload"
)

// srv is one emulated server and what the simulator tracks about it.
type srv struct {
	core      *server.Server
	spec      labfile.NamedServer
	wakeAt    clock.Instant // the pending wake-up event, clock.Never if none
	sent      uint64        // attempts that reached it
	conns     uint64        // connections opened to it (when modelled)
	completed uint64        // attempts it served with 200
	removed   bool
	announced uint64 // its idle announcements so far (idle.go): the next one's number
	draining  int    // check mode: busy workers over a cut worker count, still finishing (checkServer)
}

// transit is what the simulated network, balancer and server know of an
// attempt, from the client's send until both ends are done with it.
type transit struct {
	server    int32         // global server index, -1 until picked
	ticket    policy.Ticket // the balancer's pick (the client's own is the attempt's Ticket)
	lbSent    clock.Instant // when it was forwarded to the server
	status    server.Status
	result    policy.Result
	repLoad   load.Report   // the server's load report when it replied (piggybacked on the answer; At: when)
	repQueue  time.Duration // the server's reply: time queued
	repSvc    time.Duration // ... and in service
	lbDone    bool          // the balancer has answered the client (forwarded or 504)
	srvDone   bool          // the server's part is over (replied, or never reached)
	timedOut  bool          // the balancer answered 504 before the server replied
	clientGot bool          // the answer reached the client

	// The balancer's connection to the server (conns.go), when modelled.
	balConn     conn.ID
	balWaiting  bool          // in line for one at max_conns ...
	balWaitFrom clock.Instant // ... since then

	traced bool // a session follows it (trace.go): only then do the hops tell the tracer
}

type attempt = client.Attempt[transit]

// world is one simulated run.
type world struct {
	lab      *labfile.Lab
	name     string
	now      clock.Instant
	stopAt   clock.Instant // arrivals end here
	cutAt    clock.Instant // requests still pending here are cut off
	q        eventQueue
	events   uint64
	servers  []*srv
	bals     []*policy.Balancer // the balancer tier, or one per client id when clients balance themselves
	rt       *client.Runtime[transit]
	clientLB bool
	// refreshing: a load report round (evRefresh) is pending; a set that
	// turns reports on starts one only when none is (script.go)
	refreshing bool
	checking   bool             // a round of health checks is pending (startHealth)
	stream     workload.Source  // the arrivals: the lab's stream or a replayed trace
	next       workload.Request // the pending open-loop arrival
	// closeReplay closes the replayed trace (a no-op without one).
	closeReplay func()
	arrivalAt   clock.Instant // when w.next is due; clock.Never when none
	users       int
	net         policy.Network
	health      *health.Checker // nil when active health checks are off
	undos       []undo          // time-boxed events' undos, by evUndo's index
	balConns    *conn.Table     // the balancers' connections to the servers; nil when not modelled or clients balance themselves
	connsOn     bool            // the lab models connections

	replyBuf []server.Reply

	// A probing algorithm's probes (probe.go): those on their way, the
	// pick's targets, and whether an algorithm of the lab probes (the run
	// then reports its probes).
	probes     slab.Slab[probeTransit]
	probeBuf   []int
	probesSent uint64
	probing    bool

	// An idle-queue algorithm's announcements (idle.go): whether the
	// servers announce, how many they sent, and the balancers an
	// announcement samples with their queues' lengths.
	announcing    bool
	announcements uint64
	joinBuf       []int
	lenBuf        []int

	col        *collector
	maxPending int                  // the memory guard's bound
	maxWork    float64              // the work guard's bound (0: none)
	maxMemory  float64              // the memory guard's bound in bytes (0: none)
	raise      string               // how the budget is raised (Options.Raise)
	stop       func() bool          // Options.Stop
	built      float64              // assemble.Built of the lab as the script has changed it ...
	builtStale bool                 // ... unless a script event has changed it since
	peak       float64              // the most memory the guard's looks saw the run hold
	keeps      func(*assemble.Held) // a session adds what it keeps (its frames)
	// slice, when over 0, is the work (assemble.Work) at which loopUntil
	// pauses at a guard's look (sliced then tells it did): a session's
	// AdvanceWithin plays in slices.
	slice    float64
	sliced   bool
	reached  func(now clock.Instant) // Options.Progress of this run (nil: none), told at the guard's looks
	stalled  int                     // events fired since virtual time last moved on
	overflow error                   // set when the guard stopped the run
	check    bool
	fault    []string        // invariant violations (check mode)
	open     []int           // check mode: per tier balancer, picks not yet answered (check_inflight.go)
	reported [][]load.Report // check mode: by balancer, each server's last load report it was handed (report)
	onBin    func()          // a session's look at the world as each series bin closes (nil outside sessions)
	trace    *tracer         // the requests a session follows (nil when none)
}

// attemptOf returns the attempt for h, or nil if it was released since.
func (w *world) attemptOf(h uint64) *attempt { return w.rt.Attempt(h) }

// maybeFree releases an attempt once both the client and the server are done with it.
func (w *world) maybeFree(h uint64, a *attempt) {
	if a.Net.clientGot && a.Net.srvDone {
		if a.Net.traced {
			w.trace.released(h)
		}
		w.rt.Release(h)
	}
}

func (w *world) push(at clock.Instant, k kind, h uint64, a int32) {
	w.q.push(event{at: at, kind: k, h: h, a: a})
}

// pushHop schedules an event one network hop after now: without jitter such
// events come due in the order they are pushed, so they skip the heap.
func (w *world) pushHop(at clock.Instant, k kind, h uint64) {
	if at.Sub(w.now) == w.net.Hop {
		w.q.pushInOrder(at, k, h)
		return
	}
	w.q.push(event{at: at, kind: k, h: h})
}

// hopDelay is attempt a's one-way delay on leg: with zones, the link's
// between the zones of the leg's two ends (legZones).
func (w *world) hopDelay(a *attempt, leg policy.Leg) time.Duration {
	if w.net.Zones != nil {
		from, to := w.legZones(a, leg)
		return w.net.Between(from, to).Delay(a.Pick, leg)
	}
	if w.net.Jitter <= 0 { // Delay's own answer, without copying the Network to ask it
		return w.net.Hop
	}
	return w.net.Delay(a.Pick, leg)
}

// legZones are the zones of the two ends of attempt a's leg: the client and
// its balancer, the balancer and the server it picked, or, when clients
// balance themselves, the client and the server. A leg to a server not yet
// (or never) picked is a 503 from where the attempt is, back to the client.
func (w *world) legZones(a *attempt, leg policy.Leg) (int32, int32) {
	z := w.net.Zones
	client := z.Client(a.Client)
	si := a.Net.server
	if si < 0 && w.clientLB && a.Ticket.Valid { // on its first hop, not yet at the server
		si = int32(a.Ticket.Server)
	}
	if w.clientLB {
		if si < 0 {
			return client, client
		}
		return client, z.Server(si)
	}
	bal := z.Balancer(a.Bal)
	if leg == policy.ClientOut || leg == policy.BalancerBack || si < 0 {
		return client, bal
	}
	return bal, z.Server(si)
}
