package sim

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/report/verdict"
	"github.com/lblab/lblab/internal/stats"
	"github.com/lblab/lblab/internal/workload"
)

// A Session is one simulated run that stops wherever it is told: AdvanceTo
// fires the events due up to a virtual instant, in the order Run fires
// them, so a session run to its end reports exactly what Run reports for
// the same lab, and the state at an instant does not depend on the steps
// taken to reach it. A drill taken at the instant reached becomes an event
// of the lab's script at that instant (Drill); the run is then replayed
// from 0 with it, which is what Run does with the saved lab. Not safe for
// concurrent use.
type Session struct {
	lab    *labfile.Lab // as given, with the drills so far in its script
	name   string
	opts   SessionOptions
	w      *world
	at     clock.Instant // the instant reached
	ended  bool
	res    Result
	err    error
	frames []State            // the newest opts.Frames bin-end states, oldest first
	lat    []*stats.Histogram // the newest opts.LatencyBins bins' latencies, a ring by bin number
	nbins  int                // bins closed so far
	nlat   int                // bin latencies kept so far
	kinds  []server.Kind
	ids    []uint64
	drills []labfile.Event // taken so far, in the order taken
	// log is Log's answer for logAt (the log's and the bins' lengths, and
	// whether the run had ended); restart forgets it.
	log   []report.LogLine
	logAt [3]int
}

// DrainLimit is how long after the end of the arrivals a run lets pending
// requests finish before it cuts them off.
const DrainLimit = time.Duration(drainLimit)

// SessionOptions tune a session. The series is always kept.
type SessionOptions struct {
	Options
	// Frames is how many bin-end states to keep (Frames); 0 keeps none.
	Frames int
	// LatencyBins is how many of the newest bins WindowLatency covers; 0
	// keeps no per-bin latency beyond the series.
	LatencyBins int
	// Trips is how many followed requests to keep (Trips); 0 follows none.
	Trips int
}

// NewSession starts a session of lab at virtual instant 0 (no event fired
// yet). The lab must validate; the session keeps its own copy.
func NewSession(lab *labfile.Lab, opts SessionOptions) (*Session, error) {
	opts.Series = true
	opts.trips = opts.Trips
	s := &Session{lab: lab.Clone(), opts: opts}
	s.name = s.lab.Balancers.Algorithm
	if s.lab.Clients.Algorithm != "" {
		s.name = s.lab.Clients.Algorithm
	}
	if err := s.restart(); err != nil {
		return nil, err
	}
	return s, nil
}

// restart builds the world afresh from the lab and its script.
func (s *Session) restart() error {
	if s.w != nil {
		s.w.closeReplay()
	}
	w, err := newWorld(s.lab.Clone(), s.name, s.opts.Options)
	if err != nil {
		return err
	}
	s.w, s.at, s.ended, s.res, s.err, s.frames, s.nbins = w, 0, false, Result{}, nil, nil, 0
	s.log, s.logAt = nil, [3]int{-1}
	s.lat = make([]*stats.Histogram, s.opts.LatencyBins)
	for i := range s.lat {
		s.lat[i] = stats.NewHistogram()
	}
	w.onBin = s.binClosing
	w.keeps = s.keeps
	if len(s.lat) > 0 {
		s.nlat = 0
		w.rt.Rec.OnBinLatency = s.keepLatency
	}
	w.start()
	if s.opts.Frames > 0 {
		s.frames = append(s.frames, s.state(0, false)) // the start: the first bin's beginning
	}
	return nil
}

// keeps adds what the session keeps to what its world holds (the memory
// guard's count): its frames and its window's latency histograms.
func (s *Session) keeps(h *assemble.Held) {
	var servers, views int
	for _, f := range s.frames {
		servers += len(f.Servers)
		for _, b := range f.Balancers {
			views += len(b.Servers)
		}
	}
	h.FrameServers, h.FrameViews, h.Histograms = servers, views, len(s.lat)
}

// Memory is what the session's run holds now, as its memory guard weighs
// it (assemble.Built of the lab as the script has changed it, and
// assemble.Held with the session's frames).
func (s *Session) Memory() float64 {
	m, _, _ := s.w.memory()
	return m
}

// binClosing looks at the world as a series bin closes, before the
// recorder empties the bin.
func (s *Session) binClosing() {
	s.nbins++
	if s.opts.Frames > 0 {
		if len(s.frames) == s.opts.Frames {
			s.frames = append(s.frames[:0], s.frames[1:]...)
		}
		s.frames = append(s.frames, s.state(s.w.now, false))
	}
}

// keepLatency keeps a closed bin's latency histogram in the ring, in place
// of the oldest, which is emptied for the next bin.
func (s *Session) keepLatency(closed *stats.Histogram) *stats.Histogram {
	i := s.nlat % len(s.lat)
	s.nlat++
	old := s.lat[i]
	s.lat[i] = closed
	old.Reset()
	return old
}

// AdvanceTo fires every event due at or before t and stops there (at the
// run's end instead when the run ends first). An instant before the one
// reached is an error: use Seek to go back.
func (s *Session) AdvanceTo(t clock.Instant) error {
	if t < s.at {
		return fmt.Errorf("advance to %v: the session is already at %v (seek to go back)", time.Duration(t), time.Duration(s.at))
	}
	if s.ended {
		return nil
	}
	if !s.w.loopUntil(t) {
		s.at = t
		return nil
	}
	s.ended, s.at = true, s.w.now
	s.res, s.err = s.w.result()
	s.w.closeReplay()
	return nil
}

// AdvanceWithin is AdvanceTo(t) in a slice: it stops sooner, at a guard's
// look (every 1,024 events), once the run has done work more work
// (assemble.Work: events and scanning picks' visits) in it, and reports
// whether it reached t (or the run's end). Steps of it fire the events one
// AdvanceTo(t) fires, in the same order; a slice that stops short leaves
// the session at the instant of its last event (Now), some events of that
// instant possibly still to fire. A host that must answer in time (the
// page, lab watch) plays in such slices.
func (s *Session) AdvanceWithin(t clock.Instant, work float64) (bool, error) {
	if t < s.at {
		return false, fmt.Errorf("advance to %v: the session is already at %v (seek to go back)", time.Duration(t), time.Duration(s.at))
	}
	if s.ended {
		return true, nil
	}
	w := s.w
	w.slice, w.sliced = assemble.Work(w.events, w.visits())+work, false
	defer func() { w.slice = 0 }()
	if !w.loopUntil(t) {
		if w.sliced {
			s.at = max(s.at, w.now)
			return false, nil
		}
		s.at = t
		return true, nil
	}
	s.ended, s.at = true, w.now
	s.res, s.err = w.result()
	w.closeReplay()
	return true, nil
}

// Seek goes to virtual instant t: the run is replayed from 0 with the
// drills taken so far (the run is deterministic, so the state at t is the
// one any earlier pass through t showed).
func (s *Session) Seek(t clock.Instant) error {
	if err := s.Rewind(); err != nil {
		return err
	}
	return s.AdvanceTo(t)
}

// Rewind goes back to virtual instant 0, the drills taken so far kept in
// the script: Seek(t) is Rewind and AdvanceTo(t), and a host that must
// keep answering (lab watch) replays to t in slices (AdvanceWithin).
func (s *Session) Rewind() error { return s.restart() }

// Worked is the simulator work (assemble.Work: the events fired and
// the scanning picks' visits) the run has done since it last started
// from 0 (NewSession, Rewind, Seek, a drill): what replaying it to the
// instant reached costs. AdvanceWithin's slices are in the same unit, so
// a host bounds a replay's steps by it (lab watch's moves).
func (s *Session) Worked() float64 { return assemble.Work(s.w.events, s.w.visits()) }

// Now is the virtual instant reached.
func (s *Session) Now() clock.Instant { return s.at }

// Ended reports whether the run is over (Result is then its report row).
func (s *Session) Ended() bool { return s.ended }

// Duration is the lab's duration: arrivals end there; the run ends when
// the last request has.
func (s *Session) Duration() time.Duration { return s.lab.Duration }

// Result is the report row of the ended run, as Run returns it.
func (s *Session) Result() (Result, error) {
	if !s.ended {
		return Result{}, errors.New("the session's run has not ended")
	}
	return s.res, s.err
}

// Lab is a copy of the lab with the drills taken so far in its script:
// Run on it gives this session's run.
func (s *Session) Lab() *labfile.Lab { return s.lab.Clone() }

// Settings is a copy of the lab as the script has changed it so far (its
// rate, algorithm and settings in force now).
func (s *Session) Settings() *labfile.Lab { return s.w.lab.Clone() }

// Drill applies ev at the instant reached, as the lab's script would: it
// joins the script at that instant (after the events already there), the
// lab is validated as a lab file would be, and the run is replayed from 0
// up to the instant, so the saved lab reproduces the session exactly. It
// returns the event as recorded.
func (s *Session) Drill(ev labfile.Event) (labfile.Event, error) {
	rec, at, err := s.DrillRewound(ev)
	if err != nil {
		return rec, err
	}
	return rec, s.AdvanceTo(at)
}

// DrillRewound is Drill without its replay: the drill joins the script at
// the instant reached and the session is rewound to 0; replaying it to the
// instant returned (AdvanceTo, or AdvanceWithin in slices) leaves it where
// Drill does. A refused drill changes nothing.
func (s *Session) DrillRewound(ev labfile.Event) (labfile.Event, clock.Instant, error) {
	if s.ended || s.at >= clock.Instant(s.lab.Duration) {
		return ev, s.at, fmt.Errorf("the lab's arrivals ended at %v: a drill must come before (seek back, or restart)", s.lab.Duration)
	}
	ev.At = time.Duration(s.at)
	next := s.lab.Clone()
	i := len(next.Events)
	for i > 0 && next.Events[i-1].At > ev.At {
		i--
	}
	next.Events = append(next.Events[:i], append([]labfile.Event{ev}, next.Events[i:]...)...)
	if err := next.Validate(); err != nil {
		return ev, s.at, err
	}
	old, at := s.lab, s.at
	s.lab = next
	if err := s.Rewind(); err != nil {
		s.lab = old
		return ev, at, errors.Join(err, s.Seek(at))
	}
	s.drills = append(s.drills, next.Events[i])
	return next.Events[i], at, nil
}

// Drills are the drills taken so far, as they joined the script.
func (s *Session) Drills() []labfile.Event { return append([]labfile.Event(nil), s.drills...) }

// Log is the event log so far (script events, breaker transitions, health
// and outlier changes), as Run's report carries it, with the recovery
// verdicts the bins so far decide on the script's transients, drills
// included (verdict.RecoveryLines), in time order: what the dashboard's
// event log shows. The report keeps its verdicts in its own field.
// The lines are worked out again only when the log, the bins or the end
// have moved since the last call (playback asks at every tick).
func (s *Session) Log() []report.LogLine {
	ended := 0
	if s.ended {
		ended = 1
	}
	at := [3]int{len(s.w.col.Log), len(s.Bins()), ended}
	if at == s.logAt {
		return s.log
	}
	s.log, s.logAt = s.w.col.Log, at
	if verdicts := verdict.RecoveryLines(s.lab, s.Bins(), s.ended); len(verdicts) > 0 {
		out := make([]report.LogLine, 0, len(s.w.col.Log)+len(verdicts))
		out = append(append(out, s.w.col.Log...), verdicts...)
		slices.SortStableFunc(out, func(a, b report.LogLine) int { return cmp.Compare(a.T, b.T) })
		s.log = out
	}
	return s.log
}

// Bins are the 250 ms bins closed so far, as Run's series reports them.
func (s *Session) Bins() []report.Bin { return s.w.rt.Rec.Bins }

// Frames are the newest SessionOptions.Frames states at bin boundaries
// (counters only: no queued attempts, latency since the start or balancer
// views beyond the picks), oldest first: at 0, then at the end of each bin as it closed (the last
// frame is the last bin's, the one before it the bin before's, and so on).
func (s *Session) Frames() []State { return s.frames }

// WindowLatency is the p50 and p99 of the requests that succeeded over the
// newest SessionOptions.LatencyBins bins closed (fewer at the start); ok
// is false when none did.
func (s *Session) WindowLatency() (p50, p99 time.Duration, ok bool) {
	h := stats.NewHistogram()
	for _, b := range s.lat {
		h.Merge(b)
	}
	if h.Count() == 0 {
		return 0, 0, false
	}
	return h.Quantile(0.5), h.Quantile(0.99), true
}

// State is what a simulated world shows at one instant: what the live
// processes report on their admin APIs, read without changing anything.
type State struct {
	T         clock.Instant
	Clients   ClientState
	Servers   []ServerState
	Balancers []BalancerState // empty when the clients balance themselves
}

// ClientState is the clients' side.
type ClientState struct {
	Counts   report.Counts // since the start
	Pending  int           // requests started and not ended
	Open     bool          // open loop (else closed, Users users)
	Rate     float64       // open loop: the target rate in force (a profile's rate now)
	Users    int
	P50, P99 time.Duration // successful requests since the start
}

// ServerState is one server.
type ServerState struct {
	server.Snapshot
	Spec  labfile.NamedServer // its settings now (configured speed, errors, queue)
	Kinds []server.Kind       // its queue's kinds, oldest first
	// Abandoned marks, in Kinds' order, the queued attempts whose client no
	// longer waits for them: it has given up on them, or another attempt
	// of the request has answered.
	Abandoned []bool
	Sent      uint64 // attempts that reached it
	Removed   bool
}

// BalancerState is one balancer of the tier.
type BalancerState struct {
	Name      string
	Algorithm string
	Picks     uint64
	Servers   []BalancerView // by server, in the world's order
	// Pool is a probing algorithm's pool of answers (prequal), by global
	// server index; nil for the others and in frames
	Pool []balance.PoolEntry
	// Idle is an idle-queue algorithm's queue (jiq); nil for the others
	// and in frames
	Idle *IdleState
}

// IdleState is a balancer's idle queue (jiq): the announcements it took,
// its picks that took a server off it, and the queue, head first, by
// global server index.
type IdleState struct {
	Received, FromQueue uint64
	Queue               []int
}

// BalancerView is what one balancer knows of one server.
type BalancerView struct {
	Picks       uint64
	Outstanding int
	Queued      int
	InService   int
	EWMA        time.Duration
	Breaker     breaker.State
	Healthy     bool
	Ejected     bool
	Member      bool
	Present     bool
	Weight      float64
	// Utilization is the server's last load report's (0 without one) and
	// ORCAWeight the weight wrr-orca gives it now (policy.Balancer.ReportedWeight)
	Utilization, ORCAWeight float64
}

// State is the world at the instant reached.
func (s *Session) State() State { return s.state(s.at, true) }

// state is the world's state at at; queues says whether to list the queued
// attempts, the latency since the start and the balancers' views beyond
// their picks (frames do without: their bins need only the counters).
func (s *Session) state(at clock.Instant, queues bool) State {
	w := s.w
	rec := w.rt.Rec
	st := State{T: at, Clients: ClientState{Counts: rec.Total, Pending: int(rec.Pending()), Open: w.users == 0,
		Users: w.users}}
	if queues {
		st.Clients.P50, st.Clients.P99 = rec.Lat.Quantile(0.5), rec.Lat.Quantile(0.99)
	}
	if st.Clients.Open {
		st.Clients.Rate = w.lab.Clients.Rate
		if ws, ok := w.stream.(*workload.Stream); ok {
			st.Clients.Rate = ws.RateAt(min(at, w.stopAt))
		}
	}
	for _, sv := range w.servers {
		ss := ServerState{Snapshot: sv.core.Peek(), Spec: sv.spec, Sent: sv.sent, Removed: sv.removed}
		if !queues {
			st.Servers = append(st.Servers, ss)
			continue
		}
		s.kinds, s.ids = sv.core.QueuedKinds(s.kinds), sv.core.QueuedIDs(s.ids)
		ss.Kinds = append([]server.Kind(nil), s.kinds...)
		for i, id := range s.ids {
			if a := w.attemptOf(id); a == nil || a.Answered {
				if ss.Abandoned == nil {
					ss.Abandoned = make([]bool, len(s.ids))
				}
				ss.Abandoned[i] = true
			}
		}
		st.Servers = append(st.Servers, ss)
	}
	if w.clientLB {
		return st
	}
	for bi, b := range w.bals {
		bs := BalancerState{Name: BalancerName(bi), Algorithm: b.Algorithm()}
		if !queues { // a frame: the picks are all its bins need
			for i := range w.servers {
				v := BalancerView{Picks: b.Picked(i)}
				if w, ok := b.ReportedWeight(at, i); ok {
					v.ORCAWeight = w
				}
				bs.Picks += v.Picks
				bs.Servers = append(bs.Servers, v)
			}
			st.Balancers = append(st.Balancers, bs)
			continue
		}
		member := make([]bool, len(w.servers))
		for _, i := range b.Members() {
			if i < len(member) {
				member[i] = true
			}
		}
		loads := b.Loads()
		bs.Pool = b.Pool()
		if b.Idling() {
			bs.Idle = &IdleState{Received: b.IdleReceived(), FromQueue: b.IdlePicks(), Queue: b.IdleQueue(nil)}
		}
		for i, sv := range w.servers {
			v := BalancerView{Picks: b.Picked(i), Breaker: b.PeekBreaker(at, i), Healthy: w.health.Healthy(i),
				Ejected: b.Ejected(i), Member: member[i], Present: !sv.removed, Weight: sv.spec.Speed}
			if i < len(loads.Stats) {
				ls := &loads.Stats[i]
				v.Outstanding, v.EWMA = ls.Outstanding, time.Duration(ls.Latency.Value())
				if ls.Last.Valid {
					v.Queued, v.InService, v.Utilization = ls.Queued, ls.Last.InService, ls.Last.Utilization
				}
			}
			bs.Picks += v.Picks
			bs.Servers = append(bs.Servers, v)
		}
		st.Balancers = append(st.Balancers, bs)
	}
	return st
}

// BalancerName is the name of the tier's balancer i, as the live lab
// names its lb processes.
func BalancerName(i int) string { return fmt.Sprintf("lb%d", i+1) }
