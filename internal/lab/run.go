package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"syscall"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/backend"
)

// RunOptions configure `lab run`.
type RunOptions struct {
	Options
	Series   bool
	Progress io.Writer // one line per setting ("" = quiet)
}

// Run runs each setting live, one after another, each on a fresh set of
// processes, and returns the report (mode "live"). The same lab and seed
// send the same requests as `lab sim`.
func Run(ctx context.Context, lab *labfile.Lab, settings []labfile.Setting, opts RunOptions) (*report.Report, error) {
	rep := &report.Report{Mode: "live", Lab: lab.Name, Seed: lab.Seed, DurationS: lab.Duration.Seconds(),
		Narration: lab.Narration}
	for i, s := range settings {
		l, err := lab.WithSetting(s)
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "lab run %s: setting %s (%d of %d), %v of traffic...\n",
				lab.Name, s.Name, i+1, len(settings), l.Duration)
		}
		run, err := runOne(ctx, l, s.Name, opts)
		if err != nil {
			return nil, fmt.Errorf("setting %q: %w", s.Name, err)
		}
		rep.Runs = append(rep.Runs, *run)
		if ctx.Err() != nil {
			break // interrupted: report what ran
		}
	}
	return rep, nil
}

// runOne starts the processes of one setting, runs the loadgen and the
// script, gathers the report and stops everything.
func runOne(ctx context.Context, lab *labfile.Lab, name string, opts RunOptions) (*report.Run, error) {
	f, err := startFleet(ctx, lab, opts.Options)
	if err != nil {
		return nil, err
	}
	defer f.stop()
	args := append([]string{"--lab", f.labPath, "--admin", "127.0.0.1:0", "--json"}, f.loadgenArgs()...)
	if opts.Series {
		args = append(args, "--series")
	}
	lg, err := start(ctx, opts.Launch, "loadgen", "loadgen", args, opts.Logs, opts.Log)
	if err != nil {
		return nil, err
	}
	sc := newScript(f, lg, opts.Log)
	scriptCtx, stopScript := context.WithCancel(ctx)
	sc.followBalancers(scriptCtx)
	scriptDone := make(chan struct{})
	go func() { sc.run(scriptCtx, lab.Events); close(scriptDone) }()
	if err := lg.wait(ctx); ctx.Err() != nil {
		_ = lg.cmd.Process.Signal(syscall.SIGINT) // loadgen reports what ran
		<-lg.done
	} else if err != nil {
		stopScript()
		return nil, fmt.Errorf("loadgen failed: %v (its log is in the process log)", err)
	}
	stopScript()
	<-scriptDone
	run, err := parseLoadgenReport(lg.output())
	if err != nil {
		return nil, err
	}
	run.Name, run.Log = name, append(sc.events.snapshot(), run.Log...)
	if run.Algorithm == "" {
		run.Algorithm = lab.Balancers.Algorithm
	}
	run.Servers = f.serverFigures(context.Background())
	return run, nil
}

// parseLoadgenReport reads the loadgen's JSON report (its only run).
func parseLoadgenReport(out string) (*report.Run, error) {
	var rep report.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return nil, fmt.Errorf("cannot read the loadgen's report: %v (output: %.200q)", err, out)
	}
	if len(rep.Runs) != 1 {
		return nil, fmt.Errorf("the loadgen's report has %d runs, want 1", len(rep.Runs))
	}
	return &rep.Runs[0], nil
}

// serverFigures asks every backend for its counters: what reached it, what
// it served, its longest queue and its cache hit ratio.
func (f *fleet) serverFigures(ctx context.Context) []report.Server {
	var out []report.Server
	var total uint64
	for _, b := range f.all() {
		if b.role != "backend" {
			continue
		}
		var st backend.State
		if err := call(ctx, b.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			f.opts.Log.Warn("cannot read a server's counters", zap.String("server", b.name), zap.Error(err))
		}
		c := st.Counters
		s := report.Server{Name: b.name, Sent: c.Arrived, Completed: c.Completed, MaxQueue: c.MaxQueue}
		if c.CacheLookups > 0 {
			s.CacheHitRatio = float64(c.CacheHits) / float64(c.CacheLookups)
		}
		total += c.Arrived
		out = append(out, s)
	}
	for i := range out {
		if total > 0 {
			out[i].Share = float64(out[i].Sent) / float64(total)
		}
	}
	return out
}
