package report

import (
	"errors"
	"fmt"
	"math"
)

// ErrUnmeasured marks a question a report cannot answer: it has no series
// (run without --series), or lacks a figure its clock does not measure
// (a live report has no per-server series). A claim checked on such a
// report is neither true nor false.
var ErrUnmeasured = errors.New("not measured in this report")

// Window is a run's series summed over the bins that start in [From, To)
// seconds.
type Window struct {
	From, To  float64
	Bins      int
	Offered   uint64 // requests started in the window
	Succeeded uint64 // requests that ended in the window with a 200
	Ended     uint64 // requests that ended in the window, however
	Attempts  uint64
	Retries   uint64
	Timeouts  uint64
	Rejected  uint64
	Errors    uint64
	Wasted    uint64
	Crossed   uint64 // attempts that crossed a zone (a lab with zones)
	// WorstBin is the lowest goodput of one bin in the window among the
	// bins in which a request ended (a bin where none did tells nothing on
	// its own; Goodput sees a window where none did), P99 the highest p99
	// of one bin (ms; 0 when no request of the window succeeded).
	WorstBin, P99 float64
}

// Window sums the bins of r's series that start in [from, to). It fails
// with ErrUnmeasured when r has no series, and when the window holds no bin
// (a run shorter than the window).
func (r *Run) Window(from, to float64) (Window, error) {
	w := Window{From: from, To: to, WorstBin: 1}
	if len(r.Series) == 0 {
		return w, fmt.Errorf("%s: no series (run with --series): %w", r.Name, ErrUnmeasured)
	}
	for _, b := range r.Series {
		if b.T < from || b.T >= to {
			continue
		}
		w.Bins++
		w.Offered += b.Offered
		w.Succeeded += b.Succeeded
		w.Ended += b.Succeeded + b.Failed
		w.Attempts += b.Attempts
		w.Retries += b.Retries
		w.Timeouts += b.Timeouts
		w.Rejected += b.Rejected
		w.Errors += b.Errors
		w.Wasted += b.Wasted
		w.Crossed += b.Crossed
		if b.Succeeded+b.Failed > 0 {
			w.WorstBin = math.Min(w.WorstBin, b.Goodput())
		}
		w.P99 = math.Max(w.P99, b.P99)
	}
	if w.Bins == 0 {
		return w, fmt.Errorf("%s: no bin in %g-%g s: %w", r.Name, from, to, ErrUnmeasured)
	}
	return w, nil
}

// Goodput is the window's goodput (the package's Goodput): the share of
// the requests that ended in the window that succeeded. It counts requests
// by when they end, as the bins do, so a bin's goodput is not skewed by
// requests started just before it; a window where requests started but none
// ended (all of them stuck) has goodput 0, and one where nothing was asked
// has 1 (nothing asked, nothing missed: the recovery verdict's baseline).
func (w Window) Goodput() float64 {
	if g, ok := Goodput(w.Offered, w.Succeeded, w.Ended); ok {
		return g
	}
	return 1
}

// AttemptsPerRequest is attempts per request started in the window (the
// package's AttemptsPerRequest; 0 when none started).
func (w Window) AttemptsPerRequest() float64 {
	a, _ := AttemptsPerRequest(w.Attempts, w.Offered)
	return a
}

// Goodput is the bin's goodput, as a window of one bin (Window.Goodput).
func (b Bin) Goodput() float64 {
	return Window{Offered: b.Offered, Succeeded: b.Succeeded, Ended: b.Succeeded + b.Failed}.Goodput()
}

// InServerMax is the most requests server i (in r.Servers order) held,
// queued or in service, at the end of a bin starting in [from, to). It
// fails with ErrUnmeasured when the series has no per-server column (live
// reports).
func (r *Run) InServerMax(i int, from, to float64) (int, error) {
	if _, err := r.Window(from, to); err != nil {
		return 0, err
	}
	most := 0
	for _, b := range r.Series {
		if b.T < from || b.T >= to {
			continue
		}
		if i >= len(b.InServer) {
			return 0, fmt.Errorf("%s: no per-server series: %w", r.Name, ErrUnmeasured)
		}
		most = max(most, b.InServer[i])
	}
	return most, nil
}
