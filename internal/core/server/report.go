package server

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// ReportWindow is the span a server's load report measures its rates and
// its utilization over (docs/model.md, "Load reports").
const ReportWindow = time.Second

// meter measures what the server's load report says over a sliding window of
// ReportWindow, in O(1) a step: the time fixed windows [kW, (k+1)W) of the
// busy workers' time and of the counts, the current one so far and the last
// whole one, read as the current one plus the share of the last that the
// sliding window still covers (the last window's figure taken as spread
// evenly over it). The server ticks it before anything changes the busy
// workers or the counts (advance ticks at each event it fires and at the
// instant it reaches, which every method that changes anything calls
// first), so every change falls in the right window, and sets busy right
// after each change of the busy workers (start, finish, kill).
type meter struct {
	start     clock.Instant // the current window's start, a multiple of ReportWindow
	last      clock.Instant // the busy workers' time is accrued up to here
	busy      int           // the busy workers since last (kept by start, finish and kill)
	cur, prev tally         // the current window so far, and the whole window before it
	at        counts        // the counts at the current window's start
}

// tally is one window's busy-worker time (ns) and counts.
type tally struct {
	busyNs float64
	counts
}

// counts are the server's totals a report turns into rates.
type counts struct{ arrived, failed uint64 }

// totals are the server's counts now: every arrival, and every answer that
// did not succeed (errors, rejections, drops; faults drawn by the caller's
// request count as their status says).
func (s *Server) totals() counts {
	return counts{arrived: s.arrived, failed: s.errors + s.rejected + s.dropped}
}

// tick brings the meter to t: closes the windows that ended at or before t
// and accrues the busy workers' time up to t. Call it before a change of
// the busy workers or of the counts at t.
func (s *Server) tick(t clock.Instant) {
	m := &s.meter
	if !s.cfg.Meter || t < m.last {
		return
	}
	m.cur, m.prev, m.at, m.start = m.rolled(t, s.totals())
	m.cur.busyNs += float64(m.busy) * float64(t.Sub(max(m.last, m.start)))
	m.last = t
}

// rolled is the meter's windows as of t without changing them: the
// current window so far, the last whole one, the counts at the current
// window's start and its start. The counts do not change between ticks, so
// c (the totals now) are the totals at any window boundary since the last
// tick.
func (m *meter) rolled(t clock.Instant, c counts) (cur, prev tally, at counts, start clock.Instant) {
	cur, prev, at, start = m.cur, m.prev, m.at, m.start
	if t < start.Add(ReportWindow) {
		return
	}
	end := start.Add(ReportWindow)
	closing := cur
	closing.busyNs += float64(m.busy) * float64(end.Sub(max(m.last, start)))
	closing.counts = counts{arrived: c.arrived - at.arrived, failed: c.failed - at.failed}
	k := int64(t.Sub(start) / ReportWindow) // whole windows since start
	start = start.Add(time.Duration(k) * ReportWindow)
	if k == 1 {
		prev = closing
	} else { // nothing changed in the windows after the closing one: busy all through, no counts
		prev = tally{busyNs: float64(m.busy) * float64(ReportWindow)}
	}
	// the current window so far starts with the busy time from its start
	// to the last tick, of which there is none (the last tick came before
	// it): tick accrues from max(last, start)
	return tally{}, prev, c, start
}

// Report is the server's load report at now (load.Report): its queue and
// workers in service now, and (with Config.Meter) its utilization and rates
// over the sliding ReportWindow ending at now. It changes nothing: reading a
// report is not an event (a driver reads it between the events it fires at
// now).
func (s *Server) Report(now clock.Instant) load.Report {
	m := &s.meter
	now = max(now, m.last)
	if !s.cfg.Meter {
		return load.Report{At: now, Valid: true, Queued: s.q.n, InService: s.svc.busy()}
	}
	c := s.totals()
	cur, prev, at, start := m.rolled(now, c)
	busyNs := cur.busyNs + float64(m.busy)*float64(now.Sub(max(m.last, start)))
	covered := 1 - float64(now.Sub(start))/float64(ReportWindow) // the share of the last window still in the sliding one
	w := ReportWindow.Seconds()
	r := load.Report{At: now, Valid: true, Queued: s.q.n, InService: s.svc.busy(),
		RPS: (float64(c.arrived-at.arrived) + covered*float64(prev.arrived)) / w,
		EPS: (float64(c.failed-at.failed) + covered*float64(prev.failed)) / w,
	}
	if s.cfg.Workers > 0 {
		r.Utilization = min((busyNs+covered*prev.busyNs)/(float64(s.cfg.Workers)*float64(ReportWindow)), 1)
	}
	return r
}
