package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/stats"
	"github.com/lblab/lblab/internal/workload"
)

// loop is the run's single owner of the stream, the targets and the heap.
// Its state is guarded by mu: the loop goroutine holds it except while it
// waits, and a worker that finds it free takes its own answer in under it
// (inline), running the same code the loop would.
type loop struct {
	mu     sync.Mutex
	cfg    Config
	lab    *labfile.Lab
	log    *zap.Logger
	obs    observe.Clients
	note   observe.Events
	stream *workload.Stream // the lab's: closed-loop draws, the rate
	// arrivals are the open-loop requests: the lab's stream, or a trace.
	arrivals    workload.Source
	closeReplay func() // closes the replayed trace (a no-op without one)
	users       int    // closed loop: users per target; 0 = open loop
	targets     []*target
	net         policy.Network // the lab's hops
	tr          *transport
	q           timerQueue
	timer       *pace.Timer // the single timer, at the heap's earliest entry
	results     chan result
	cmds        chan command
	disc        *discover.Watcher // --servers-dns (discover.go), nil without
	epoch       time.Time         // instant 0
	ticked      clock.Instant     // when the timer last fired (arm, pacingGrain)
	armedAt     clock.Instant     // the instant the timer is set for
	wake        chan struct{}     // a worker's nudge: the timer or the end moved (inline)
	over        bool              // run returned: workers post their answers again
	// While a worker takes its answer in (inline), toSelf is set: the first
	// attempt launched then is left in self for that worker to run.
	toSelf  bool
	self    job
	selfHas bool
	inlined uint64 // answers taken in by their workers (tests)

	inflight int              // attempt goroutines not yet answered
	peak     int              // the most attempts out at once
	held     []event          // arrivals and users' starts waiting for the in-flight cap
	capHits  uint64           // requests that waited for the cap
	unsent   uint64           // requests of the stream never started (held until the cut-off)
	next     workload.Request // the pending open-loop arrival
	arrGen   uint64           // bumps when the pending arrival is withdrawn
	stopAt   clock.Instant    // arrivals end here
	cutAt    clock.Instant    // requests still pending here are cut off
	cut      bool
	// interrupted: SIGINT stopped the run; shutdown does not wait for the
	// last cancellations
	interrupted bool
	late        uint64
	maxLate     time.Duration
	lateness    *stats.Histogram // how far behind its intended time each request started
	prog        progress
	// started counts the requests started; lastStart is when the last one
	// started and lastLate how far behind its intended time.
	started   uint64
	lastStart clock.Instant
	lastLate  time.Duration
	cpu0      time.Duration // the process's CPU time when the run started
	wait0     time.Duration // and its time waiting for a CPU (runqueueWait)
	rateSet   bool          // PUT /admin/rate changed the rate

	connWarned bool
	labChecked bool // the first answer was checked for lblab's headers

	// startedAt is the clock reading of the request fire is starting
	// (noteLate's), which its attempts take as the instant they left
	// (target.Send); startedOK says it is set. Both hold only for the one
	// fire that read it: a Send of a later event reads the clock itself.
	startedAt clock.Instant
	startedOK bool
	reads     uint64 // clock readings (tests: how many a request takes)
	warmed    int    // connections opened before the start (warm)
}

// clock returns the wall instant since the run's start. The loop reads it
// once per answer and once per request it starts, and passes the reading
// on to what follows from it: at 200,000 requests a second, eight readings
// a request were 4-5% of the loadgen's CPU (half of them fasthttp's).
func (l *loop) clock() clock.Instant {
	l.reads++
	return clock.Instant(time.Since(l.epoch))
}

// leftAt is the instant an attempt sent now leaves: the reading of the
// request being started, else a reading of its own.
func (l *loop) leftAt() clock.Instant {
	if l.startedOK {
		return l.startedAt
	}
	return l.clock()
}

// wall converts an instant of the run to wall time.
func (l *loop) wall(i clock.Instant) time.Time { return l.epoch.Add(time.Duration(i)) }

// launch hands an attempt to its goroutine.
func (l *loop) launch(j job) {
	l.inflight++
	l.peak = max(l.peak, l.inflight)
	if ce := l.log.Check(zap.DebugLevel, "send"); ce != nil {
		ce.Write(zap.Uint64("seq", j.seq), zap.Stringer("kind", j.kind), zap.Bool("reject", j.reject))
	}
	if l.toSelf {
		l.toSelf, l.self, l.selfHas = false, j, true
		return
	}
	l.tr.launch(j, l.results)
}

// noteResult logs an answer at debug level, and warns once when the
// connection limit makes attempts fail (the client, not the lab, limits).
func (l *loop) noteResult(r *result) {
	if ce := l.log.Check(zap.DebugLevel, "answer"); ce != nil {
		ce.Write(zap.Int("target", r.target), zap.Int("status", r.status), zap.String("server", r.server),
			zap.Stringer("result", r.res), zap.Error(r.err))
	}
	if errors.Is(r.err, fasthttp.ErrNoFreeConns) && !l.connWarned {
		l.connWarned = true
		l.log.Warn("connection limit reached: attempts fail as errors", zap.Int("connections", l.cfg.Connections))
	}
	if !l.labChecked && r.status != 0 && !l.cfg.HTTP.Plain {
		l.labChecked = true
		if !r.lblab {
			l.warnNotLab(r)
		}
	}
}

// warnNotLab says, at the first answer, that the target does not answer
// like lblab's lb or backend although the run treats it as one.
func (l *loop) warnNotLab(r *result) {
	text := fmt.Sprintf("the first answer (%d from %s) carries neither %s nor %s: the target is not lblab's lb or backend, "+
		"yet every attempt sends X-Lab-* headers and pays the lab's injected hop (network.hop %v); "+
		"give --plain to measure a service that is not lblab's", r.status, l.targets[r.target].url, wire.HServer, wire.HBalancer,
		l.lab.Network.Hop)
	l.log.Warn("target is not lblab's", zap.String("target", l.targets[r.target].name))
	if l.cfg.Warn != nil {
		fmt.Fprintf(l.cfg.Warn, "!!! WARNING: %s\n", text)
	}
	l.targets[r.target].logf(l.clock(), text)
}

// start schedules the first arrivals or users, the end, the cut-off, the
// series bins and the progress line.
func (l *loop) start() {
	l.warm()
	l.epoch = time.Now()
	l.cpu0, l.wait0 = cpuTime(), runqueueWait()
	l.timer = l.cfg.Waits.NewTimer(pace.Pacing)
	l.stopAt = clock.Instant(l.lab.Duration)
	l.cutAt = l.stopAt.Add(l.cfg.Drain)
	if l.users > 0 {
		for _, t := range l.targets {
			t.rt.Start()
		}
	} else {
		l.scheduleArrival()
	}
	l.q.push(event{at: l.stopAt, kind: evStop})
	l.q.push(event{at: l.cutAt, kind: evCut})
	if l.cfg.Series {
		l.q.push(event{at: clock.Instant(report.BinWidth), kind: evBin})
	}
	if l.cfg.Progress != nil {
		l.prog.w = l.cfg.Progress
		l.q.push(event{at: clock.Instant(progressEvery), kind: evProgress})
	}
	l.startSweeps()
}

// warmFor is how much of the open loop's arrivals warm opens connections
// for: at 40,000/s on one core, a millisecond's worth (40) still let the
// first stall start the cascade (requests 20 ms late), ten (the whole
// default bound, 256) did not (at most 4-5 ms, as in the rest of the run).
const warmFor = 10 * time.Millisecond

// warm opens, before the run's clock starts, the connections its first
// requests will want, as wrk opens its connections before it counts: a
// user's worth in a closed loop, warmFor of arrivals at the lab's rate in
// an open one, spread over the endpoints and within the bound. Without it
// the first requests each paid a dial, which made the next ones late and
// dial too: at 40,000/s on one core, 200-odd connections in the first 15 ms
// and requests started 20-35 ms late, every run (lateness p99 4-19 ms in a
// 3 s run, 0.15-2.2 ms with the connections open before). Only as a load
// tool (--plain) against connections the lab does not model: a lab's
// servers and balancers count what they accept, and the connection model
// dials its own.
func (l *loop) warm() {
	if !l.cfg.HTTP.Plain {
		return
	}
	n := l.users
	if n == 0 {
		n = int(math.Ceil(l.lab.Clients.Rate * warmFor.Seconds()))
	}
	deadline := time.Now().Add(warmDial)
	for _, t := range l.targets {
		if t.live != nil || len(t.eps) == 0 {
			continue
		}
		per := (n + len(t.eps) - 1) / len(t.eps)
		for _, ep := range t.eps {
			l.warmed += ep.pool.prime(per, deadline)
		}
	}
}

// warmDial bounds the time warm dials for.
const warmDial = time.Second

// run turns the loop until every request has ended after the last arrival
// (or the drain limit cut the rest off); it returns the end instant.
func (l *loop) run(ctx context.Context) clock.Instant {
	done := ctx.Done()
	l.mu.Lock()
	defer l.mu.Unlock()
	// now is the turn's one reading: the last answer's (onResult fired
	// what was due then), or the wake-up's.
	now := l.clock()
	for {
		l.fireDue(now)
		if l.finished(now) {
			l.over = true
			return max(now, l.stopAt)
		}
		l.arm(now)
		l.mu.Unlock()
		select {
		case r := <-l.results:
			l.mu.Lock()
			now = l.onResult(&r)
			// The answers already posted are taken in the same turn, one
			// by one as above, without a select and a timer setting each.
			for n := 1; n < maxBatch; n++ {
				select {
				case r = <-l.results:
					now = l.onResult(&r)
					continue
				default:
				}
				break
			}
		case <-l.timer.C:
			l.mu.Lock()
			now = l.clock()
			l.ticked = now
		case <-l.wake:
			l.mu.Lock()
			now = l.clock()
		case c := <-l.cmds:
			l.mu.Lock()
			now = l.clock()
			l.onCommand(now, c)
		case <-done:
			l.mu.Lock()
			done = nil
			now = l.clock()
			l.interrupt(now)
		}
	}
}

// inline takes attempt r's answer in on the worker that got it, when the
// loop's state is free and the loop still runs (taken false otherwise: the
// worker posts it). It does what the loop does with a posted answer, and
// fires what is due then: a closed-loop user with no think time starts its
// next request at once, and that attempt (next, has) goes back to this
// worker to run, instead of a hand-over to the loop and from it to a worker.
// The loop is nudged when its timer should now fire sooner, and after the
// end of the arrivals (the run may be over).
func (l *loop) inline(r *result) (next job, has, taken bool) {
	if !l.mu.TryLock() {
		return job{}, false, false
	}
	defer l.mu.Unlock()
	if l.over {
		return job{}, false, false
	}
	l.inlined++
	l.toSelf = true
	now := l.onResult(r) // which fired what was due by the answer
	next, has = l.self, l.selfHas
	l.toSelf, l.self, l.selfHas = false, job{}, false
	if now >= l.stopAt || l.cut || l.armAt(now) < l.armedAt {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	}
	return next, has, true
}

// maxBatch is the most answers the loop takes in one turn before it looks
// at its timer, commands and interrupt again.
const maxBatch = 64

// onResult takes one attempt's answer, and fires what it made due (a
// closed-loop user's next request); it returns the answer's instant, the
// clock reading it was taken in at.
func (l *loop) onResult(r *result) clock.Instant {
	l.inflight--
	now := l.clock()
	l.release()    // requests held by the cap were due first
	l.fireDue(now) // what was due before the answer came goes first
	if !l.cut {
		l.targets[r.target].onResult(now, r)
		l.fireDue(now)
	}
	return now
}

func (l *loop) finished(now clock.Instant) bool {
	if l.cut {
		return true
	}
	if now < l.stopAt || len(l.held) > 0 {
		return false
	}
	for _, t := range l.targets {
		if t.rt.Pending() > 0 {
			return false
		}
	}
	return true
}

// pacingGrain is the loop timer's granularity: it fires at most once per
// pacingGrain, for every entry due by then. At 40,000 arrivals a second
// each arrival re-armed the timer at a new instant, and each firing was a
// timerfd setting, a wake-up of the scheduler's goroutine and a hand-over
// to the loop: 7% of the loadgen's CPU at 25,000/s, which is what made it
// fall behind at 40,000/s on one core. An entry due sooner than pacingGrain
// after the last firing waits for the next one (or for an answer, which
// wakes the loop too and fires what is due): it starts at most pacingGrain
// late, and its lateness still counts from its own instant. Entries further
// apart (any rate below 1/pacingGrain) are timed as before.
const pacingGrain = 100 * time.Microsecond

// arm sets the single timer to the earliest heap entry, no sooner than
// pacingGrain after its last firing.
func (l *loop) arm(now clock.Instant) {
	l.armedAt = l.armAt(now)
	l.timer.ResetAt(l.wall(l.armedAt))
}

// armAt is the instant arm sets the timer for.
func (l *loop) armAt(now clock.Instant) clock.Instant {
	at := l.q.peek()
	if at == clock.Never {
		at = now.Add(time.Hour)
	}
	return max(at, l.ticked.Add(pacingGrain))
}

// fireDue fires every heap entry due at now, each at its own instant (the
// instant it was meant for, as in the simulator).
func (l *loop) fireDue(now clock.Instant) {
	for !l.cut && l.q.peek() <= now {
		l.fire(l.q.pop())
	}
}

func (l *loop) fire(e event) {
	if e.startsRequest() && l.counted(e) {
		return // Config.Count requests begun: this one never starts (a closed-loop user stops)
	}
	if e.startsRequest() && l.inflight >= l.inflightCap() {
		l.hold(e)
		return
	}
	switch e.kind {
	case evArrival:
		if e.b == l.arrGen {
			l.noteLate(l.next.At)
			for _, t := range l.targets {
				t.rt.Begin(l.next.At, l.next, -1)
			}
			l.scheduleArrival()
		}
	case evTimer:
		if e.startsRequest() && e.at < l.stopAt {
			l.noteLate(e.at) // a closed-loop user's next request
		}
		l.targets[e.t].rt.Fire(e.at, client.Timer{Kind: client.TimerKind(e.a), Ref: e.h})
	case evBin:
		for _, t := range l.targets {
			t.rt.Rec.CloseBin(e.at, nil)
		}
		if e.at < l.stopAt {
			l.q.push(event{at: e.at.Add(report.BinWidth), kind: evBin})
		}
	case evProgress:
		l.prog.draw(l, l.clock())
		l.q.push(event{at: e.at.Add(progressEvery), kind: evProgress})
	case evCut:
		l.cutOff(e.at)
	case evSweep:
		l.sweep(e)
	}
	if l.cfg.Count > 0 && e.startsRequest() {
		l.countReached()
	}
	l.startedOK = false // noteLate's reading held for this event only
}

// counted reports whether e would begin a request beyond Config.Count: its
// target (every target, for an open-loop arrival) has begun them all.
func (l *loop) counted(e event) bool {
	if l.cfg.Count == 0 {
		return false
	}
	t := l.targets[0]
	if e.kind == evTimer {
		t = l.targets[e.t]
	}
	return t.rt.Rec.Total.Offered >= l.cfg.Count
}

// countReached ends the arrivals once every target has begun Config.Count
// requests (hey's -n): the run then ends when they have all ended, or at
// the drain limit after now.
func (l *loop) countReached() {
	for _, t := range l.targets {
		if t.rt.Rec.Total.Offered < l.cfg.Count {
			return
		}
	}
	now := l.clock()
	if now >= l.stopAt {
		return
	}
	l.stopAt, l.cutAt = now, now.Add(l.cfg.Drain)
	l.arrGen++ // the pending arrival never comes
	l.q.push(event{at: l.cutAt, kind: evCut})
	for _, t := range l.targets {
		t.rt.StopAt(now)
		t.logf(now, fmt.Sprintf("%d requests begun (--requests): arrivals stopped", l.cfg.Count))
	}
}

// hold keeps a request's start until an attempt answers: at the in-flight
// cap, a loadgen that fell behind would otherwise start its whole backlog
// at once (a goroutine and a connection each). The open loop holds at most
// its one pending arrival (the next is drawn when it starts), a closed loop
// one start per user. Their latency still counts from the intended time.
func (l *loop) hold(e event) {
	if l.capHits == 0 {
		l.log.Warn("in-flight cap reached: new requests wait for a free connection", zap.Int("max_inflight", l.inflightCap()))
	}
	l.capHits++
	l.held = append(l.held, e)
}

// release starts held requests, in order, while there is room.
func (l *loop) release() {
	for len(l.held) > 0 && l.inflight < l.inflightCap() && !l.cut {
		e := l.held[0]
		l.held = l.held[1:]
		l.fire(e)
	}
}

// scheduleArrival pulls the next open-loop request and schedules it if it
// arrives before the end of the run.
func (l *loop) scheduleArrival() {
	l.next = l.arrivals.Next()
	if l.next.At < l.stopAt {
		l.q.push(event{at: l.next.At, kind: evArrival, b: l.arrGen})
	}
}

// setRate changes the open-loop rate and redraws the pending arrival.
func (l *loop) setRate(now clock.Instant, rate float64) {
	l.rateSet = true
	l.arrivals.SetRate(now, rate)
	l.arrGen++
	if now < l.stopAt {
		l.scheduleArrival()
	}
}

// inflightCap is the most attempts out at once: Config.MaxInflight, else a
// connection's worth for every endpoint of the run (client-side, servers
// added since the start count too).
func (l *loop) inflightCap() int {
	if l.cfg.MaxInflight > 0 {
		return l.cfg.MaxInflight
	}
	n := 0
	for _, t := range l.targets {
		n += len(t.eps)
	}
	return l.cfg.Connections * max(n, 1)
}

// noteLate counts a request the loop started more than cfg.Late after its
// intended instant: the generator could not keep up.
func (l *loop) noteLate(intended clock.Instant) {
	now := l.clock()
	l.startedAt, l.startedOK = now, true // its attempts leave now (leftAt)
	d := now.Sub(intended)
	l.started++
	l.lastStart, l.lastLate = now, max(d, 0)
	l.lateness.Record(max(d, 0))
	if d > l.cfg.Late {
		l.obs.LateSend()
		l.late++
		l.maxLate = max(l.maxLate, d)
	}
}

// startsRequest reports whether e starts a request: the pending open-loop
// arrival, or the end of a closed-loop user's think time.
func (e *event) startsRequest() bool {
	return e.kind == evArrival || e.kind == evTimer && client.TimerKind(e.a) == client.Think
}

// breakerLogger writes client-side breaker transitions to t's event log.
func (l *loop) breakerLogger(t *target) func(clock.Instant, int, breaker.State, breaker.State) {
	return func(now clock.Instant, s int, from, to breaker.State) {
		l.note.Event("breaker")
		t.logf(now, breaker.Describe(t.servers[s].name, from, to))
	}
}
