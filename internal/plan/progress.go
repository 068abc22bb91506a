package plan

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/shell/wire"
)

// Progress reports a batch's progress on stderr: a line updated in place
// with an estimate of the time left when stderr is a terminal, and a final
// summary line either way.
type Progress struct {
	w     io.Writer
	tty   bool
	what  string
	total int
	Units string // what is counted: "runs" unless set ("labs")
	start time.Time

	mu    sync.Mutex
	done  int
	shown time.Time
}

// NewProgress counts total steps of what on w.
func NewProgress(w io.Writer, what string, total int) *Progress {
	f, ok := w.(*os.File)
	return &Progress{w: w, tty: ok && wire.IsTerminal(f), what: what, total: total, start: time.Now()}
}

// Step counts one run done; on a terminal it redraws the line (at most ten
// times a second).
func (p *Progress) Step() {
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
func (p *Progress) line(elapsed time.Duration) string {
	left := elapsed / time.Duration(p.done) * time.Duration(p.total-p.done)
	return fmt.Sprintf("%s: %d of %d %s, %v, %.1f %s/s, about %v left", p.what, p.done, p.total, p.unit(),
		elapsed.Round(100*time.Millisecond), float64(p.done)/elapsed.Seconds(), p.unit(), left.Round(time.Second))
}

func (p *Progress) unit() string {
	if p.Units == "" {
		return "runs"
	}
	return p.Units
}

// Clear removes the live line (a terminal only).
func (p *Progress) Clear() {
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// Finish clears the live line and prints the summary.
func (p *Progress) Finish(how string) {
	p.Clear()
	fmt.Fprintf(p.w, "%s: %d runs in %v %s\n", p.what, p.done, time.Since(p.start).Round(10*time.Millisecond), how)
}
