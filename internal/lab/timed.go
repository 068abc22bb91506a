package lab

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
)

// undoTimers are the pending undos of a run's time-boxed events. The run
// owns them: they fire whether or not a dashboard is open, and stop with
// the run.
type undoTimers struct {
	mu      sync.Mutex
	stopped bool
	timers  []*time.Timer
}

// after runs f after d unless the timers have been stopped.
func (u *undoTimers) after(d time.Duration, f func()) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.stopped {
		u.timers = append(u.timers, time.AfterFunc(d, f))
	}
}

// stop cancels every pending undo.
func (u *undoTimers) stop() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stopped = true
	for _, t := range u.timers {
		t.Stop()
	}
}

// fire applies event ev to the run now, logs it (prefix "chaos: " for a
// drill, "" for a script event) and records it in the run's lab copy;
// drill says whether it is a drill (an add-server or remove-server drill
// joins the lab copy's events, a script's is there already). A time-boxed
// event's undo (labfile.Undo, from the lab as it is just before ev) is then
// scheduled For after the instant ev was applied, on the run's own timer;
// it is logged as the event's end when it applies. The returned undo is the
// zero Event when there is none.
func (r *liveRun) fire(ctx context.Context, ev labfile.Event, prefix string, drill bool) (labfile.Event, error) {
	var undo labfile.Event
	var undoErr error
	if ev.For > 0 {
		undo, undoErr = labfile.Undo(r.Lab(), ev)
	}
	// The event's instant is when it is applied, as in the simulator: its
	// line is stamped then and its undo comes For after it, not after the
	// processes answered (a backend's kill waits for its data listener to
	// close: about 100 ms).
	at := time.Now()
	err := r.sc.apply(ctx, ev)
	text := prefix + ev.String()
	if err != nil {
		text += " failed: " + err.Error()
	}
	r.sc.events.Add(at, text)
	if err != nil {
		return labfile.Event{}, err
	}
	r.record(ev, drill)
	if ev.For <= 0 {
		return labfile.Event{}, nil
	}
	if undoErr != nil {
		r.sc.events.Add(time.Now(), prefix+ev.String()+": no undo: "+undoErr.Error())
		return labfile.Event{}, nil
	}
	r.undos.after(ev.For-time.Since(at), func() { r.undo(undo, ev, prefix) })
	return undo, nil
}

// undo applies the undo of a time-boxed event (on the run's context: the
// drill's request is long gone) and logs it as that event's end.
func (r *liveRun) undo(undo, cause labfile.Event, prefix string) {
	if r.ctx.Err() != nil {
		return
	}
	text := prefix + labfile.UndoText(undo, cause)
	at := time.Now() // stamped when applied, as fire stamps its event
	if err := r.sc.apply(r.ctx, undo); err != nil {
		r.sc.log.Warn("an undo failed", zap.String("undo", undo.String()), zap.Error(err))
		r.sc.events.Add(at, text+" failed: "+err.Error())
		return
	}
	r.sc.events.Add(at, text)
	r.record(undo, true)
}

// runScript fires the lab's script events at their time after the start of
// the run; it returns when all have fired or the run ends.
func (r *liveRun) runScript(events []labfile.Event) {
	r.sc.run(r.ctx, events, func(ev labfile.Event) {
		if _, err := r.fire(r.ctx, ev, "", false); err != nil {
			r.sc.log.Warn("script event failed", zap.String("event", ev.String()), zap.Error(err))
		}
	})
}
