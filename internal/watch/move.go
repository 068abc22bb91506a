package watch

import (
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/lab/dash"
)

// Moves (issue 33). A seek (seek_s), a step (step, step_event) and a
// drill's replay (POST /api/chaos) replay the run, from 0 or from the
// instant reached, to an instant of their own: in a heavy lab (10,000
// servers scanned by least-response-time, 1,000 servers of
// balls-into-bins) seconds of CPU. They are moves, which playback carries
// out in slices of sliceWork as it plays (playLocked, on its tick, paused
// or not, in lab watch's loop and in the page's wasm module alike), so the
// lock is let go between slices and the API answers meanwhile. The
// decisions:
//
//   - The POST that starts a move plays at most postWork of it itself
//     (about one tick's budget; counted in simulator work, not wall time,
//     so its answer is the same on any machine), then answers: a seek in a
//     light lab is done when it answers, as it was before moves, and one in
//     a heavy lab answers with the move going on (playback.seeking_to_s).
//   - While a move goes on, t_s is the instant its replay is at and the
//     snapshots show that instant; seeking_to_s is where it goes
//     (seeking_event when step_event's search for the next line goes on).
//   - A newer move replaces the one going on: its target is replaced, and
//     the run is rewound only when the new target is behind the instant
//     the replay is at. A step or step_event during a move steps from the
//     move's target. restart, a scenario, a lab posted, a fleet rebuilt or
//     a cell of the map (new sessions, no replay) drop it.
//   - A drill (POST /api/chaos) takes sim.Session.DrillRewound at once and
//     leaves the replay to the instant it applied at to a move, so it
//     still answers that instant (at_s) and its undo. During a move it is
//     refused with 409: the settings it would apply over (its undo's, its
//     cost's) are those at the move's target, which the replay has not
//     reached yet.
//   - pause_at_s before the move's target is refused (400) as before one
//     before the instant reached; playback pauses there once the move has
//     arrived and plays on.
//   - A sliced move leaves the session exactly where the synchronous
//     replay did (sim.Session: the state at an instant does not depend on
//     the steps taken to reach it; TestSlicedSeekIsTheSeek).

// postWork is how much of a move (simulator work, sim.Session.Worked)
// the POST that starts it plays itself before it answers: eight slices,
// about one tick's budget.
const postWork = 8 * sliceWork

// move is a replay playback carries out in slices.
type move struct {
	to     clock.Instant // where it goes
	rewind bool          // the run goes back to 0 first (to is behind the instant reached)
	// line: step_event's, on from to, bin by bin, until the event log has
	// a line more than lines (-1: counted on reaching to), then to that
	// line's instant.
	line  bool
	lines int
}

// seekLocked starts a move to t, replacing the one going on, if any.
// Caller holds mu.
func (s *Server) seekLocked(t clock.Instant) {
	rewind := t < s.sess.Now() || s.mv != nil && s.mv.rewind
	s.mv = &move{to: t, rewind: rewind, lines: -1}
}

// reachedLocked is where playback is once the move going on, if any, has
// arrived: the instant reached, or the move's target. Caller holds mu.
func (s *Server) reachedLocked() clock.Instant {
	if s.mv != nil {
		return s.mv.to
	}
	return s.sess.Now()
}

// stepLocked starts a move to the end of the 250 ms bin of the instant
// reached (of the move's target, during one): step. Caller holds mu.
func (s *Server) stepLocked() {
	at := s.reachedLocked()
	rewind := s.mv != nil && s.mv.rewind
	s.mv = &move{to: (at/bin + 1) * bin, rewind: rewind, lines: -1}
}

// stepLineLocked starts a move to the instant of the event log's next
// line (a script event, a breaker transition, a health verdict ...), or
// to the end of the run: bin by bin until a line appears, then back to
// its instant exactly (step_event). During a move, the lines are counted
// from its target. Caller holds mu.
func (s *Server) stepLineLocked() {
	if s.mv != nil {
		s.mv = &move{to: s.mv.to, rewind: s.mv.rewind, line: true, lines: -1}
		return
	}
	s.mv = &move{to: (s.sess.Now()/bin + 1) * bin, line: true, lines: len(s.sess.Log())}
}

// moveOnLocked carries the move going on by at most work of simulator
// work (sim.Session.Worked; 0: no bound), in slices of sliceWork at most,
// stopping sooner once it has arrived, once the wall clock passes stop
// (unless zero) or, if yield, once a request of the API waits for the
// lock. A rewind is a slice of its own (a large world takes a while to
// build) and counts no work. A failed replay drops the move and is
// returned. Caller holds mu.
func (s *Server) moveOnLocked(work float64, stop time.Time, yield bool) error {
	for left := work; s.mv != nil && (work == 0 || left > 0); {
		m := s.mv
		s.dirty = true
		if m.rewind {
			m.rewind = false
			if err := s.sess.Rewind(); err != nil {
				s.mv = nil
				return err
			}
		} else {
			slice := float64(sliceWork)
			if work > 0 {
				slice = min(slice, left)
			}
			before := s.sess.Worked()
			reached, err := s.sess.AdvanceWithin(m.to, slice)
			if err != nil {
				s.mv = nil
				return err
			}
			left -= s.sess.Worked() - before
			if reached {
				s.arrivedLocked(m)
			}
		}
		if !stop.IsZero() && time.Now().After(stop) || yield && s.mu.waited() {
			break
		}
	}
	return nil
}

// arrivedLocked is move m reaching its target: it ends, unless it looks
// for the event log's next line, which it then goes on to (or to the
// next bin's end). As the synchronous step_event did, the log is looked
// at the end of each bin only. Caller holds mu.
func (s *Server) arrivedLocked(m *move) {
	if !m.line {
		s.mv = nil
		return
	}
	log := s.sess.Log()
	if m.lines < 0 {
		m.lines = len(log)
	} else if len(log) > m.lines {
		at := clock.Instant(math.Round(log[m.lines].T * 1e9))
		if at == s.sess.Now() {
			s.mv = nil
		} else {
			s.mv = &move{to: at, rewind: at < s.sess.Now(), lines: -1}
		}
		return
	}
	if s.sess.Ended() { // the run ended first
		s.mv = nil
		return
	}
	m.to = (s.sess.Now()/bin + 1) * bin
}

// moveLocked plays the move just started as far as s.postWork allows
// (postWork; tests set 0: none), before its POST answers. Caller holds
// mu.
func (s *Server) moveLocked() error {
	if s.mv == nil || s.postWork == 0 {
		return nil
	}
	if err := s.moveOnLocked(s.postWork, time.Time{}, false); err != nil {
		return dash.Fail(500, err)
	}
	return nil
}

// movingError is a drill's refusal during a move (409).
func (s *Server) movingError() error {
	return dash.Fail(409, fmt.Errorf("a seek is going on (to %g s, the replay at %g s): take the drill once it has arrived",
		time.Duration(s.mv.to).Seconds(), time.Duration(s.sess.Now()).Seconds()))
}
