package output

import (
	"bufio"
	"encoding/csv"
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
	// Plain is a run against a service that is not lblab's (loadgen
	// --plain): its requests carry no client id or key, so the CSV has no
	// such columns (report.PlainCSVColumns).
	Plain bool
	// Title, when set, is what the HdrHistogram log's header says the run
	// was (a plain run's target), instead of its lab and seed.
	Title string
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
		if f.Plain {
			e.csv = report.NewPlainRequestsCSV(file)
		}
	}
	if f.HdrLog != "" {
		file, err := open("--hdr-log", f.HdrLog)
		if err != nil {
			return nil, err
		}
		title := fmt.Sprintf("lblab %s lab %s seed %d", h.Mode, h.Lab, h.Seed)
		if f.Title != "" {
			title = f.Title
		}
		e.hdr = report.NewHdrLog(file, title)
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

// CheckCSV reads a per-request CSV (--out) once its run is over: it
// returns how many whole rows it holds (the header not counted) and, when
// its writer stopped in the middle of a row (a loadgen killed as it wrote),
// an error naming the file and that row.
func CheckCSV(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	r := csv.NewReader(br)
	r.ReuseRecord = true
	rows := -1 // the header is not a row
	var last byte
	for {
		_, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return max(rows, 0), fmt.Errorf("%s: row %d (line %d) is cut or malformed (%v): the %d rows before it are whole",
				path, rows+1, rows+2, err, max(rows, 0))
		}
		rows++
	}
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, st.Size()-1); err == nil {
			last = b[0]
		}
		if last != '\n' && rows <= 0 {
			return 0, fmt.Errorf("%s: its header line is cut: its writer stopped in the middle of it", path)
		}
		if last != '\n' {
			return max(rows-1, 0), fmt.Errorf("%s: row %d (line %d) is cut: its writer stopped in the middle of it; the %d rows before it are whole",
				path, rows, rows+1, max(rows-1, 0))
		}
	}
	return max(rows, 0), nil
}
