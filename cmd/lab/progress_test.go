package main

import (
	"bytes"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/torture"
)

// On a terminal a batch's progress is one line redrawn in place with the
// count, the rate and the time left; elsewhere (a pipe, a file: --json's
// stdout is never touched) steps print nothing and only the summary shows.
func TestProgressLine(t *testing.T) {
	var buf bytes.Buffer
	p := &progress{w: &buf, tty: true, what: "lab torture", total: 40, units: "labs", start: time.Now().Add(-2 * time.Second)}
	p.step()
	got := buf.String()
	if !strings.HasPrefix(got, "\r\033[Klab torture: 1 of 40 labs, 2s, 0.5 labs/s, about 1m18s left") {
		t.Errorf("progress line %q", got)
	}
	p.clear()
	if !strings.HasSuffix(buf.String(), "\r\033[K") {
		t.Errorf("clear left %q", buf.String())
	}
	buf.Reset()
	q := newProgress(&buf, "lab sweep x", 3) // not a terminal
	q.step()
	q.clear()
	if buf.Len() != 0 {
		t.Errorf("off a terminal a step printed %q", buf.String())
	}
	q.finish("on 1 workers")
	if !strings.HasPrefix(buf.String(), "lab sweep x: 1 runs in ") {
		t.Errorf("summary %q", buf.String())
	}
}

// torture.Run calls Step once per lab: lab torture's progress counts every
// lab.
func TestTortureSteps(t *testing.T) {
	var n atomic.Int64
	s := torture.Run(torture.Config{First: 1, Runs: 6, Workers: 2, Shrink: 0, ShrinkRuns: 1, Dir: os.TempDir(), Step: func() { n.Add(1) }})
	if n.Load() != 6 || s.Labs != 6 {
		t.Errorf("%d steps for %d labs, want 6", n.Load(), s.Labs)
	}
}
