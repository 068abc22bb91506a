package lab

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// liveRun is one running copy of a lab as the controller sees it: its
// processes, its script and event log, and the lab copy drills are checked
// against. `lab up` has one at a time (a scenario switch replaces it), `lab
// run` one per setting, `lab dashboard` one made of processes it attached to.
type liveRun struct {
	id       uint64
	mu       sync.Mutex   // guards lab: drills change it while the aggregator reads it
	lab      *labfile.Lab // changed by drills (set, rate, algorithm, add-server)
	f        *fleet
	loadgen  *proc.Proc
	sc       *script
	started  time.Time
	scenario string // the built-in scenario it runs ("" = a lab file or the default)
	setting  string // the compare setting applied ("" = the lab as written)
	attached bool   // processes someone else started: never stopped by us
	mode     string // up | run | attach
	// first holds the settings at the run's first reading, which the
	// snapshot's changes are measured from.
	first    atomic.Pointer[dash.Controls]
	undos    undoTimers // pending undos of time-boxed events
	ctx      context.Context
	cancel   context.CancelFunc
	stopOnce sync.Once
}

var runIDs atomic.Uint64

// launch starts a lab's backends, balancers and loadgen, and follows the
// balancers' event streams. The caller starts the script (sc.run) when it
// wants the clock of the script to begin.
func launch(ctx context.Context, mode string, lab *labfile.Lab, opts Options, series bool, loadgenArgs ...string) (*liveRun, error) {
	rctx, cancel := context.WithCancel(ctx)
	f, err := startFleet(rctx, lab, opts)
	if err != nil {
		cancel()
		return nil, err
	}
	args := append([]string{"--lab", f.labPath, "--admin", "127.0.0.1:0", "--json", "--log-waits"}, f.loadgenArgs()...)
	args = append(args, f.tls.clientArgs()...)
	if series {
		args = append(args, "--series")
	}
	args = append(args, loadgenArgs...)
	lg, err := proc.Start(rctx, opts.Launch, "loadgen", "loadgen", args, opts.Logs, opts.Log)
	if err != nil {
		f.stop()
		cancel()
		return nil, err
	}
	r := newRun(rctx, cancel, mode, lab, f, lg)
	r.sc.followBalancers(rctx)
	for _, p := range f.all() {
		r.supervise(p, 0)
	}
	f.onStart = func(p *proc.Proc) { r.supervise(p, 0) }
	return r, nil
}

func newRun(ctx context.Context, cancel context.CancelFunc, mode string, lab *labfile.Lab, f *fleet, lg *proc.Proc) *liveRun {
	r := &liveRun{id: runIDs.Add(1), lab: lab.Clone(), f: f, loadgen: lg, ctx: ctx, cancel: cancel, mode: mode}
	r.sc = newScript(f, lg, f.opts.Log)
	r.started = r.sc.events.Start()
	return r
}

// Stop ends the script and the event streams and stops every process,
// gracefully (each drains for up to 5 s).
func (r *liveRun) Stop() { r.halt(false) }

// kill is stop without the drain: for a scenario switch, whose old
// processes' answers nobody reads.
func (r *liveRun) kill() { r.halt(true) }

func (r *liveRun) halt(now bool) {
	r.stopOnce.Do(func() {
		r.undos.stop()
		r.cancel()
		if r.attached {
			return
		}
		procs := append(r.f.all(), r.loadgen)
		if x := r.f.external(); x != nil {
			procs = append(procs, x.proc)
		}
		var wg sync.WaitGroup
		for _, p := range procs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if now {
					p.Kill()
				} else {
					p.Stop()
				}
			}()
		}
		wg.Wait()
		r.f.stop() // removes its files
	})
}

// backends and balancers are the processes by role, in fleet order.
func (r *liveRun) backends() []*proc.Proc  { return r.byRole("backend") }
func (r *liveRun) balancers() []*proc.Proc { return r.byRole("lb") }

func (r *liveRun) byRole(role string) []*proc.Proc {
	var out []*proc.Proc
	for _, p := range r.f.all() {
		if p.Role == role {
			out = append(out, p)
		}
	}
	return out
}

// record updates the run's lab copy after an event was applied, so later
// drills are checked, and undos computed, against the lab as it now is
// (labfile.Record). A drill's add-server or remove-server joins the copy's
// events (later drills may target the server, or not); fleet says so.
func (r *liveRun) record(ev labfile.Event, fleet bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := labfile.DrillOf(ev.Action); ok && d.Scope == labfile.OnFleet {
		if fleet {
			ev.For = 0
			r.lab.Events = append(r.lab.Events, ev)
		}
		return
	}
	r.lab.Record(ev)
}

// Lab is a copy of the run's lab as drills have left it.
func (r *liveRun) Lab() *labfile.Lab {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lab.Clone()
}

// What the controller reads of the run (control.Run).

// Snapshot reads every process and returns the dashboard's snapshot.
func (r *liveRun) Snapshot(ctx context.Context, d *dash.Deriver, mode string) *dash.Snapshot {
	var extra []gather.Extra
	if x := r.f.external(); x != nil { // a proxy in the lb's place: its stats interface (externaldash.go)
		extra = append(extra, func(ctx context.Context) func(*dash.Reading) {
			st, err := x.liveStats(ctx)
			return func(out *dash.Reading) { out.LBs = append(out.LBs, x.liveReading(st, err, out.Servers)) }
		})
	}
	cur := gather.Read(ctx, r.balancers(), r.backends(), r.loadgen, extra...)
	d.Add(r.id, r.started, cur)
	return snapshot(r, d, cur, mode)
}

// Processes are the balancers and backends, and the loadgen.
func (r *liveRun) Processes() ([]*proc.Proc, *proc.Proc) { return r.f.all(), r.loadgen }

// Log is the event log so far.
func (r *liveRun) Log() []report.LogLine { return r.sc.events.Snapshot() }

// Scenario is the built-in scenario the run is ("" = a lab file).
func (r *liveRun) Scenario() string { return r.scenario }

// Features is what the dashboard offers on the run in mode.
func (r *liveRun) Features(mode string) dash.Features { return features(mode, r) }

// Attached: the run's processes were started by someone else.
func (r *liveRun) Attached() bool { return r.attached }

// Fire applies a drill of the controller's API now (see fire).
func (r *liveRun) Fire(ctx context.Context, ev labfile.Event) (labfile.Event, error) {
	return r.fire(ctx, ev, "chaos: ", true)
}
