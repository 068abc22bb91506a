package labfile

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
)

// Action is what a script event does (events[].action).
type Action string

// The actions; Drills says what each does.
const (
	ActionSlow         Action = "slow"
	ActionRestore      Action = "restore"
	ActionKill         Action = "kill"
	ActionRestart      Action = "restart"
	ActionGC           Action = "gc"
	ActionFail         Action = "fail"
	ActionRecover      Action = "recover"
	ActionErrors       Action = "errors"
	ActionRate         Action = "rate"
	ActionAlgorithm    Action = "algorithm"
	ActionAddServer    Action = "add-server"
	ActionRemoveServer Action = "remove-server"
	ActionSet          Action = "set"
	// The zone drills (zones.go): their target is a zone, and a drill on
	// servers acts on every server of it.
	ActionZoneDown    Action = "zone-down"
	ActionZoneUp      Action = "zone-up"
	ActionZoneSlow    Action = "zone-slow"
	ActionZoneRestore Action = "zone-restore"
	ActionLinkDelay   Action = "link-delay"
	ActionPartition   Action = "partition"
	ActionHeal        Action = "heal"
)

// Actions are the event actions a script may use, in documentation order.
var Actions = actionsOf(Drills)

// ServerAction reports whether a acts on servers named by the event's target.
func (a Action) ServerAction() bool {
	d, ok := DrillOf(a)
	return ok && d.Scope == OnServers
}

// ActionNames lists the actions as text (for messages).
func ActionNames() []string { return names(Actions) }

// A Drill is one action of a script event: what events[].action, a `lab
// chaos` line, POST /api/chaos and the backend's POST /admin/drill name.
// Everything about a drill is its entry in Drills, and every form and every
// driver reads it there: the fields it takes (so its lab-file keys, its
// key=value words, its JSON and its text), the check of its values, its
// undo, what it changes in the lab's settings and, for a drill on servers,
// what it does to a server's core (Apply), the same in the simulator and in
// the backend process.
type Drill struct {
	Action Action
	// Fields are the event fields it takes besides at, action and for, in
	// the order its text (Event.String) writes them.
	Fields []string
	// Optional are the Fields it may go without (zero: a default); its
	// text leaves them out then.
	Optional []string
	Scope    Scope
	// Down: the drill takes the server down (its connections close, the
	// backend's data port with them); Up: it brings the server back.
	Down, Up bool
	// Zone: its target names a zone of the lab, and a drill on servers
	// acts on every server in it (Lab.ServersIn).
	Zone bool
	// NeedsZones: only a lab with zones takes it (the zone drills, and
	// those on the links between zones).
	NeedsZones bool

	// check checks the values of the drill's fields at path p (nil: only
	// which fields it takes is checked); ch is nil outside a lab.
	check func(e *Event, p string, r *reporter, ch *setChecker)
	// Undo is the action of the event that ends a time-boxed one ("": there
	// is none, and noUndo says why). undoWith gives that event's values
	// from the lab as it is just before it (nil: the same target).
	Undo     Action
	undoWith func(lab *Lab, ev Event) (Event, error)
	noUndo   string
	// record changes the lab's settings as the drill changes those of a
	// running run (nil: it changes none).
	record func(l *Lab, ev Event)
	// holds lists what the drill changes, for the check that no event
	// changes what an earlier time-boxed one holds (nil: nothing lasting).
	holds func(e Event) []touched
	// apply is the drill on one server's core (Scope OnServers).
	apply func(s *server.Server, spec Server, ev Event, now clock.Instant, out []server.Reply) ([]server.Reply, error)
	// run carries a drill of another scope out on a driver.
	run func(d Driver, ev Event) error
}

// Scope is what a drill acts on.
type Scope int

const (
	OnServers Scope = iota // each server its target names (a name or all): Drill.Apply on its core
	OnFleet                // the fleet: the target is the server added or removed
	OnLab                  // the lab's settings: the clients' rate, the algorithm, dotted paths
)

// Drills are the drills in documentation order.
var Drills = []*Drill{
	{
		Action: ActionSlow, Fields: []string{"target", "speed"},
		check: checkSlow,
		Undo:  ActionRestore,
		holds: onServer("speed"),
		apply: applySlow,
	},
	{
		Action: ActionRestore, Fields: []string{"target"},
		noUndo: selfUndo(ActionRestore),
		holds:  onServer("speed"),
		apply:  applyRestore,
	},
	{
		Action: ActionKill, Fields: []string{"target"}, Down: true,
		Undo:  ActionRestart,
		holds: onServer("up"),
		apply: applyKill,
	},
	{
		Action: ActionRestart, Fields: []string{"target"}, Up: true,
		noUndo: selfUndo(ActionRestart),
		holds:  onServer("up"),
		apply:  applyRestart,
	},
	{
		Action: ActionGC, Fields: []string{"target", "pause"},
		check: func(e *Event, p string, r *reporter, _ *setChecker) {
			if !Bounds.Pause.In(e.Pause) {
				r.add(JoinPath(p, "pause"), "gc needs pause %s (how long the stop-the-world pause lasts), got %v", Bounds.Pause, e.Pause)
			}
		},
		noUndo: "gc has nothing to undo: the pause ends by itself (give its length with pause)",
		apply: func(s *server.Server, _ Server, ev Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
			s.Pause(now, ev.Pause)
			return out, nil
		},
	},
	{
		Action: ActionFail, Fields: []string{"target"},
		Undo:  ActionRecover,
		holds: onServer("errors"),
		apply: func(s *server.Server, _ Server, _ Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
			s.SetFail(now, true)
			return out, nil
		},
	},
	{
		Action: ActionRecover, Fields: []string{"target"},
		noUndo: selfUndo(ActionRecover),
		holds:  onServer("errors"),
		apply: func(s *server.Server, spec Server, _ Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
			s.SetFail(now, false)
			return out, s.SetErrors(now, spec.Errors) // the lab's error share
		},
	},
	{
		Action: ActionErrors, Fields: []string{"target", "share"},
		check: func(e *Event, p string, r *reporter, _ *setChecker) {
			check(r, JoinPath(p, "share"), Bounds.Share, e.Share)
		},
		Undo: ActionErrors,
		undoWith: func(lab *Lab, ev Event) (Event, error) {
			share, err := errorShare(lab, ev.Target) // refused for all when the servers' shares differ
			if err != nil {
				return Event{}, err
			}
			return Event{Target: ev.Target, Share: share}, nil
		},
		holds: onServer("errors"),
		apply: func(s *server.Server, _ Server, ev Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
			return out, s.SetErrors(now, ev.Share)
		},
	},
	{
		Action: ActionRate, Fields: []string{"rate"}, Scope: OnLab,
		check: func(e *Event, p string, r *reporter, _ *setChecker) {
			check(r, JoinPath(p, "rate"), Bounds.Rate, e.Rate)
		},
		Undo: ActionRate,
		undoWith: func(lab *Lab, _ Event) (Event, error) {
			if lab.Clients.Profile != nil && lab.Clients.Mode != ClosedLoop {
				return Event{}, errors.New("clients.profile drives the rate, so there is no rate to return to: a rate event without for replaces the profile for the rest of the run")
			}
			return Event{Rate: lab.Clients.Rate}, nil
		},
		record: func(l *Lab, ev Event) {
			if ev.Rate > 0 { // the lab's rate stays > 0; a pause lives in the stream only
				l.Clients.Rate = ev.Rate
			}
			if l.Clients.Mode != ClosedLoop {
				l.Clients.Profile = nil
			}
		},
		holds: onLab("clients.rate"),
		run:   func(d Driver, ev Event) error { return d.Rate(ev.Rate) },
	},
	{
		Action: ActionAlgorithm, Fields: []string{"algorithm"}, Scope: OnLab,
		check: func(e *Event, p string, r *reporter, ch *setChecker) {
			if !slices.Contains(Algorithms, e.Algorithm) {
				r.oneOf(JoinPath(p, "algorithm"), e.Algorithm, Algorithms...)
			} else if ch != nil {
				ch.check(r, p, e.Algorithm, nil) // it must suit the other settings (aperture)
			}
		},
		Undo: ActionAlgorithm,
		undoWith: func(lab *Lab, _ Event) (Event, error) {
			undo := Event{Algorithm: lab.Balancers.Algorithm}
			if lab.Clients.Algorithm != "" {
				undo.Algorithm = lab.Clients.Algorithm
			}
			return undo, nil
		},
		record: recordSetting,
		holds:  onLab("algorithm"),
		run:    func(d Driver, ev Event) error { return d.Algorithm(ev.Algorithm) },
	},
	{
		Action: ActionAddServer, Fields: []string{"target", "speed", "workers"}, Optional: []string{"speed", "workers"}, Scope: OnFleet,
		check: func(e *Event, p string, r *reporter, _ *setChecker) {
			if e.Speed != 0 && !Bounds.Speed.In(e.Speed) {
				r.add(JoinPath(p, "speed"), "add-server's speed must be %s (2 = twice as fast; leave it out for the last server's), got %s", Bounds.Speed, num(e.Speed))
			}
			if e.Workers != 0 && !Bounds.Workers.In(e.Workers) {
				r.add(JoinPath(p, "workers"), "add-server's workers must be %s (leave it out for the last server's), got %d", Bounds.Workers, e.Workers)
			}
		},
		Undo:  ActionRemoveServer,
		holds: onServer("fleet"),
		run:   func(d Driver, ev Event) error { return d.AddServer(ev) },
	},
	{
		Action: ActionRemoveServer, Fields: []string{"target"}, Scope: OnFleet,
		noUndo: "remove-server cannot be time-boxed: a removed server's queue, cache and counters are gone, and one added back would be a new server (use add-server)",
		holds:  onServer("fleet"),
		run:    func(d Driver, ev Event) error { return d.RemoveServer(ev.Target) },
	},
	{
		Action: ActionSet, Fields: []string{"set"}, Scope: OnLab,
		check:    checkSet,
		Undo:     ActionSet,
		undoWith: undoSet,
		record:   recordSetting,
		holds:    setHolds,
		run:      func(d Driver, ev Event) error { return d.Set(ev.Set) },
	},
	{
		Action: ActionZoneDown, Fields: []string{"target"}, Down: true, Zone: true, NeedsZones: true,
		Undo:  ActionZoneUp,
		holds: onZone("up"),
		apply: applyKill,
	},
	{
		Action: ActionZoneUp, Fields: []string{"target"}, Up: true, Zone: true, NeedsZones: true,
		noUndo: selfUndo(ActionZoneUp),
		holds:  onZone("up"),
		apply:  applyRestart,
	},
	{
		Action: ActionZoneSlow, Fields: []string{"target", "speed"}, Zone: true, NeedsZones: true,
		check: checkSlow,
		Undo:  ActionZoneRestore,
		holds: onZone("speed"),
		apply: applySlow,
	},
	{
		Action: ActionZoneRestore, Fields: []string{"target"}, Zone: true, NeedsZones: true,
		noUndo: selfUndo(ActionZoneRestore),
		holds:  onZone("speed"),
		apply:  applyRestore,
	},
	{
		// the link between two zones of a region degrades (or heals):
		// network.cross_zone.hop from now on, as a set of it
		Action: ActionLinkDelay, Fields: []string{"hop"}, Scope: OnLab, NeedsZones: true,
		check: func(e *Event, p string, r *reporter, ch *setChecker) {
			switch {
			case ch != nil && !ch.lab.Zoned():
				r.add(JoinPath(p, "action"), "link-delay sets the hop between two zones, and the lab declares none (zones: [{name: a}])")
			case !Bounds.Network.In(e.Hop) || e.Hop == 0:
				r.add(JoinPath(p, "hop"), "link-delay needs hop in (0s, %v] (the hop between two zones of a region from now on), got %v", Bounds.Network.Max, e.Hop)
			}
		},
		Undo: ActionLinkDelay,
		undoWith: func(lab *Lab, _ Event) (Event, error) {
			return Event{Hop: lab.Network.CrossZone.Hop}, nil
		},
		record: func(l *Lab, ev Event) { l.Network.CrossZone.Hop = ev.Hop },
		holds:  onLab(linkPath),
		run:    func(d Driver, ev Event) error { return d.Set(map[string]string{linkPath: ev.Hop.String()}) },
	},
	partitionDrill(ActionPartition, true),
	partitionDrill(ActionHeal, false),
}

// linkPath is the setting link-delay changes, partitionPath the one
// partition and heal do.
const (
	linkPath      = "network.cross_zone.hop"
	partitionPath = "network.partition"
)

// partitionDrill is partition (cut true) or heal: network.partition from
// now on, in a lab with zones.
func partitionDrill(a Action, cut bool) *Drill {
	d := &Drill{Action: a, Scope: OnLab, NeedsZones: true,
		check: func(e *Event, p string, r *reporter, ch *setChecker) {
			if ch != nil && !ch.lab.Zoned() {
				r.add(JoinPath(p, "action"), "%s acts on the links between zones, and the lab declares none (zones: [{name: a}])", a)
			}
		},
		record: func(l *Lab, _ Event) { l.Network.Partition = cut },
		holds:  onLab(partitionPath),
		run:    func(d Driver, _ Event) error { return d.Set(map[string]string{partitionPath: strconv.FormatBool(cut)}) },
	}
	if cut {
		d.Undo = ActionHeal
	} else {
		d.noUndo = selfUndo(ActionHeal)
	}
	return d
}

// The drills on a server's speed and life, by server or by zone.

func checkSlow(e *Event, p string, r *reporter, _ *setChecker) {
	if !Bounds.Speed.In(e.Speed) {
		r.add(JoinPath(p, "speed"), "%s needs speed %s (0.25 = quarter speed), got %s", e.Action, Bounds.Speed, num(e.Speed))
	}
}

func applySlow(s *server.Server, _ Server, ev Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
	return out, s.SetSpeed(now, ev.Speed)
}

func applyRestore(s *server.Server, spec Server, _ Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
	return out, s.SetSpeed(now, spec.Speed) // the lab's speed
}

func applyKill(s *server.Server, _ Server, _ Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
	return s.Kill(now, out), nil
}

func applyRestart(s *server.Server, _ Server, _ Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
	s.Restart(now)
	return out, nil
}

// onZone is what a zone drill holds: what for every server (a zone's
// servers are not told apart from the others by the timeline's check).
func onZone(what string) func(Event) []touched {
	return func(Event) []touched { return []touched{{what, "all"}} }
}

// A Driver carries drills out on a running lab: the simulator's world, the
// live lab's processes. Run calls it.
type Driver interface {
	// Servers applies drill d to every server ev.Target names (a name, or
	// all): Apply on each one's core.
	Servers(d *Drill, ev Event) error
	Rate(rate float64) error
	Algorithm(name string) error
	// AddServer adds server ev.Target, with ev.Speed and ev.Workers when
	// given (else the last server's).
	AddServer(ev Event) error
	RemoveServer(name string) error
	Set(set map[string]string) error
}

// Run carries ev out on d.
func Run(d Driver, ev Event) error {
	dr, ok := DrillOf(ev.Action)
	switch {
	case !ok:
		return fmt.Errorf("unknown action %q", ev.Action)
	case dr.Scope == OnServers:
		return d.Servers(dr, ev)
	}
	return dr.run(d, ev)
}

// Apply applies a drill on servers to one server's core at now, spec being
// that server's settings in the lab (what restore and recover go back to).
// It appends the replies the drill ends (a kill's lost jobs) to out; a
// setter's replies stay pending in the core until its next Advance.
func (d *Drill) Apply(s *server.Server, spec Server, ev Event, now clock.Instant, out []server.Reply) ([]server.Reply, error) {
	if d.apply == nil {
		return out, fmt.Errorf("%s does not act on a server", d.Action)
	}
	return d.apply(s, spec, ev, now, out)
}

// DrillOf returns the drill of action a.
func DrillOf(a Action) (*Drill, bool) {
	for _, d := range Drills {
		if d.Action == a {
			return d, true
		}
	}
	return nil, false
}

// Undoable reports whether the drill can be time-boxed (it has an undo).
func (d *Drill) Undoable() bool { return d.Undo != "" }

// NoUndo says why the drill has no undo ("" when it has one).
func (d *Drill) NoUndo() string { return d.noUndo }

// ChangesSettings reports whether the drill changes the lab's settings
// (Lab.Record applies it): rate, algorithm, set.
func (d *Drill) ChangesSettings() bool { return d.record != nil }

// Takes reports whether the drill takes event field name.
func (d *Drill) Takes(name string) bool { return slices.Contains(d.Fields, name) }

// ServerDrills lists the drills on servers (those Apply runs).
func ServerDrills() []*Drill {
	var out []*Drill
	for _, d := range Drills {
		if d.Scope == OnServers {
			out = append(out, d)
		}
	}
	return out
}

// CheckServerDrill checks ev as one server (named name, or emulating
// server) takes it on its own: a drill on servers, applied at once and not
// time-boxed (the lab schedules undos), with the values the lab file would
// accept. The error is an *Error naming the field.
func CheckServerDrill(ev Event, name, server string) (*Drill, error) {
	d, ok := DrillOf(ev.Action)
	r := &reporter{}
	switch {
	case !ok:
		oneOfEnum(r, "action", ev.Action, Actions...)
	case d.Scope != OnServers:
		r.add("action", "%s is not a drill on a server: the lab applies it (POST /api/chaos); a server takes %s", ev.Action, strings.Join(names(actionsOf(ServerDrills())), ", "))
	case ev.At != 0:
		r.add("at", "a server applies a drill at once: leave at out")
	case ev.For != 0:
		r.add("for", "a server does not time-box a drill: the lab schedules its undo (lab chaos --for)")
	case ev.Target != "" && ev.Target != "all" && ev.Target != name && ev.Target != server:
		r.add("target", "this is server %s, not %s", Quote(name), Quote(ev.Target))
	default:
		checkFields(d, &ev, "", r, nil)
	}
	if len(r.errs) > 0 {
		return nil, r.errs[0]
	}
	return d, nil
}

// checkFields checks that the event at p uses only the fields its drill
// takes, and their values.
func checkFields(d *Drill, e *Event, p string, r *reporter, ch *setChecker) {
	for _, f := range usedEventFields(e) {
		if !d.Takes(f) {
			r.add(JoinPath(p, f), "is not used by action %s (it takes %s)", e.Action, strings.Join(d.Fields, ", "))
		}
	}
	if d.check != nil {
		d.check(e, p, r, ch)
	}
}

func actionsOf(ds []*Drill) []Action {
	out := make([]Action, len(ds))
	for i, d := range ds {
		out[i] = d.Action
	}
	return out
}

func selfUndo(a Action) string {
	return string(a) + " is itself an undo: there is nothing to return to (time-box the event it ends instead)"
}

func onServer(what string) func(Event) []touched {
	return func(e Event) []touched { return []touched{{what, e.Target}} }
}

func onLab(what string) func(Event) []touched {
	return func(Event) []touched { return []touched{{what, ""}} }
}

// recordSetting records an algorithm or set event: the setting applies to
// the lab when the lab stays valid with it.
func recordSetting(l *Lab, ev Event) {
	c := l.Clone()
	if errs := applySetting(c, ev.Algorithm, ev.Set, false); len(errs) > 0 {
		return
	}
	if r := (&reporter{}); validateCoreOK(c, r) {
		*l = *c
	}
}

func checkSet(e *Event, p string, r *reporter, ch *setChecker) {
	if len(e.Set) == 0 {
		r.add(JoinPath(p, "set"), "needs at least one dotted path and value (clients.budget: 0.1)")
		return
	}
	for k := range e.Set {
		if why := FixedAtRunTime(k); why != "" {
			r.add(JoinPath(JoinPath(p, "set"), k), "is fixed for a run (%s): give it in the lab file, or in a compare setting", why)
			return
		}
	}
	if v, ok := e.Set["clients.algorithm"]; ok && ch != nil && switchesSide(ch.lab.Clients.Algorithm, v) {
		r.add(JoinPath(JoinPath(p, "set"), "clients.algorithm"), "is fixed for a run as on or off (%s): give it in the lab file, or in a compare setting", clientSideWhy)
		return
	}
	if ch != nil {
		ch.check(r, p, "", e.Set)
	}
}

// undoSet sets every path back to its value before.
func undoSet(lab *Lab, ev Event) (Event, error) {
	undo := Event{Set: map[string]string{}}
	for _, k := range slices.Sorted(maps.Keys(ev.Set)) {
		v, err := lab.Get(k)
		if err != nil {
			return Event{}, err
		}
		undo.Set[k] = v
	}
	return undo, nil
}

func setHolds(e Event) []touched {
	var out []touched
	for k := range e.Set {
		switch g := generalize(k); {
		case g == "balancers.algorithm" || g == "clients.algorithm":
			out = append(out, touched{"algorithm", ""})
		case strings.HasPrefix(g, "servers."):
			out = append(out, touched{strings.TrimPrefix(g, "servers."), "all"})
		default:
			out = append(out, touched{g, ""})
		}
	}
	return out
}

// CheckDrill checks a drill on a running lab, l being the lab as the
// events applied so far have left it (Record; a drill's add-server and
// remove-server among its events), as the lab file checks a script event
// but now: every event at once, the drill last, its targets against the
// servers present now. A drill's for must be > 0 and the drill must have an
// undo (Undo); it may outlast the lab's duration (lab up runs until
// stopped). ev is completed as a lab file's event would be. The messages
// name the drill's fields without the events[i] of its place in the probe.
func (l *Lab) CheckDrill(ev *Event) error {
	switch {
	case ev.For < 0:
		return fmt.Errorf("for: must be > 0 (how long the drill lasts before its undo), got %v", ev.For)
	case ev.For > 0:
		// The same bound as a lab file's events: an undo comes before the
		// lab's end, and a lab lasts at most Bounds.Duration.Max. A drill
		// may outlast the running lab's own duration (lab up runs until
		// stopped; lab run's undo then never comes).
		if err := Bounds.Duration.Check("for", ev.For); err != nil {
			return fmt.Errorf("for: %s (a lab lasts at most that long)", err.Msg)
		}
		if _, err := Undo(l, *ev); err != nil {
			return fmt.Errorf("for: %v", err)
		}
	}
	probe := l.Clone()
	probe.Compare = nil
	for i := range probe.Events {
		probe.Events[i].At, probe.Events[i].For = 0, 0
	}
	drill := *ev
	drill.At, drill.For = 0, 0
	probe.Events = append(probe.Events, drill)
	r := &reporter{}
	validateCore(probe, r)
	validateEvents(probe, r, &setChecker{lab: probe, validate: validateCore}, true)
	validateTierScript(probe, r)
	if err := r.errs.result(); err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), IndexPath("events", len(probe.Events)-1)+".", ""))
	}
	timed := ev.For
	*ev = probe.Events[len(probe.Events)-1]
	ev.For = timed
	return nil
}
