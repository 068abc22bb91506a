package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/lblab/lblab/internal/sim"
)

// batch is many runs of one lab: a list of labs (one per seed, or per grid
// point and seed), each run under every setting. It yields one report per
// lab with one run per setting, in the order of labs and settings, however
// the runs were scheduled.
type batch struct {
	what     string // "lab sim rr-slow", heads the progress lines
	labs     []*labfile.Lab
	settings []labfile.Setting
	names    []string // what lab i is, for live progress lines (default: its seed)
}

func (b batch) name(i int) string {
	if b.names != nil {
		return b.names[i]
	}
	return fmt.Sprintf("seed %d", b.labs[i].Seed)
}

func (b batch) runs() int { return len(b.labs) * len(b.settings) }

// simulate runs every (lab, setting) on its own in a pool of workers
// (GOMAXPROCS of them: every core unless told otherwise). Each simulation is
// single-threaded and a pure function of its lab, so the reports do not
// depend on the number of workers or the order they finish in. opts gives
// the options of lab i. The error is that of the first failing run in
// order.
func (b batch) simulate(opts func(i int) sim.Options, errOut io.Writer) ([]*report.Report, error) {
	all := make([]int, b.runs())
	for k := range all {
		all[k] = k
	}
	runs, err := b.simulateRuns(all, opts, errOut)
	if err != nil {
		return nil, err
	}
	ns := len(b.settings)
	out := make([]*report.Report, len(b.labs))
	for i, l := range b.labs {
		out[i] = labReport("sim", l, runs[i*ns:(i+1)*ns])
	}
	return out, nil
}

// simulateRuns runs the runs numbered ks (run k is lab k/settings under
// setting k%settings) in the pool and returns them in the order of ks.
func (b batch) simulateRuns(ks []int, opts func(i int) sim.Options, errOut io.Writer) ([]report.Run, error) {
	n, ns := len(ks), len(b.settings)
	runs := make([]report.Run, n)
	errs := make([]error, n)
	workers := max(min(runtime.GOMAXPROCS(0), n), 1)
	prog := newProgress(errOut, b.what, n)
	jobs := make(chan int)
	var failed sync.Once
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for x := range jobs {
				i, j := ks[x]/ns, ks[x]%ns
				rep, err := sim.Compare(b.labs[i], b.settings[j:j+1], opts(i))
				if err != nil {
					errs[x] = fmt.Errorf("seed %d: %w", b.labs[i].Seed, err)
					failed.Do(func() { close(stop) })
					continue
				}
				rep.AddRecovery(b.labs[i]) // with a series (asked for, or for the verdicts): its recovery verdicts
				runs[x] = rep.Runs[0]
				prog.step()
			}
		}()
	}
feed:
	for x := range n {
		select {
		case jobs <- x:
		case <-stop:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	prog.finish(fmt.Sprintf("on %d workers", workers))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// live runs the labs one after another with real processes (every setting
// of a lab on its own fresh fleet, as lab run does), printing before each
// how far it is and how long the rest should take. An interrupt ends it
// after the lab running: the reports of the labs that finished are
// returned, with ctx's error.
func (b batch) live(ctx context.Context, opts livelab.RunOptions, errOut io.Writer) ([]*report.Report, error) {
	var out []*report.Report
	start := time.Now()
	for i, l := range b.labs {
		left := time.Duration(len(b.labs)-i) * liveEstimate(l, len(b.settings))
		if i > 0 { // measured so far
			left = time.Since(start) / time.Duration(i) * time.Duration(len(b.labs)-i)
		}
		fmt.Fprintf(errOut, "%s: %s (%d of %d), about %v left\n", b.what, b.name(i), i+1, len(b.labs), left.Round(time.Second))
		rep, err := livelab.Run(ctx, l, b.settings, opts)
		if err != nil {
			return out, err
		}
		if ctx.Err() != nil { // interrupted: this lab's report is partial
			return out, ctx.Err()
		}
		out = append(out, rep)
	}
	fmt.Fprintf(errOut, "%s: %d live runs in %v\n", b.what, b.runs(), time.Since(start).Round(time.Second))
	return out, nil
}

// liveEstimate is how long a live lab of n settings should take before any
// has run: its traffic plus a few seconds per fleet to start and stop.
func liveEstimate(l *labfile.Lab, n int) time.Duration {
	return time.Duration(n) * (l.Duration + 2*time.Second)
}

// labReport is the report of one lab's runs.
func labReport(mode string, l *labfile.Lab, runs []report.Run) *report.Report {
	return &report.Report{Mode: mode, Lab: l.Name, Seed: l.Seed, DurationS: l.Duration.Seconds(),
		Narration: l.Narration, Runs: runs}
}

// progress reports a batch's progress on stderr: a line updated in place
// with an estimate of the time left when stderr is a terminal, and a final
// summary line either way.
type progress struct {
	w     io.Writer
	tty   bool
	what  string
	total int
	units string // what is counted: "runs" unless set ("labs")
	start time.Time

	mu    sync.Mutex
	done  int
	shown time.Time
}

func newProgress(w io.Writer, what string, total int) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, tty: ok && wire.IsTerminal(f), what: what, total: total, start: time.Now()}
}

// step counts one run done; on a terminal it redraws the line (at most ten
// times a second).
func (p *progress) step() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if !p.tty || time.Since(p.shown) < 100*time.Millisecond {
		return
	}
	p.shown = time.Now()
	fmt.Fprint(p.w, "\r\033[K"+p.line(time.Since(p.start)))
}

// line is the progress line after elapsed: how many runs of how many, the
// rate so far and the time the rest should take at that rate.
func (p *progress) line(elapsed time.Duration) string {
	left := elapsed / time.Duration(p.done) * time.Duration(p.total-p.done)
	return fmt.Sprintf("%s: %d of %d %s, %v, %.1f %s/s, about %v left", p.what, p.done, p.total, p.unit(),
		elapsed.Round(100*time.Millisecond), float64(p.done)/elapsed.Seconds(), p.unit(), left.Round(time.Second))
}

func (p *progress) unit() string {
	if p.units == "" {
		return "runs"
	}
	return p.units
}

// clear removes the live line (a terminal only).
func (p *progress) clear() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// finish clears the live line and prints the summary.
func (p *progress) finish(how string) {
	p.clear()
	fmt.Fprintf(p.w, "%s: %d runs in %v %s\n", p.what, p.done, time.Since(p.start).Round(10*time.Millisecond), how)
}
