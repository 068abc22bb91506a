package loadgen

import (
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/wire"
)

// interruptDrain is how long a run stopped by a signal waits for the
// requests still out before it cuts them off.
const interruptDrain = 2 * time.Second

// cutOff ends everything still pending at the drain limit as timed out.
func (l *loop) cutOff(now clock.Instant) {
	if now < l.cutAt || l.cut {
		return // a cut-off moved later never happens; an earlier one already ran
	}
	l.dropHeld(now)
	for _, t := range l.targets {
		t.rt.EachAttempt(func(_ uint64, a *attempt) {
			if a.Net.ep >= 0 && !a.Answered { // sent, and no answer yet: it will get none
				t.kinds[report.ErrCutOff]++
			}
		})
		if n := t.rt.Pending(); n > 0 {
			l.log.Warn("drain limit: cutting off requests still pending", zap.String("target", t.name), zap.Int("pending", n))
			t.logf(now, "drain limit reached: requests still pending end as timed out")
		}
		t.rt.CutOff(now)
	}
	l.cut = true
}

// dropHeld gives up on the requests the in-flight cap still holds at the
// cut-off: never started, they are not in the report's requests, and the
// end-of-run warning counts them with the rest of the stream's arrivals
// before the end of the run.
func (l *loop) dropHeld(now clock.Instant) {
	arrival := false
	for _, e := range l.held {
		arrival = arrival || e.kind == evArrival && e.b == l.arrGen
	}
	l.held = nil
	if !arrival {
		return
	}
	for r := l.next; r.At < l.stopAt; r = l.arrivals.Next() {
		l.unsent++
	}
	for _, t := range l.targets {
		t.logf(now, fmt.Sprintf("drain limit reached: %d requests of the stream never started (in-flight cap)", l.unsent))
	}
}

// interrupt stops the arrivals now (SIGINT) and drains briefly.
func (l *loop) interrupt(now clock.Instant) {
	l.interrupted = true
	if now >= l.stopAt {
		l.cutAt = min(l.cutAt, now.Add(interruptDrain))
	} else {
		l.stopAt, l.cutAt = now, now.Add(min(l.cfg.Drain, interruptDrain))
		l.arrGen++ // the pending arrival never comes
	}
	l.q.push(event{at: l.cutAt, kind: evCut})
	for _, t := range l.targets {
		t.rt.StopAt(l.stopAt)
		t.logf(now, "interrupted: arrivals stopped")
	}
}

// shutdown closes every connection, collects the attempts still out and
// stops the timer, so no goroutine outlives Run.
func (l *loop) shutdown() {
	if !l.interrupted {
		// The losers of the last hedge races are still cancelled, as in the
		// model: each cancellation takes a hop and at most CancelWait.
		waitGroup(&l.tr.cancels, wire.CancelWait+time.Second, l.log)
	}
	l.tr.shutdown()
	for _, t := range l.targets {
		for _, ep := range t.eps {
			ep.pool.CloseIdleConnections()
		}
	}
	limit := time.NewTimer(5 * time.Second)
	defer limit.Stop()
	for l.inflight > 0 {
		select {
		case <-l.results:
			l.inflight--
		case <-limit.C:
			l.log.Warn("attempts still in flight after shutdown", zap.Int("attempts", l.inflight))
			l.inflight = 0
		}
	}
	close(l.tr.quit)
	waitGroup(&l.tr.wg, 5*time.Second, l.log)
	l.timer.Stop()
	l.prog.clear()
}

// waitGroup waits for wg, but at most limit: a stuck HTTP exchange must not
// keep the report from being printed.
func waitGroup(wg *sync.WaitGroup, limit time.Duration, log *zap.Logger) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		log.Warn("attempt goroutines still running after shutdown")
	}
}
