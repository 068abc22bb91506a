// Package watch is lab watch: the live dashboard's page, driven by the
// simulator instead of processes. A sim.Session holds the run; this
// package paces it against the wall clock for playback (the simulator
// itself never reads one) and serves the same snapshot format, the same
// chaos API and the same bundle as the live controller, plus the playback
// controls. Every figure comes from virtual 250 ms bins, so the numbers at
// a virtual instant do not depend on the playback speed, pauses or the
// machine.
package watch

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/scenarios"
)

// The playback speeds (virtual seconds per wall second); "max" plays as
// fast as the machine allows.
const (
	MinSpeed = 0.1
	MaxSpeed = 1000.0
)

const (
	bin = clock.Instant(report.BinWidth)
	// tick is how often playback moves on and a snapshot is published.
	tick = 50 * time.Millisecond
	// budget is the wall time one tick may spend simulating; a speed the
	// machine cannot keep up with plays as fast as it can.
	budget = 40 * time.Millisecond
)

// Options are lab watch's.
type Options struct {
	// Lab is the lab as given, validated, with its compare settings (what
	// Compare all and the JSON report run); Setting names the one played
	// (SettingNamed: a compare setting or an algorithm; "" plays the lab
	// itself), applied as lab sim applies a compare setting, never
	// written into the lab the others run on.
	Lab               *labfile.Lab
	Scenario, Setting string // Scenario: the built-in scenario it is, for the page
	// File and Source are the lab file as given, its name and its bytes:
	// GET /api/source's. Without them a lab that is no scenario nor the
	// demo is marshalled (its comments lost).
	File   string
	Source []byte
	Speed  float64 // 0 means 1
	Paused bool
	Demo   bool   // loop the run until the first touch (a POST to the API)
	Access access // wire.Access (lab watch's server only)
	Log    logger // *zap.Logger (lab watch's server only)
	// Budget is what a lab may cost (zero: assemble.DefaultBudget), checked
	// as lab sim checks it, with its compare settings, before it plays:
	// the lab given, a scenario switched to, a fleet rebuilt and a drill
	// that changes settings (lab watch --max-cost N). A lab run from the
	// page (POST /api/lab) may ask for more with max_cost.
	Budget assemble.Budget
	// Busy, when set, is called after each snapshot published to show a
	// long request's progress (Work), from the goroutine answering it. The
	// page's wasm module sets it: its ticks wait while it answers, so it
	// hands the page those snapshots itself. lab watch's stream carries
	// them anyway.
	Busy func()
	// MapFile and Map are a metastability map to show (lab watch --map):
	// the file's name and the JSON of lab sweep --json over two axes of
	// this lab (map.go), checked before anything plays.
	MapFile string
	Map     []byte
}

// workEvery is how often a long request's progress is published.
const workEvery = 250 * time.Millisecond

// Server plays one lab and serves the dashboard.
type Server struct {
	mu       *queueLock        // lock.go: a request of the API waits for one slice of playback, not for its ticks
	base     *labfile.Lab      // the lab played: the setting applied, without the drills nor the compare settings
	plain    *labfile.Lab      // the lab as given, without the compare settings (what Compare all applies each to)
	compare  []labfile.Setting // its compare entries (Compare all runs them)
	scenario string
	setting  string // the setting played (its name; "" when the lab plays itself)
	sess     *sim.Session
	first    dash.Controls
	speed    float64 // 0 with max
	max      bool
	paused   bool
	pauseAt  clock.Instant // pause on reaching it (clock.Never: no such stop)
	wall     time.Time     // playback's anchor: at wall time wall ...
	virt     clock.Instant // ... the virtual time was virt
	dirty    bool          // something changed since the last snapshot
	stream   *dash.Stream
	log      logger
	access   access
	demo     bool                      // looping until the first touch
	loops    int                       // times the demo started again
	source   *source                   // the lab file as given (GET /api/source, /api/report.json)
	seq      uint64                    // snapshots published
	api      []dash.Route              // routeTable
	routes   *dash.Routes[dash.Handle] // api in memory, as Answer finds its routes
	budget   assemble.Budget           // Options.Budget: what a lab may cost
	allowed  assemble.Budget           // what the lab playing may cost: budget, or what POST /api/lab asked for
	work     *dash.Work                // the long request going on, if any (the newest when several are)
	busy     func()                    // Options.Busy
	every    time.Duration             // workEvery (tests set 0: every step published)
	pmap     *pageMap                  // the metastability map shown (map.go), if any
	cell     *MapCell                  // the map's cell playing, if one is
	maps     int                       // maps loaded so far
	mv       *move                     // the seek, step or drill's replay going on (move.go), if any
	// postWork is how much of a move its POST plays before it answers
	// (postWork; tests set 0), tickWork how much a tick plays at most (0:
	// as much as its budget allows; tests set a slice or less). Simulator work:
	// sim.Session.Worked.
	postWork, tickWork float64
	// long numbers the long requests (compare all, the JSON report, a lab
	// posted): each stops when a newer one starts (stopper).
	long atomic.Uint64
}

// sliceWork is how much simulator work (assemble.Work) playback does
// between two looks at the wall clock: about 5 ms at 100 ns an event, so
// a tick keeps to its budget however heavy a bin is. A tick also ends
// after the slice during which a request of the API came to wait for the
// lock (queueLock.waited), so the request waits for that slice and the
// snapshot the tick publishes, not for the tick's budget.
const sliceWork = 50_000

// stopper numbers a new long request (which stops the older ones) and
// returns what its runs ask (sim.Options.Stop): whether its client has
// gone away or a newer long request has started.
func (s *Server) stopper(req dash.Request) func() bool {
	mine := s.long.Add(1)
	return func() bool { return s.long.Load() != mine || req.Gone != nil && req.Gone() }
}

// stopped is the error of a long request: a 409 when its runs stopped
// because a newer one replaced it (its client, if gone, reads nothing).
func stopped(err error) error {
	if errors.Is(err, sim.ErrStopped) {
		return dash.Fail(409, err)
	}
	return err
}

// New prepares a server for opts (nothing runs before Serve).
func New(opts Options) (*Server, error) {
	s := &Server{mu: newQueueLock(), stream: dash.NewStream(), log: opts.Log, access: opts.Access, demo: opts.Demo, speed: opts.Speed, paused: opts.Paused, pauseAt: clock.Never,
		busy: opts.Busy, every: workEvery, budget: opts.Budget, postWork: postWork}
	if s.budget == (assemble.Budget{}) {
		s.budget = assemble.DefaultBudget
	}
	s.log = orNop(s.log)
	s.api = s.routeTable()
	s.routes = dash.InMemory(s.api)
	if s.speed == 0 {
		s.speed = 1
	}
	if err := CheckSpeed(s.speed); err != nil {
		return nil, err
	}
	if opts.Lab == nil {
		return nil, fmt.Errorf("no lab to watch")
	}
	played, err := SettingNamed(opts.Lab, opts.Setting)
	if err != nil {
		return nil, fmt.Errorf("setting %w", err)
	}
	if err := s.load(opts.Lab, opts.Scenario, played, s.budget); err != nil {
		return nil, err
	}
	src, err := sourceOf(opts)
	if err != nil {
		return nil, err
	}
	s.source = src
	if opts.Map != nil {
		m, err := loadMap(opts.MapFile, opts.Map, opts.Lab, opts.Scenario, s.budget)
		if err != nil {
			return nil, err
		}
		s.setMap(m)
	}
	return s, nil
}

// CheckSpeed refuses a playback speed outside MinSpeed to MaxSpeed.
func CheckSpeed(v float64) error {
	if !(v >= MinSpeed && v <= MaxSpeed) {
		return fmt.Errorf("speed: must be from %g to %g (virtual seconds per second; max: true plays as fast as possible), got %g", MinSpeed, MaxSpeed, v)
	}
	return nil
}

// load starts a session of l, setting applied (as lab sim applies a
// compare setting: the zero setting plays l itself), at virtual 0, if the
// lab with its compare settings (what Compare all and the JSON report run)
// costs no more than b, which is then what its drills may take it to.
// Caller holds mu (or is New).
func (s *Server) load(l *labfile.Lab, scenario string, setting labfile.Setting, b assemble.Budget) error {
	p, err := prepare(l, setting, b)
	if err != nil {
		return err
	}
	s.install(p, scenario)
	return nil
}

// prepared is a lab checked and its session built (prepare), ready to
// play (install).
type prepared struct {
	played, plain *labfile.Lab
	compare       []labfile.Setting
	setting       string
	sess          *sim.Session
	budget        assemble.Budget
}

// kept is what lab watch's runs keep, for the estimate: Compare all's
// series and the session's frames and window.
var kept = assemble.Kept{Sim: true, Series: true, Frames: frames, Windows: dash.WindowBins}

// CheckCost is lab watch's (and the page's) refusal of l over budget b:
// the estimate of l with its compare settings, counting what watch keeps.
func CheckCost(l *labfile.Lab, b assemble.Budget) error {
	return assemble.CheckCostKept(l, l.Compare, kept, b)
}

// frames is how many bin-end states a session keeps (dash.SeriesBins + 1).
const frames = dash.SeriesBins + 1

// prepare checks what l costs, with its compare settings, against b and
// builds its session, setting applied: what load does but install. It
// holds no lock: a lab whose objects take long to build (a large ring)
// leaves the API answering meanwhile.
func prepare(l *labfile.Lab, setting labfile.Setting, b assemble.Budget) (*prepared, error) {
	if err := CheckCost(l, b); err != nil {
		return nil, err
	}
	plain := l.Clone()
	compare := plain.Compare
	plain.Compare = nil // the saved lab runs what was watched, alone
	played := plain
	if setting.Name != "" {
		var err error
		if played, err = plain.WithSetting(setting); err != nil {
			return nil, err
		}
	}
	sess, err := newSession(played, b)
	if err != nil {
		return nil, err
	}
	return &prepared{played: played, plain: plain, compare: compare, setting: setting.Name, sess: sess, budget: b}, nil
}

// install plays p from 0. Caller holds mu.
func (s *Server) install(p *prepared, scenario string) {
	played, plain, compare, b := p.played, p.plain, p.compare, p.budget
	s.base, s.plain, s.scenario, s.setting, s.sess, s.compare = played, plain, scenario, p.setting, p.sess, compare
	if len(s.compare) == 0 {
		s.compare = nil
	}
	s.first = nil
	s.first = s.build().Controls
	s.cell = nil // a cell of the map, if this is one, says so after
	s.allowed = b
	s.mv = nil // a new session: no replay to carry on
	s.anchor(time.Now())
}

// newSession starts a session of l with what a snapshot needs kept, its
// guards at what budget b allows: playback of a lab that passes it stops
// with the guard's message (Playback.Stopped).
func newSession(l *labfile.Lab, b assemble.Budget) (*sim.Session, error) {
	return sim.NewSession(l, sim.SessionOptions{Options: sim.Options{}.Within(b), Frames: frames, LatencyBins: dash.WindowBins, Trips: followed})
}

// anchor restarts the playback clock from the virtual instant reached.
func (s *Server) anchor(now time.Time) {
	s.wall, s.virt, s.dirty = now, s.sess.Now(), true
}

// Tick moves playback on to where the wall clock (now) says it should be,
// spending at most budget, and publishes a snapshot if anything changed.
// It reports whether the next tick should start at once (playing at max,
// or a move going on: move.go) rather than after the tick interval. Serve
// calls it on its ticker; the page's wasm module (cmd/labwasm) from a
// timer of the browser's, so moves go on there too.
func (s *Server) Tick(now time.Time) (again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.playLocked(now)
	return s.mv != nil || s.max && !s.paused && !s.sess.Ended()
}

// TickInterval is how often playback moves on when not at max.
const TickInterval = tick

// Latest is the newest snapshot published (nil before the first) and how
// many have been, so a poller sees whether it is new.
func (s *Server) Latest() (uint64, []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq, s.stream.Latest()
}

// playLocked carries on the move going on, if any (move.go: paused or
// not), else moves playback on to where the wall clock says it should be
// (no further than budget allows), and publishes a snapshot if anything
// changed. Caller holds mu.
func (s *Server) playLocked(now time.Time) {
	if s.mv != nil {
		if err := s.moveOnLocked(s.tickWork, now.Add(budget), true); err != nil {
			s.warn("seek", err)
		}
		if s.mv == nil {
			s.anchor(time.Now()) // arrived: play on from there
		}
	}
	if s.mv == nil && !s.paused && !s.sess.Ended() {
		var target clock.Instant
		if s.max {
			target = clock.Never
		} else {
			target = s.virt + clock.Instant(float64(now.Sub(s.wall))*s.speed)
			target -= target % clock.Instant(time.Millisecond) // whole virtual milliseconds
		}
		target = min(target, s.pauseAt)
		stop := now.Add(budget)
		for s.sess.Now() < target && !s.sess.Ended() {
			next := min(target, (s.sess.Now()/bin+1)*bin)
			if _, err := s.sess.AdvanceWithin(next, sliceWork); err != nil { // a slice: the wall clock is looked at after each
				s.warn("playback", err)
				break
			}
			s.dirty = true
			if time.Now().After(stop) {
				if !s.max {
					s.anchor(time.Now()) // behind: play on from here
				}
				break
			}
			if s.mu.waited() { // a request of the API waits: it has the lock after this slice
				break
			}
		}
		if s.sess.Now() >= s.pauseAt && s.pauseAt != clock.Never {
			s.paused, s.pauseAt = true, clock.Never
		}
		if s.demo && s.sess.Ended() { // untouched: the demo starts again
			if sess, err := newSession(s.base, s.allowed); err == nil {
				s.sess, s.loops = sess, s.loops+1
				s.anchor(now)
			}
		}
	}
	if s.dirty {
		s.publishLocked()
	}
}

// snapshot is what /api/stream and /api/snapshot carry: the live
// dashboard's snapshot, marked virtual, with the playback state.
type snapshot struct {
	*dash.Snapshot
	Virtual  bool          `json:"virtual"`
	Playback dash.Playback `json:"playback"`
	Trips    []tripJSON    `json:"trips"`         // the followed requests (trips.go)
	Map      *mapState     `json:"map,omitempty"` // the metastability map shown, if any (map.go)
}

func (s *Server) playbackLocked() dash.Playback {
	p := dash.Playback{Speed: s.speed, Max: s.max, Paused: s.paused, Ended: s.sess.Ended(),
		T: time.Duration(s.sess.Now()).Seconds(), DurationS: s.base.Duration.Seconds(), MinSpeed: MinSpeed, MaxSpeed: MaxSpeed,
		Drills: []string{}, Demo: s.demo, Loops: s.loops, Published: s.seq}
	if s.sess.Ended() {
		if _, err := s.sess.Result(); err != nil {
			p.Stopped = err.Error()
		}
	}
	if s.work != nil { // a copy: the request goes on telling its own
		w := *s.work
		p.Work = &w
	}
	if s.pauseAt != clock.Never {
		v := time.Duration(s.pauseAt).Seconds()
		p.PauseAtS = &v
	}
	if s.mv != nil {
		v := time.Duration(s.mv.to).Seconds()
		p.SeekingToS, p.SeekingEvent = &v, s.mv.line
	}
	for _, ev := range s.sess.Drills() {
		p.Drills = append(p.Drills, fmt.Sprintf("%v: %s", ev.At, ev))
	}
	return p
}

// build makes the snapshot of the instant reached. Caller holds mu.
func (s *Server) build() *dash.Snapshot {
	now := s.sess.Settings()
	settings := state.SettingsOf(now) // once: every frame of the snapshot reads the settings in force now
	v := dash.VirtualView{Lab: now, First: s.first, Scenario: s.scenario, Setting: s.setting,
		Features: dash.Features{AddServer: true, Scenarios: true}, Now: reading(s.sess.State(), nil, now, settings),
		Log: s.sess.Log(), WindowP50: math.NaN(), WindowP99: math.NaN()}
	bins, frames := s.sess.Bins(), s.sess.Frames()
	for k, f := range frames {
		var b *report.Bin
		if i := len(bins) - len(frames) + k; i >= 0 { // the frame at 0 ends no bin
			b = &bins[i]
		}
		v.Bins = append(v.Bins, reading(f, b, now, settings))
	}
	if p50, p99, ok := s.sess.WindowLatency(); ok {
		v.WindowP50, v.WindowP99 = report.Ms(p50), report.Ms(p99)
	}
	return dash.VirtualSnapshot(v)
}

// working starts a long request called what: its sim.Options.Progress,
// which publishes a snapshot showing the share done (at most every
// s.every, and the start at once), and the func that ends it (the next
// snapshot shows no work, unless another request's).
func (s *Server) working(what string) (progress func(done float64), end func()) {
	w := &dash.Work{What: what}
	show := func(done float64) {
		s.mu.Lock()
		w.Done = done
		s.work = w
		s.publishLocked()
		s.mu.Unlock()
		if s.busy != nil {
			s.busy()
		}
	}
	show(0)
	last := time.Now()
	progress = func(done float64) {
		if now := time.Now(); now.Sub(last) >= s.every {
			last = now
			show(done)
		}
	}
	end = func() {
		s.mu.Lock()
		if s.work == w {
			s.work, s.dirty = nil, true
		}
		s.mu.Unlock()
	}
	return progress, end
}

func (s *Server) publishLocked() {
	snap := s.build()
	snap.AtUnixMs = time.Now().UnixMilli()
	pb := s.playbackLocked()
	pb.Published++ // this one
	data, err := json.Marshal(snapshot{Snapshot: snap, Virtual: true, Playback: pb, Trips: trips(s.sess), Map: s.mapStateLocked()})
	if err != nil {
		s.warn("cannot encode a snapshot", err)
		return
	}
	s.stream.Publish(data)
	s.dirty, s.seq = false, s.seq+1
}

// Answer answers one request of the page in memory, as Handler answers it
// over HTTP: a route of the API by its method and path (HEAD as GET,
// without the body); else the API's refusal, a JSON 404 or 405 with the
// methods the path takes (dash.Routes), the page's files being none of
// the module's. The stream is not here: the page's wasm module hands the
// page each new snapshot itself (Latest).
func (s *Server) Answer(req dash.Request) dash.Answer { return dash.AnswerIn(s.routes, req) }

// touched ends the demo loop before handling a POST: the first touch
// stops it (the page posts an empty playback body on the first click or
// key anywhere while the demo loops).
func (s *Server) touched(h dash.Handle) dash.Handle {
	return func(req dash.Request) dash.Answer {
		s.mu.Lock()
		if s.demo {
			s.demo, s.dirty = false, true
		}
		s.mu.Unlock()
		return h(req)
	}
}

// Snapshots is the snapshots the server publishes (dash.Clock: GET
// /api/snapshot and /api/stream).
func (s *Server) Snapshots() *dash.Stream { return s.stream }

// getPlayback is GET /api/playback.
func (s *Server) getPlayback(dash.Request) (dash.Playback, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.playbackLocked(), nil
}

// playbackIn is POST /api/playback: every field optional; they apply in
// the order restart, seek_s, speed/max, paused, pause_at_s, step, step_event.
type playbackIn struct {
	Speed    *float64 `json:"speed"`
	Max      *bool    `json:"max"`
	Paused   *bool    `json:"paused"`
	SeekS    *float64 `json:"seek_s"`
	Step     bool     `json:"step"`       // pause and play to the end of the current 250 ms bin
	StepLog  bool     `json:"step_event"` // pause and play to the next line of the event log
	Restart  bool     `json:"restart"`    // back to 0 with the lab as it was given (the drills dropped)
	PauseAtS *float64 `json:"pause_at_s"`
}

// playback is POST /api/playback.
func (s *Server) playback(_ dash.Request, in playbackIn) (dash.Playback, error) {
	if in.Speed != nil {
		if err := CheckSpeed(*in.Speed); err != nil {
			return dash.Playback{}, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	end := s.base.Duration + sim.DrainLimit
	for _, f := range []struct {
		name string
		v    *float64
	}{{"seek_s", in.SeekS}, {"pause_at_s", in.PauseAtS}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= end.Seconds()) {
			return dash.Playback{}, fmt.Errorf("%s: must be from 0 to %g (the lab's duration and the drain limit after it), got %g", f.name, end.Seconds(), *f.v)
		}
	}
	if in.PauseAtS != nil { // checked before anything of the request applies
		at := s.reachedLocked() // where the request's restart and seek_s leave playback (a move going on: its target)
		if in.Restart {
			at = 0
		}
		if in.SeekS != nil {
			at = seconds(*in.SeekS)
		}
		if seconds(*in.PauseAtS) < at {
			return dash.Playback{}, fmt.Errorf("pause_at_s: %g is before the instant playback is at (%g s): pause at an instant still to come, or seek back first",
				*in.PauseAtS, time.Duration(at).Seconds())
		}
	}
	if in.Restart { // the same lab and compare settings, without the drills
		sess, err := newSession(s.base, s.allowed)
		if err != nil {
			return dash.Playback{}, dash.Fail(500, err)
		}
		s.sess, s.mv = sess, nil
	}
	if in.SeekS != nil {
		s.seekLocked(seconds(*in.SeekS))
	}
	if in.Speed != nil {
		s.speed, s.max = *in.Speed, false
	}
	if in.Max != nil {
		s.max = *in.Max
	}
	if in.Paused != nil {
		s.paused = *in.Paused
	}
	if in.PauseAtS != nil { // at the instant reached, the next tick pauses there
		s.pauseAt = seconds(*in.PauseAtS)
	}
	if in.Step {
		s.paused = true
		s.stepLocked()
	}
	if in.StepLog {
		s.paused = true
		s.stepLineLocked()
	}
	if err := s.moveLocked(); err != nil { // as far as postWork: the rest in playback's ticks
		return dash.Playback{}, err
	}
	s.anchor(time.Now())
	s.publishLocked()
	return s.playbackLocked(), nil
}

// seconds is a virtual instant from seconds, to the millisecond.
func seconds(v float64) clock.Instant {
	return clock.Instant(math.Round(v*1e3)) * clock.Instant(time.Millisecond)
}

// Chaos takes a drill (dash.Clock: POST /api/chaos), with the live
// controller's checks, at the virtual instant reached: it joins the lab's
// script there, the run rewound to 0, and a move replays it to that
// instant (move.go: as far as postWork before the answer, the rest in
// playback's ticks). During a move it is refused with 409.
func (s *Server) Chaos(_ dash.Request, ev labfile.Event) (dash.Applied, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mv != nil {
		return dash.Applied{}, s.movingError()
	}
	if err := dash.ValidateDrill(s.sess.Lab(), &ev); err != nil {
		return dash.Applied{}, err
	}
	before := s.sess.Settings() // what a time-boxed drill's undo goes back to
	if err := assemble.CheckDrillCostKept(s.sess.Settings(), s.compare, ev, kept, s.allowed); err != nil {
		return dash.Applied{}, err
	}
	rec, at, err := s.sess.DrillRewound(ev)
	if err != nil {
		return dash.Applied{}, err
	}
	s.mv = &move{to: at, lines: -1}
	if err := s.moveLocked(); err != nil {
		return dash.Applied{}, err
	}
	s.anchor(time.Now())
	s.publishLocked()
	atS := time.Duration(at).Seconds()
	out := dash.Applied{OK: true, Applied: rec.String(), AtS: &atS}
	if rec.For > 0 {
		// the undo as the script computes it when the drill applies: from
		// the settings just before it, not after (a set's own values)
		if undo, err := labfile.Undo(before, rec); err == nil {
			out.Undo, out.UndoInS = undo.String(), rec.For.Seconds()
		}
	}
	return out, nil
}

// labFile is GET /api/lab.yaml: the lab with the drills taken in its
// script, a lab file that lab sim runs to the numbers the page showed.
func (s *Server) labFile(dash.Request) dash.Answer {
	s.mu.Lock()
	l := s.sess.Lab()
	s.mu.Unlock()
	data, err := labyaml.Marshal(l)
	if err != nil {
		return dash.Refuse(500, err.Error())
	}
	return dash.Answer{Status: 200, Type: "application/yaml", Body: data,
		Disposition: fmt.Sprintf("attachment; filename=%q", l.Name+"-watched.yaml")}
}

// Scenarios lists the built-in scenarios (dash.Clock: GET
// /api/scenarios): each plays here.
func (s *Server) Scenarios(dash.Request) (dash.ScenarioList, error) {
	list := dash.ListScenarios(dash.ScenarioSetting, nil)
	s.mu.Lock()
	current := s.scenario
	s.mu.Unlock()
	return dash.ScenarioList{Scenarios: list, Available: true, Current: current}, nil
}

// Scenario plays built-in scenario pick.Name from 0 instead (dash.Clock:
// POST /api/scenario), at the same speed, playing even if playback was
// paused (the page's "run scenario"); the answer carries the playback.
func (s *Server) Scenario(_ dash.Request, pick dash.ScenarioPick) (dash.Started, error) {
	l, err := scenarios.Lab(pick.Name)
	if err != nil {
		return dash.Started{}, err
	}
	setting := FirstSetting(l)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(l, pick.Name, setting, s.budget); err != nil {
		return dash.Started{}, err
	}
	if s.source, err = scenarioSource(pick.Name); err != nil {
		return dash.Started{}, err
	}
	s.pauseAt, s.paused = clock.Never, false
	s.publishLocked()
	p := s.playbackLocked()
	return dash.Started{OK: true, Scenario: pick.Name, Setting: setting.Name, Narration: l.Narration, Playback: &p}, nil
}

// Compared is POST /api/compare's answer on one seed: the settings ranked
// (ComparedSeeds is its answer over several).
type Compared struct {
	Drills   int          `json:"drills"`   // the drills taken so far, in the script each setting ran
	Headline string       `json:"headline"` // the figure ranked by
	Lab      string       `json:"lab"`
	Ranking  []CompareRow `json:"ranking"`
}

// compareIn is POST /api/compare's body.
type compareIn struct {
	Seeds int `json:"seeds"` // 2 or more: seeds 1 to N, with intervals (compare.go)
}

// CompareRow is one setting of POST /api/compare's ranking.
type CompareRow struct {
	Rank      int     `json:"rank"`
	Name      string  `json:"name"`
	Algorithm string  `json:"algorithm"`
	Requests  uint64  `json:"requests"`
	Failed    uint64  `json:"failed"`
	Goodput   float64 `json:"goodput"`
	P50Ms     float64 `json:"p50_ms"`
	P99Ms     float64 `json:"p99_ms"`
	Watched   bool    `json:"watched"` // the setting being played
	// Series is its p99 per bin, for the small multiples (compare.go).
	Series *compareSeries `json:"series"`
}

// compareAll is POST /api/compare ({}): Compare all. The lab as given,
// with the drills taken so far in its script, runs once per compare
// setting (every algorithm when it has none) on the same seeded stream, as
// lab sim does: each setting applied to the lab as given, not to the one
// watched (whose setting would then be in every row). The settings come
// back ranked as lab sim's table ranks them (by the lab's headline figure,
// p99 unless it names another).
func (s *Server) compareAll(req dash.Request, body compareIn) dash.Answer {
	stop := s.stopper(req)
	s.mu.Lock()
	l, settings, watched, drills := s.plain.Clone(), s.compare, s.setting, len(s.sess.Drills())
	l.Events = s.sess.Lab().Events // the script, the drills taken in it
	opts := sim.Options{Stop: stop}.Within(s.allowed)
	s.mu.Unlock()
	if settings == nil {
		for _, a := range policy.Algorithms() {
			if l.Clients.Algorithm != "" && balance.CapsOf(a).TierOnly() {
				continue // refused client-side (balance.Caps.TierOnly)
			}
			settings = append(settings, labfile.Setting{Name: a, Algorithm: a})
		}
		if watched == "" {
			watched = l.Balancers.Algorithm
			if l.Clients.Algorithm != "" {
				watched = l.Clients.Algorithm
			}
		}
	}
	progress, end := s.working("compare all")
	defer end()
	if body.Seeds != 0 {
		out, err := compareSeeds(l, settings, watched, body.Seeds, progress, opts)
		if err != nil {
			return dash.RefuseErr(stopped(err))
		}
		out.Drills = drills
		return dash.Reply(out, nil)
	}
	opts.Series, opts.Progress = true, progress
	rep, err := sim.Compare(l, settings, opts)
	if err != nil {
		return dash.RefuseErr(stopped(err))
	}
	headline := string(l.Report.Headline)
	if headline == "" {
		headline = string(report.HeadlineP99)
	}
	rows := []CompareRow{}
	for i, r := range rep.Ranked() {
		rows = append(rows, CompareRow{Rank: i + 1, Name: r.Name, Algorithm: r.Algorithm, Requests: r.Requests,
			Failed: r.Failed, Goodput: r.Goodput, P50Ms: r.Latency.P50, P99Ms: r.Latency.P99, Watched: r.Name == watched,
			Series: seriesOf(&r)})
	}
	return dash.Reply(Compared{Lab: l.Name, Headline: headline, Drills: drills, Ranking: rows}, nil)
}
