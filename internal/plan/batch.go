package plan

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/sim"
)

// Batch is many runs of one lab: a list of labs (one per seed, or per grid
// point and seed), each run under every setting. A Runner yields one report
// per lab with one run per setting, in the order of labs and settings,
// however the runs were scheduled.
type Batch struct {
	What     string // "lab sim rr-slow", heads the progress lines
	Labs     []*labfile.Lab
	Settings []labfile.Setting
	Names    []string // what lab i is, for live progress lines (default: its seed)
}

// Name is what lab i is, in progress lines.
func (b Batch) Name(i int) string {
	if b.Names != nil {
		return b.Names[i]
	}
	return fmt.Sprintf("seed %d", b.Labs[i].Seed)
}

// Runs is how many runs the batch makes.
func (b Batch) Runs() int { return len(b.Labs) * len(b.Settings) }

// A Runner runs a batch: in the simulator (Sim) or with real processes
// (Live). lab sim, lab run, lab sweep and lab sim --claims all drive their
// batches through one. On an interrupt (ctx done) a runner returns the
// reports of the labs that finished, with ctx's error.
type Runner interface {
	Run(ctx context.Context, b Batch, progress io.Writer) ([]*report.Report, error)
}

// Sim runs a batch in the simulator: every (lab, setting) on its own in a
// pool of workers (GOMAXPROCS of them: every core unless told otherwise).
// Each simulation is single-threaded and a pure function of its lab, so the
// reports do not depend on the number of workers or the order they finish
// in. The error is that of the first failing run in order.
type Sim struct {
	Options func(i int) sim.Options // the options of lab i
}

// Run simulates every run of b. Simulated batches are short and are not
// interrupted: ctx is not consulted.
func (s Sim) Run(_ context.Context, b Batch, progress io.Writer) ([]*report.Report, error) {
	all := make([]int, b.Runs())
	for k := range all {
		all[k] = k
	}
	runs, err := s.RunSome(b, all, progress)
	if err != nil {
		return nil, err
	}
	ns := len(b.Settings)
	out := make([]*report.Report, len(b.Labs))
	for i, l := range b.Labs {
		out[i] = LabReport("sim", l, runs[i*ns:(i+1)*ns])
	}
	return out, nil
}

// RunSome runs the runs numbered ks (run k is lab k/settings under setting
// k%settings) in the pool and returns them in the order of ks: a shard of a
// sweep. Each run's recovery verdicts are added where it is simulated.
func (s Sim) RunSome(b Batch, ks []int, progress io.Writer) ([]report.Run, error) {
	n, ns := len(ks), len(b.Settings)
	runs := make([]report.Run, n)
	errs := make([]error, n)
	workers := max(min(runtime.GOMAXPROCS(0), n), 1)
	prog := NewProgress(progress, b.What, n)
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
				rep, err := sim.Compare(b.Labs[i], b.Settings[j:j+1], s.Options(i))
				if err != nil {
					errs[x] = fmt.Errorf("seed %d: %w", b.Labs[i].Seed, err)
					failed.Do(func() { close(stop) })
					continue
				}
				verdict.AddRecovery(rep, b.Labs[i], b.Settings[j]) // with a series (asked for, or for the verdicts): its recovery verdicts
				runs[x] = rep.Runs[0]
				prog.Step()
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
	prog.Finish(fmt.Sprintf("on %d workers", workers))
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return runs, nil
}

// Live runs a batch's labs one after another with real processes (every
// setting of a lab on its own fresh fleet, as lab run does), printing
// before each how far it is and how long the rest should take. Each report
// has its recovery verdicts (from its series, when Options.Series asks for
// one). An interrupt ends it after the lab running.
type Live struct {
	Options livelab.RunOptions
}

// Run runs every lab of b live.
func (r Live) Run(ctx context.Context, b Batch, progress io.Writer) ([]*report.Report, error) {
	var out []*report.Report
	start := time.Now()
	for i, l := range b.Labs {
		left := time.Duration(len(b.Labs)-i) * LiveEstimate(l, len(b.Settings))
		if i > 0 { // measured so far
			left = time.Since(start) / time.Duration(i) * time.Duration(len(b.Labs)-i)
		}
		fmt.Fprintf(progress, "%s: %s (%d of %d), about %v left\n", b.What, b.Name(i), i+1, len(b.Labs), left.Round(time.Second))
		rep, err := livelab.Run(ctx, l, b.Settings, r.Options)
		if err != nil {
			return out, err
		}
		if ctx.Err() != nil { // interrupted: this lab's report is partial
			return out, ctx.Err()
		}
		verdict.AddRecovery(rep, l, b.Settings...) // as Sim gives simulated runs theirs
		out = append(out, rep)
	}
	fmt.Fprintf(progress, "%s: %d live runs in %v\n", b.What, b.Runs(), time.Since(start).Round(time.Second))
	return out, nil
}

// LiveEstimate is how long a live lab of n settings should take before any
// has run: its traffic plus a few seconds per fleet to start and stop.
func LiveEstimate(l *labfile.Lab, n int) time.Duration {
	return time.Duration(n) * (l.Duration + 2*time.Second)
}

// LabReport is the report of one lab's runs.
func LabReport(mode string, l *labfile.Lab, runs []report.Run) *report.Report {
	return &report.Report{Mode: mode, Lab: l.Name, Seed: l.Seed, DurationS: l.Duration.Seconds(),
		Narration: l.Narration, Runs: runs}
}
