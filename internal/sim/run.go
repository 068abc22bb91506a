package sim

import (
	"fmt"
	"strings"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// Options tune a simulated run.
type Options struct {
	Series bool // keep 250 ms bins in the report
	Check  bool // check invariants after every event (slower); violations fail the run
	// Replay, when set, is played instead of the lab's generated arrivals
	// (open loop, whatever the lab's mode), opened once per run.
	Replay *workload.Trace
	// Logs, when set, gives each run's request log (the exports), by the
	// run's name.
	Logs func(run string) report.RequestLog
	// MaxPending is the memory guard's bound (guard.go): a run whose pending
	// requests, requests at one server or queued events pass it stops with
	// an *OverflowError. 0 means DefaultMaxPending.
	MaxPending int
	// MaxWork, when > 0, is the work guard's bound (guard.go): a run whose
	// work (assemble.Work: its events and the servers its scanning picks
	// visited) passes it stops with a *BudgetError. The command lines set
	// assemble.MaxWork of the lab's cost budget.
	MaxWork float64
	// MaxMemory, when > 0, is the memory guard's bound in bytes (guard.go):
	// a run that holds more (assemble.Built of its lab and what it holds
	// as it goes, assemble.Held) stops with a *BudgetError. The command
	// lines set assemble.MaxMemory of the lab's cost budget (Within).
	MaxMemory float64
	// Raise is how the budget is raised, as a guard's stop says it ("":
	// --max-cost N).
	Raise string
	// Stop, when set, is asked at the guard's looks (every 1,024 events)
	// whether the host wants the run stopped: the run then ends with
	// ErrStopped (lab watch and the page: the request that asked for it
	// was cancelled or replaced).
	Stop func() bool
	// Progress, when set, is told the share of the work done, from 0 to 1:
	// the runs ended, and of the one going on the virtual time reached
	// over its duration, every 1,024 events and after each run (1 after
	// the last). It is the host's (the page shows it during Compare all
	// and the JSON report) and changes nothing in the runs.
	Progress func(done float64)

	trips      int                     // sessions: how many requests to follow (SessionOptions.Trips)
	runReached func(now clock.Instant) // Progress of the run going on: told its virtual time
}

// Within is opts with both guards at what budget b allows
// (assemble.MaxWork, assemble.MaxMemory) and b's way to raise it.
func (opts Options) Within(b assemble.Budget) Options {
	opts.MaxWork, opts.MaxMemory, opts.Raise = assemble.MaxWork(b), assemble.MaxMemory(b), b.Raise
	return opts
}

// forRun is opts for the i-th of n runs of lab: Progress, if set, told
// of the run's virtual time as the share of all n runs done.
func (opts Options) forRun(lab *labfile.Lab, i, n int) Options {
	if opts.Progress == nil {
		return opts
	}
	dur := float64(lab.Duration)
	opts.runReached = func(now clock.Instant) {
		f := 1.0
		if dur > 0 {
			f = min(float64(now)/dur, 1)
		}
		opts.Progress((float64(i) + f) / float64(n))
	}
	return opts
}

// ran tells Progress, if set, that i of n runs have ended.
func (opts Options) ran(i, n int) {
	if opts.Progress != nil {
		opts.Progress(float64(i) / float64(n))
	}
}

// Result is one simulated run's report row.
type Result struct {
	Run report.Run
	// Memory is the most the run held, as its guard weighs it
	// (assemble.Built and Held; looked at every 1,024 events and at the
	// end): what the torture checks against the estimate.
	Memory float64
	// Work is what the run did (assemble.Work of its events and its
	// scanning picks' visits): what the work guard counts.
	Work float64
}

// Run simulates lab under the setting called name (the lab as it is when
// name is empty) and returns its report row.
func Run(lab *labfile.Lab, opts Options) (Result, error) {
	name := lab.Balancers.Algorithm
	if lab.Clients.Algorithm != "" {
		name = lab.Clients.Algorithm
	}
	res, err := run(lab.Clone(), name, opts.forRun(lab, 0, 1))
	if err == nil {
		opts.ran(1, 1)
	}
	return res, err
}

// Compare sends the same seeded request stream through each setting and
// returns one report with a run per setting.
func Compare(lab *labfile.Lab, settings []labfile.Setting, opts Options) (*report.Report, error) {
	rep := &report.Report{Mode: "sim", Lab: lab.Name, Seed: lab.Seed, DurationS: lab.Duration.Seconds(),
		Narration: lab.Narration, Headline: lab.Report.Headline}
	for i, s := range settings {
		l, err := lab.WithSetting(s)
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		res, err := run(l, s.Name, opts.forRun(l, i, len(settings)))
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		rep.Runs = append(rep.Runs, res.Run)
		opts.ran(i+1, len(settings))
	}
	return rep, nil
}

func run(lab *labfile.Lab, name string, opts Options) (Result, error) {
	w, err := newWorld(lab, name, opts)
	if err != nil {
		return Result{}, err
	}
	defer w.closeReplay()
	w.unkeepLatency()
	w.start()
	w.loop()
	return w.result()
}

// unkeepLatency spares the balancers' latency averages (an exp per answer)
// when nothing of the run will read them: no algorithm of its balancers
// reads them (balance.Caps.Latency) and it has no script, whose events may
// switch to one that does. A session keeps them: its frames show them, and
// its drills may switch algorithms.
func (w *world) unkeepLatency() {
	if len(w.lab.Events) > 0 {
		return
	}
	for _, b := range w.bals {
		if balance.CapsOf(b.Algorithm()).Latency {
			return
		}
	}
	for _, b := range w.bals {
		b.Loads().Unkept = true
	}
}

// result ends the run at w.now (loop or loopUntil has set it to the end
// instant) and builds its report row.
func (w *world) result() (Result, error) {
	end := w.now
	w.rt.Ended(end)
	w.memory() // the peak, with what the last events left
	if w.overflow != nil {
		return Result{}, w.overflow
	}
	if err := w.stream.Err(); err != nil {
		return Result{}, err
	}
	if w.check {
		w.checkEnd()
		if len(w.fault) > 0 {
			return Result{}, fmt.Errorf("invariants violated in %q:\n  %s", w.name, strings.Join(w.fault, "\n  "))
		}
	}
	return Result{Run: w.col.run(end), Memory: w.peak, Work: assemble.Work(w.events, w.visits())}, nil
}

// start schedules the first arrivals, users, script events and ticks.
func (w *world) start() {
	if w.users > 0 {
		w.rt.Start()
	} else {
		w.scheduleArrival()
	}
	for i, ev := range w.lab.Events {
		w.push(clock.Instant(ev.At), evScript, 0, int32(i))
	}
	w.startRefresh()
	w.startHealth()
	if w.col.Series() {
		w.push(clock.Instant(binWidth), evBin, 0, 0)
	}
}

// sharedLoads reports whether periodic load reports are needed.
func (w *world) sharedLoads() bool {
	if w.clientLB {
		return w.lab.Clients.Refresh > 0
	}
	if w.lab.Balancers.Load == labfile.SharedLoad {
		return true
	}
	for _, b := range w.bals { // an algorithm weighing servers by their periodic reports
		if _, oob := b.Reports(); oob {
			return true
		}
	}
	return false
}

// loop fires events until every request has ended after the last arrival,
// or the drain limit cuts the rest off; w.now is then the end instant.
func (w *world) loop() { w.loopUntil(clock.Never) }

// loopUntil fires the events due at or before limit, in the order loop
// would, and reports whether the run has ended (w.now is then its end
// instant). Calls with growing limits fire exactly the events one loop
// fires, whatever the steps: the session (session.go) is built on it. The
// pending open-loop arrival is merged in here rather than kept in the heap.
func (w *world) loopUntil(limit clock.Instant) bool {
	q := &w.q
	for {
		next, src := q.earliest()
		if w.arrivalAt <= next && w.arrivalAt != clock.Never {
			next, src = w.arrivalAt, fromArrival
		}
		if next == clock.Never || w.now >= w.stopAt && next >= w.stopAt && w.rt.Pending() == 0 {
			break
		}
		if next >= w.cutAt && w.rt.Pending() > 0 {
			if w.cutAt > limit {
				return false
			}
			w.now = w.cutAt
			w.cutOff()
			break
		}
		if next > limit {
			return false
		}
		if next == w.now {
			w.stalled++
		} else {
			w.stalled = 0
		}
		w.now = next
		w.events++
		switch src {
		case fromArrival:
			w.rt.Begin(w.now, w.next, -1)
			w.scheduleArrival()
		case fromFIFO:
			w.step(q.fifo.take())
		default:
			w.step(q.hold())
			q.release()
		}
		if w.check {
			w.checkStep()
		}
		if w.events%guardEvery == 0 {
			if w.overflow = w.guard(); w.overflow != nil {
				break
			}
			if w.reached != nil {
				w.reached(w.now)
			}
			if w.slice > 0 && assemble.Work(w.events, w.visits()) >= w.slice {
				w.sliced = true
				return false
			}
		}
	}
	if w.now < w.stopAt {
		w.now = w.stopAt
	}
	return true
}

// cutOff ends every request still pending at the drain limit as timed out.
func (w *world) cutOff() { w.rt.CutOff(w.now) }

func (w *world) algorithmName() string {
	if w.clientLB {
		return w.lab.Clients.Algorithm
	}
	return w.lab.Balancers.Algorithm
}
