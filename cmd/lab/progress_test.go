package main

import (
	"os"
	"sync/atomic"
	"testing"

	"github.com/lblab/lblab/internal/torture"
)

// torture.Run calls Step once per lab: lab torture's progress counts every
// lab.
func TestTortureSteps(t *testing.T) {
	var n atomic.Int64
	s := torture.Run(torture.Config{First: 1, Runs: 6, Workers: 2, Shrink: 0, ShrinkRuns: 1, Dir: os.TempDir(), Step: func() { n.Add(1) }})
	if n.Load() != 6 || s.Labs != 6 {
		t.Errorf("%d steps for %d labs, want 6", n.Load(), s.Labs)
	}
}
