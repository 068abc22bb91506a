package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/output"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/workload"
)

// traceFlags are lab sim's and lab run's record, replay and export flags
// (docs/traces.md, docs/report.md).
type traceFlags struct {
	files  output.ExportFiles
	replay string
	trace  *workload.Trace // --replay, checked by prepare
	cmd    *cobra.Command  // for its stderr: what a short replay drops of the script
}

func (tf *traceFlags) add(cmd *cobra.Command) {
	tf.cmd = cmd
	fl := cmd.Flags()
	fl.StringVar(&tf.files.Record, "record", "", "write the request stream and its answers as a trace to `FILE` (docs/traces.md); one setting")
	fl.StringVar(&tf.replay, "replay", "", "play the requests of a trace `FILE` (an lblab trace, or a CSV timestamp,duration[,key])\ninstead of the lab's stream; the duration defaults to the trace's")
	fl.StringVar(&tf.files.Out, "out", "", "write one CSV row per request to `FILE` (docs/report.md)")
	fl.StringVar(&tf.files.HdrLog, "hdr-log", "", "write the latencies as an HdrHistogram interval log to `FILE` (docs/report.md)")
}

// prepare checks the trace to replay (a bad line is exit 2, before
// anything runs) and, without --duration, runs the lab for the trace's
// duration; a trace records one setting.
func (tf *traceFlags) prepare(lab *labfile.Lab, settings []labfile.Setting, durationSet bool) error {
	if tf == nil {
		return nil
	}
	if tf.files.Record != "" && len(settings) > 1 {
		return usageError{fmt.Errorf("--record: a trace holds one run, and %d settings would run: choose one with --compare NAME", len(settings))}
	}
	if tf.replay == "" {
		return nil
	}
	tr, err := output.OpenTrace(tf.replay)
	if err != nil {
		return usageError{fmt.Errorf("--replay: %w", err)}
	}
	if !durationSet {
		d := tr.Info.Duration()
		if dropped := fitScript(lab, d); len(dropped) > 0 {
			fmt.Fprintf(tf.cmd.ErrOrStderr(), "--replay: the trace lasts %v, less than the lab's script: %s\n", d, strings.Join(dropped, "; "))
		}
		if err := lab.Apply("duration", d.String()); err != nil {
			return usageError{fmt.Errorf("--replay: %w", err)}
		}
	}
	tf.trace = tr
	return nil
}

// fitScript cuts lab's script to a run of d: an event at or after d is
// dropped, and an event whose time box ends at or after d stays in force to
// the end (its undo would come after the run). It returns what it dropped,
// in script order, for the user.
func fitScript(lab *labfile.Lab, d time.Duration) []string {
	var dropped []string
	kept := lab.Events[:0:0]
	for i, ev := range lab.Events {
		what := strings.TrimSpace(fmt.Sprintf("%s %s", ev.Action, ev.Target))
		switch {
		case ev.At >= d:
			dropped = append(dropped, fmt.Sprintf("dropped events[%d] (%s at %v)", i, what, ev.At))
			continue
		case ev.For > 0 && ev.At+ev.For >= d:
			dropped = append(dropped, fmt.Sprintf("events[%d] (%s at %v) is not undone (its undo at %v is past the end)", i, what, ev.At, ev.At+ev.For))
			ev.For = 0
		}
		kept = append(kept, ev)
	}
	lab.Events = kept
	return dropped
}

// compare runs lab sim's settings with the replay and the exports.
func (tf *traceFlags) compare(lab *labfile.Lab, settings []labfile.Setting, opts sim.Options) (*report.Report, error) {
	if tf == nil {
		return sim.Report(lab, settings, opts)
	}
	ex, err := output.OpenExports(tf.files, header(lab, "sim"))
	if err != nil {
		return nil, usageError{err}
	}
	opts.Replay = tf.trace
	if ex != nil {
		opts.Logs = ex.Log
	}
	rep, err := sim.Report(lab, settings, opts)
	return rep, errors.Join(err, ex.Close())
}

// loadgenArgs are the flags lab run passes on to each setting's loadgen,
// with absolute paths. The loadgen of each setting would write the same
// files over, so they take one setting.
func (tf *traceFlags) loadgenArgs(settings []labfile.Setting) ([]string, error) {
	var args []string
	if tf == nil {
		return nil, nil
	}
	for _, f := range []struct{ flag, path string }{{"--replay", tf.replay}, {"--record", tf.files.Record},
		{"--out", tf.files.Out}, {"--hdr-log", tf.files.HdrLog}} {
		if f.path == "" {
			continue
		}
		if f.flag != "--replay" && len(settings) > 1 {
			return nil, usageError{fmt.Errorf("%s: lab run writes it for one setting, and %d would run: choose one with --compare NAME (lab sim writes every setting's)", f.flag, len(settings))}
		}
		abs, err := filepath.Abs(f.path)
		if err != nil {
			return nil, usageError{fmt.Errorf("%s: %w", f.flag, err)}
		}
		args = append(args, f.flag, abs)
	}
	return args, nil
}

func header(lab *labfile.Lab, mode string) workload.TraceHeader {
	return workload.TraceHeader{Lab: lab.Name, Mode: mode, Seed: lab.Seed, Duration: workload.FormatMs(lab.Duration)}
}

// used reports whether any of the flags was given.
func (tf *traceFlags) used() bool {
	return tf != nil && (tf.replay != "" || tf.files != output.ExportFiles{})
}

// refuseWithSeeds refuses the trace flags with --seeds: they write or play
// one run's stream, and many seeds are many runs.
func (tf *traceFlags) refuseWithSeeds(seeds []uint64) error {
	if seeds != nil && tf.used() {
		return usageError{fmt.Errorf("--seeds: --record, --replay, --out and --hdr-log are for one run; give one --seed")}
	}
	return nil
}

// checkOut reads lab run's --out file once its loadgen is done, and warns
// when the file is not the run's whole CSV: a row cut in the middle (a
// loadgen killed as it wrote, before it wrote whole rows), or a run that
// failed (runErr), which leaves only the rows written before.
func (tf *traceFlags) checkOut(errOut io.Writer, runErr error) {
	if tf == nil || tf.files.Out == "" {
		return
	}
	rows, err := output.CheckCSV(tf.files.Out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		fmt.Fprintf(errOut, "lab run: warning: %v\n", err)
	case runErr != nil:
		fmt.Fprintf(errOut, "lab run: warning: %s holds %s: the run failed, so they are only those written before it stopped\n",
			tf.files.Out, report.Plural(uint64(rows), "whole row"))
	}
}
