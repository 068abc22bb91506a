package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/health"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/labfile"
)

// undo is the end of a time-boxed event: the event that undoes it, due at
// its At + For.
type undo struct {
	ev, cause labfile.Event
}

// onScript applies the lab's script event i. A time-boxed event's undo is
// computed from the lab as it is just before the event (labfile.Undo) and
// scheduled at now + For.
func (w *world) onScript(i int) {
	ev := w.lab.Events[i]
	var u labfile.Event
	var uerr error
	if ev.For > 0 {
		u, uerr = labfile.Undo(w.lab, ev)
	}
	if err := w.apply(ev); err != nil {
		w.col.log(w.now, fmt.Sprintf("event %d (%s) failed: %v", i+1, ev.Action, err))
		return
	}
	w.col.log(w.now, ev.String())
	switch {
	case ev.For <= 0:
	case uerr != nil:
		w.col.log(w.now, fmt.Sprintf("event %d (%s): no undo: %v", i+1, ev.Action, uerr))
	default:
		w.undos = append(w.undos, undo{ev: u, cause: ev})
		w.push(w.now.Add(ev.For), evUndo, 0, int32(len(w.undos)-1))
	}
}

// onUndo applies the undo of a time-boxed event and logs it as its end.
func (w *world) onUndo(i int) {
	u := w.undos[i]
	if err := w.apply(u.ev); err != nil {
		w.col.log(w.now, fmt.Sprintf("%s failed: %v", labfile.UndoText(u.ev, u.cause), err))
		return
	}
	w.col.log(w.now, labfile.UndoText(u.ev, u.cause))
}

// targets returns the indices of the servers an event names.
func (w *world) targets(name string) []int {
	var out []int
	for i, s := range w.servers {
		if !s.removed && (name == "all" || s.spec.Name == name) {
			out = append(out, i)
		}
	}
	return out
}

// zoneTargets are the servers present in zone (labfile.Lab.ServersIn).
func (w *world) zoneTargets(zone string) []int {
	var names []string
	idx := map[string]int{}
	for i, s := range w.servers {
		if !s.removed {
			names = append(names, s.spec.Name)
			idx[s.spec.Name] = i
		}
	}
	var out []int
	for _, n := range w.lab.ServersIn(zone, names) {
		out = append(out, idx[n])
	}
	return out
}

func (w *world) apply(ev labfile.Event) error { return labfile.Run(drills{w}, ev) }

// drills carries drills out on the world (labfile.Driver).
type drills struct{ w *world }

// Servers applies a drill to each server it targets, at once: the replies
// it ends (a kill's) go on their way and the server is woken at its next
// deadline; a server taken down drops its idle connections.
func (d drills) Servers(dr *labfile.Drill, ev labfile.Event) error {
	w := d.w
	targets := w.targets(ev.Target)
	if dr.Zone {
		targets = w.zoneTargets(ev.Target)
	}
	for _, i := range targets {
		s := w.servers[i]
		var err error
		if w.replyBuf, err = dr.Apply(s.core, s.spec.Server, ev, w.now, w.replyBuf[:0]); err != nil {
			return err
		}
		w.deliver(i)
		if dr.Down {
			w.serverDown(i)
		}
	}
	return nil
}

func (d drills) Rate(rate float64) error {
	d.w.setRate(rate)
	return nil
}

func (d drills) Algorithm(name string) error      { return d.w.setAlgorithm(name) }
func (d drills) AddServer(ev labfile.Event) error { return d.w.addLiveServer(ev) }
func (d drills) Set(set map[string]string) error  { return d.w.applySet(set) }

func (d drills) RemoveServer(name string) error {
	for _, i := range d.w.targets(name) {
		d.w.servers[i].removed = true
		for _, b := range d.w.bals {
			b.RemoveServer(i)
		}
	}
	return nil
}

// setRate changes the open-loop rate and redraws the pending arrival; it
// replaces a rate profile for the rest of the run.
func (w *world) setRate(rate float64) {
	w.lab.Clients.Rate = rate
	if w.users == 0 {
		w.lab.Clients.Profile = nil
	}
	if w.users > 0 {
		return // closed loop: the users set the pace
	}
	w.stream.SetRate(w.now, rate)
	w.scheduleArrival() // the stream withdrew the pending arrival: redraw it
}

func (w *world) setAlgorithm(name string) error {
	lab, err := w.lab.WithSetting(labfile.Setting{Name: "algorithm", Algorithm: name})
	if err != nil {
		return err
	}
	w.lab = lab
	return w.retune()
}

// retune brings every balancer in line with the lab (policy.Balancer's
// Reconfigure: what did not change stays).
func (w *world) retune() error {
	for i, b := range w.bals {
		if err := b.Reconfigure(assemble.BalancerConfig(w.lab, i)); err != nil {
			return err
		}
	}
	return nil
}

// addLiveServer adds a server like the last one, named ev.Target (or sN),
// with ev's speed and workers when given, and records how many keys changed
// owner.
func (w *world) addLiveServer(ev labfile.Event) error {
	name := ev.Target
	if name == "" {
		name = fmt.Sprintf("s%d", len(w.servers)+1)
	}
	ns := w.servers[len(w.servers)-1].spec
	ns.Name = name
	if ev.Speed > 0 {
		ns.Speed = ev.Speed
	}
	if ev.Workers > 0 {
		ns.Workers = ev.Workers
	}
	before := w.owners()
	if err := w.addServer(ns); err != nil {
		return err
	}
	for _, b := range w.bals {
		b.AddServer(balance.Server{Name: name, Weight: ns.Speed})
	}
	w.col.keysMoved(before, w.owners())
	return nil
}

// owners maps every key to its owner under the first balancer's key-affinity
// algorithm (nil when it has none).
func (w *world) owners() []int {
	if len(w.bals) == 0 {
		return nil
	}
	return w.bals[0].Owners(w.lab.Clients.Keys)
}

// applySet applies dotted-path settings at run time: the lab is updated and
// the parts that depend on them are rebuilt.
func (w *world) applySet(set map[string]string) error {
	lab, err := w.lab.WithSetting(labfile.Setting{Set: set})
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(set)) { // the lab file refused these already; a drill too (CheckDrill)
		if err := w.lab.FixedChange(lab, k); err != nil {
			return err
		}
	}
	was := w.lab
	w.lab = lab
	return w.reconfigure(was)
}

// reconfigure brings the running parts in line with w.lab after a set
// (was: the lab before it).
func (w *world) reconfigure(was *labfile.Lab) error {
	cc, err := assemble.ClientConfig(w.lab)
	if err != nil {
		return err
	}
	w.rt.Reconfigure(cc)
	w.net = assemble.Network(w.lab) // network.hop and jitter: the legs that start from now
	if err := w.retune(); err != nil {
		return err
	}
	specs := w.lab.ExpandServers()
	for i, s := range w.servers {
		if i < len(specs) {
			if err := w.respec(i, s, specs[i]); err != nil {
				return err
			}
		}
	}
	if w.lab.Clients.Rate != was.Clients.Rate {
		w.setRate(w.lab.Clients.Rate)
	}
	w.startRefresh() // clients.refresh from 0 turns client-side reports on
	if was.Balancers.Health.Enabled && !w.lab.Balancers.Health.Enabled {
		w.healAll() // at once, as the live lb does
	}
	w.startHealth() // balancers.health.enabled turned on: the rounds start
	return nil
}

// respec carries out a server's changed settings through the core's
// setters (assemble.ApplyServer: the table the live backend applies from
// too); the others are fixed for a run (labfile.FixedAtRunTime).
func (w *world) respec(i int, s *srv, ns labfile.NamedServer) error {
	applied, err := assemble.ApplyServer(s.core, w.now, w.lab, s.spec, ns)
	if err != nil {
		return err
	}
	if slices.Contains(applied, "workers") {
		if _, busy := s.core.Load(); busy > ns.Workers {
			s.draining = busy // they finish; checkServer sees none start
		}
	}
	s.spec = ns
	w.schedWake(i)
	return nil
}

func (w *world) onRefresh() {
	for bi := range w.bals {
		for i, s := range w.servers {
			w.report(bi, i, s.core.Report(w.now))
		}
	}
	w.refreshing = false
	w.startRefresh()
}

// report hands balancer bi server i's load report (the shared refresh, or
// one an answer carries); check mode keeps it, for the shared counts' check.
func (w *world) report(bi, i int, rep load.Report) {
	w.bals[bi].Report(i, rep)
	if w.check {
		for len(w.reported) <= bi {
			w.reported = append(w.reported, nil)
		}
		for len(w.reported[bi]) <= i {
			w.reported[bi] = append(w.reported[bi], load.Report{})
		}
		w.reported[bi][i] = rep
	}
}

// startRefresh schedules the next load report round, if reports are on
// (sharedLoads: a set may turn them on or off, clients.refresh 0 is none)
// and none is pending.
func (w *world) startRefresh() {
	if w.sharedLoads() && !w.refreshing && w.now < w.cutAt {
		w.push(w.now.Add(w.refreshEvery()), evRefresh, 0, 0)
		w.refreshing = true
	}
}

func (w *world) refreshEvery() time.Duration {
	if w.clientLB {
		return w.lab.Clients.Refresh // 0 means none: sharedLoads is false then
	}
	// At least 1 ms, as the live lb polls (internal/shell/lb/poll.go): a
	// refresh of 0 would report again at the same instant for ever.
	return max(w.lab.Balancers.Refresh, time.Millisecond)
}

// onHealth runs one round of active health checks: a server that is down or
// failing fails its check; core/health decides when it leaves rotation and
// when it comes back.
func (w *world) onHealth() {
	w.checking = false
	hc := w.lab.Balancers.Health
	if !hc.Enabled { // a set turned the checks off (healAll ran then)
		return
	}
	if err := w.health.SetConfig(health.Config{Fails: hc.Fails, Passes: hc.Passes}); err != nil {
		w.col.log(w.now, "health checks: "+err.Error())
	}
	for i, s := range w.servers {
		snap := s.core.Snapshot(w.now)
		if !w.health.Observe(i, snap.Up && !snap.Failing) {
			continue
		}
		ok := w.health.Healthy(i)
		for _, b := range w.bals {
			b.SetHealthy(i, ok)
		}
		w.col.log(w.now, w.health.Describe(i, s.spec.Name))
	}
	w.startHealth()
}

// startHealth schedules the next round of active health checks, if they
// are on (a set may turn them on or off; clients that balance themselves
// have none) and none is pending.
func (w *world) startHealth() {
	if w.lab.Balancers.Health.Enabled && !w.clientLB && !w.checking && w.now < w.cutAt {
		w.push(w.now.Add(w.lab.Balancers.Health.Interval), evHealth, 0, 0)
		w.checking = true
	}
}

// healAll puts every server back in rotation with fresh check counts, as
// the live lb does when a set turns the health checks off.
func (w *world) healAll() {
	for i, s := range w.servers {
		ok := w.health.Healthy(i)
		w.health.Reset(i)
		if ok {
			continue
		}
		for _, b := range w.bals {
			b.SetHealthy(i, true)
		}
		w.col.log(w.now, health.DescribeOff(s.spec.Name))
	}
}
