package lab

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/gather"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
)

// script applies a lab's timed events to the running processes through
// their admin APIs, at their time after start, and keeps the event log.
type script struct {
	f       *fleet
	loadgen *proc.Proc // nil in lab up without a loadgen
	log     *zap.Logger
	events  *gather.Log
	// drive carries an event out; nil means on the processes, through
	// their admin APIs (liveDrills). Tests give their own.
	drive func(ctx context.Context, ev labfile.Event) error
}

func newScript(f *fleet, loadgen *proc.Proc, log *zap.Logger) *script {
	return &script{f: f, loadgen: loadgen, log: log, events: gather.NewLog(time.Now())}
}

// holders are the processes that hold the server list: the balancers, or
// the loadgen when the clients balance themselves (it has no balancer).
func (s *script) holders() []*proc.Proc {
	if lbs := s.f.balancers(); len(lbs) > 0 || s.loadgen == nil {
		return lbs
	}
	return []*proc.Proc{s.loadgen}
}

// followBalancers copies every balancer's event stream into the log.
func (s *script) followBalancers(ctx context.Context) {
	for _, p := range s.f.balancers() {
		go s.events.Follow(ctx, p)
	}
}

// run hands every event to fire at start + At; it returns when all have
// fired or ctx ends.
func (s *script) run(ctx context.Context, events []labfile.Event, fire func(labfile.Event)) {
	for _, ev := range events {
		wait := time.Until(s.events.Start().Add(ev.At))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		fire(ev)
	}
}

// apply sends one event to the processes it concerns (labfile.Run).
func (s *script) apply(ctx context.Context, ev labfile.Event) error {
	if s.drive != nil {
		return s.drive(ctx, ev)
	}
	return labfile.Run(liveDrills{s, ctx}, ev)
}

// liveDrills carries drills out on the running processes (labfile.Driver)
// through their admin APIs.
type liveDrills struct {
	s   *script
	ctx context.Context
}

// Servers posts the drill, as its event JSON, to the POST /admin/drill of
// the target's backend or of every backend, which applies it to its core.
func (d liveDrills) Servers(dr *labfile.Drill, ev labfile.Event) error {
	var procs []*proc.Proc
	var inZone []string // a zone drill's: the servers of its zone among those running
	if dr.Zone {
		var names []string
		for _, b := range d.s.f.all() {
			if b.Role == "backend" {
				names = append(names, b.Name)
			}
		}
		inZone = d.s.f.lab.ServersIn(ev.Target, names)
	}
	for _, b := range d.s.f.all() {
		if b.Role == "backend" && (ev.Target == "all" || b.Name == ev.Target || slices.Contains(inZone, b.Name)) {
			procs = append(procs, b)
		}
	}
	if len(procs) == 0 {
		return fmt.Errorf("no server %q", ev.Target)
	}
	// Applied now (the lab itself schedules an undo), to the server that
	// takes it: the lab's name for it may not be the process's own (lab
	// dashboard --backends web1=ADDR), so the target is left out.
	ev.At, ev.For, ev.Target = 0, 0, ""
	return d.s.each(d.ctx, procs, "POST", "/admin/drill", ev)
}

func (d liveDrills) Rate(rate float64) error {
	if d.s.loadgen == nil {
		return fmt.Errorf("no loadgen is running")
	}
	return admin.Call(d.ctx, d.s.loadgen.Ready.Admin, "PUT", "/admin/rate", map[string]float64{"rate": rate}, nil)
}

func (d liveDrills) Algorithm(name string) error {
	if x := d.s.f.external(); x != nil { // a proxy in the lb's place: its configuration is rewritten and reloaded
		return d.s.logged(x.reload(d.ctx, name))
	}
	return d.s.each(d.ctx, d.s.f.balancers(), "PUT", "/admin/algorithm", map[string]string{"algorithm": name})
}

func (d liveDrills) AddServer(ev labfile.Event) error {
	if x := d.s.f.external(); x != nil { // a proxy: the new server joins its configuration through a reload
		return d.s.f.addProxied(d.ctx, x, ev, d.s.events)
	}
	return d.s.f.addBackend(d.ctx, ev, d.s.holders())
}

func (d liveDrills) RemoveServer(name string) error {
	if x := d.s.f.external(); x != nil {
		return d.s.logged(x.removeServer(d.ctx, name))
	}
	return d.s.each(d.ctx, d.s.holders(), "DELETE", "/admin/backends/"+name, nil)
}

func (d liveDrills) Set(set map[string]string) error {
	if err := d.s.set(d.ctx, set); err != nil {
		return err
	}
	if x := d.s.f.external(); x != nil { // its balancers settings: the configuration is rewritten and reloaded
		return d.s.logged(x.set(d.ctx, set))
	}
	return nil
}

// logged adds a proxy's reload line to the log (none when text is "").
func (s *script) logged(text string, err error) error {
	if err == nil && text != "" {
		s.events.Add(time.Now(), text)
	}
	return err
}

// set sends every dotted-path setting to every process; each applies what
// concerns it (servers.* the backends, balancers.* the lbs, clients.* the loadgen).
func (s *script) set(ctx context.Context, set map[string]string) error {
	procs := s.f.all()
	if s.loadgen != nil {
		procs = append(procs, s.loadgen)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		body := map[string]string{"path": k, "value": set[k]}
		if err := s.each(ctx, procs, "POST", "/admin/set", body); err != nil {
			return err
		}
	}
	return nil
}

// each sends the same admin call to every process; it reports all failures.
func (s *script) each(ctx context.Context, procs []*proc.Proc, method, path string, body any) error {
	var errs []string
	for _, p := range procs {
		if err := admin.Call(ctx, p.Ready.Admin, method, path, body, nil); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
