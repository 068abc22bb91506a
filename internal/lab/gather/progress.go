package gather

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Progress keeps one live line on a terminal while a setting runs:
// elapsed of total, achieved vs target rate, p50/p99 so far and errors. It
// reads the loadgen's admin state twice a second; off a terminal it is quiet.
func Progress(ctx context.Context, w io.Writer, lg *proc.Proc, total time.Duration) {
	f, ok := w.(*os.File)
	if !ok || !wire.IsTerminal(f) {
		return
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	defer fmt.Fprint(w, "\r\033[K")
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		var st state.Loadgen
		if admin.Call(ctx, lg.Ready.Admin, "GET", "/admin/state", nil, &st) != nil || len(st.Targets) == 0 {
			continue
		}
		fmt.Fprint(w, "\r\033[K"+progressText(st, total))
	}
}

// progressText is the progress line for one loadgen state.
func progressText(st state.Loadgen, total time.Duration) string {
	t := st.Targets[0]
	achieved := 0.0
	if st.ElapsedS > 0 {
		achieved = float64(t.Requests) / st.ElapsedS
	}
	line := fmt.Sprintf("  %5.1fs of %v  %6.0f/s of %g/s  p50 %.1fms  p99 %.1fms  errors %d  rejected %d  timeouts %d",
		st.ElapsedS, total, achieved, st.Rate, t.P50, t.P99, t.Errors, t.Rejected, t.Timeouts)
	if st.Late > 0 {
		line += fmt.Sprintf("  LATE %d", st.Late)
	}
	return line
}
