package lab

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
)

// script applies a lab's timed events to the running processes through
// their admin APIs, at their time after start, and keeps the event log.
type script struct {
	f       *fleet
	loadgen *proc // nil in lab up without a loadgen
	log     *zap.Logger
	events  *eventLog
}

func newScript(f *fleet, loadgen *proc, log *zap.Logger) *script {
	return &script{f: f, loadgen: loadgen, log: log, events: &eventLog{start: time.Now()}}
}

// holders are the processes that hold the server list: the balancers, or
// the loadgen when the clients balance themselves (it has no balancer).
func (s *script) holders() []*proc {
	if lbs := s.f.balancers(); len(lbs) > 0 || s.loadgen == nil {
		return lbs
	}
	return []*proc{s.loadgen}
}

// followBalancers copies every balancer's event stream into the log.
func (s *script) followBalancers(ctx context.Context) {
	for _, p := range s.f.balancers() {
		go s.events.follow(ctx, p)
	}
}

// run hands every event to fire at start + At; it returns when all have
// fired or ctx ends.
func (s *script) run(ctx context.Context, events []labfile.Event, fire func(labfile.Event)) {
	for _, ev := range events {
		wait := time.Until(s.events.start.Add(ev.At))
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		fire(ev)
	}
}

// apply sends one event to the processes it concerns.
func (s *script) apply(ctx context.Context, ev labfile.Event) error {
	switch ev.Action {
	case labfile.ActionSlow, labfile.ActionRestore, labfile.ActionKill, labfile.ActionRestart, labfile.ActionGC,
		labfile.ActionFail, labfile.ActionRecover, labfile.ActionErrors:
		return s.serverAction(ctx, string(ev.Action), ev.Target, actionBody(ev))
	case labfile.ActionRate:
		if s.loadgen == nil {
			return fmt.Errorf("no loadgen is running")
		}
		return call(ctx, s.loadgen.ready.Admin, "PUT", "/admin/rate", map[string]float64{"rate": ev.Rate}, nil)
	case labfile.ActionAlgorithm:
		return s.each(ctx, s.f.balancers(), "PUT", "/admin/algorithm", map[string]string{"algorithm": ev.Algorithm})
	case labfile.ActionAddServer:
		return s.f.addBackend(ctx, ev.Target, s.holders())
	case labfile.ActionRemoveServer:
		return s.each(ctx, s.holders(), "DELETE", "/admin/backends/"+ev.Target, nil)
	case labfile.ActionSet:
		return s.set(ctx, ev.Set)
	}
	return fmt.Errorf("unknown action %q", ev.Action)
}

// actionBody is the JSON body of a server action.
func actionBody(ev labfile.Event) map[string]any {
	switch ev.Action {
	case labfile.ActionSlow:
		return map[string]any{"speed": ev.Speed}
	case labfile.ActionGC:
		return map[string]any{"pause": ev.Pause.String()}
	case labfile.ActionErrors:
		return map[string]any{"share": ev.Share}
	}
	return map[string]any{}
}

// serverAction posts /admin/ACTION to the target server, or all of them.
func (s *script) serverAction(ctx context.Context, action, target string, body any) error {
	var procs []*proc
	for _, b := range s.f.all() {
		if b.role == "backend" && (target == "all" || b.name == target) {
			procs = append(procs, b)
		}
	}
	if len(procs) == 0 {
		return fmt.Errorf("no server %q", target)
	}
	return s.each(ctx, procs, "POST", "/admin/"+action, body)
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
func (s *script) each(ctx context.Context, procs []*proc, method, path string, body any) error {
	var errs []string
	for _, p := range procs {
		if err := call(ctx, p.ready.Admin, method, path, body, nil); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
