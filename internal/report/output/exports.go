package output

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// ExportFiles are the files a run writes beside its report ("" = none):
// the same three flags on lab sim, lab run and the loadgen.
type ExportFiles struct {
	Record string // --record: the request stream as an lblab trace
	Out    string // --out: one CSV row per request
	HdrLog string // --hdr-log: an HdrHistogram interval log of the latencies
}

// Any reports whether a file is asked for.
func (f ExportFiles) Any() bool { return f.Record != "" || f.Out != "" || f.HdrLog != "" }

// Exports are a run's open export files. Drivers take one RequestLog per
// run from Log; Close flushes and closes everything.
type Exports struct {
	trace *report.TraceWriter
	csv   *report.RequestsCSV
	hdr   *report.HdrLog
	files []*os.File
}

// OpenExports creates the files asked for; h is the trace's header (lab,
// mode, seed, duration). A nil *Exports (nothing asked) logs nothing.
func OpenExports(f ExportFiles, h workload.TraceHeader) (*Exports, error) {
	if !f.Any() {
		return nil, nil
	}
	e := &Exports{}
	open := func(flag, path string) (*os.File, error) {
		file, err := os.Create(path)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		e.files = append(e.files, file)
		return file, nil
	}
	if f.Record != "" {
		file, err := open("--record", f.Record)
		if err != nil {
			return nil, err
		}
		e.trace = report.NewTraceWriter(file, h)
	}
	if f.Out != "" {
		file, err := open("--out", f.Out)
		if err != nil {
			return nil, err
		}
		e.csv = report.NewRequestsCSV(file)
	}
	if f.HdrLog != "" {
		file, err := open("--hdr-log", f.HdrLog)
		if err != nil {
			return nil, err
		}
		e.hdr = report.NewHdrLog(file, fmt.Sprintf("lblab %s lab %s seed %d", h.Mode, h.Lab, h.Seed))
	}
	return e, nil
}

// Log returns the RequestLog of the run called name (nil when nothing is
// exported).
func (e *Exports) Log(run string) report.RequestLog {
	if e == nil {
		return nil
	}
	var logs []report.RequestLog
	if e.trace != nil {
		logs = append(logs, e.trace.Run(run))
	}
	if e.csv != nil {
		logs = append(logs, e.csv.Run(run))
	}
	if e.hdr != nil {
		logs = append(logs, e.hdr.Run(run))
	}
	return report.Tee(logs...)
}

// Close flushes and closes the files; the first error wins.
func (e *Exports) Close() error {
	if e == nil {
		return nil
	}
	var errs []error
	if e.trace != nil {
		errs = append(errs, e.trace.Close())
	}
	if e.csv != nil {
		errs = append(errs, e.csv.Close())
	}
	if e.hdr != nil {
		errs = append(errs, e.hdr.Close())
	}
	for _, f := range e.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// OpenTrace checks a trace file for replay (every line is read once, and
// the first bad one is an error naming file:line) and returns it, to be
// opened again, and streamed, by each run that replays it.
func OpenTrace(path string) (*workload.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := workload.ScanTrace(f, path)
	if err != nil {
		return nil, err
	}
	return &workload.Trace{Name: path, Info: info,
		Open: func() (io.ReadCloser, error) { return os.Open(path) }}, nil
}
