package torture

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	livelab "github.com/lblab/lblab/internal/lab"
	"github.com/lblab/lblab/internal/rng"
)

// The process faults of lab torture --live. A live lab's tree carries its
// faults under the top-level key x-faults (labyaml.Parse ignores keys
// starting with x-), so the shrinker drops them one by one like events, and
// its restart policy under x-restart.
const (
	faultsKey  = "x-faults"
	restartKey = "x-restart"
)

// The kinds of process fault, each a swarm feature of its own.
const (
	faultStop   = "stop"   // SIGSTOP the target, SIGCONT it `for` later
	faultKill   = "kill"   // SIGKILL the target (lab brings it back under x-restart)
	faultStarve = "starve" // busy processes, one per CPU, beside the lab for `for`
)

var faultKinds = []string{faultStop, faultKill, faultStarve}

// fault is one drawn process fault.
type fault struct {
	At     time.Duration
	Kind   string
	Target string        // a process name (lb1, s2, loadgen); none for starve
	For    time.Duration // stop, starve
}

func (f fault) String() string {
	s := fmt.Sprintf("%s %s", f.Kind, f.Target)
	if f.Target == "" {
		s = f.Kind
	}
	if f.For > 0 {
		s += " for " + f.For.String()
	}
	return fmt.Sprintf("%s at %v", s, f.At)
}

// drawFaults draws the process faults of a live lab: kinds by swarm coins,
// one to four faults at random instants, every stop and starvation over
// before the traffic ends (so no request waits for a process that is still
// frozen when the loadgen stops), aimed at the processes the lab starts
// with: its balancers (none when clients balance themselves), its servers
// and the loadgen (stopped, starved, never killed: it holds the report).
func drawFaults(seed uint64, d *Drawn) {
	g := &gen{src: rng.Split(seed, "faults")}
	tree := d.Tree
	duration := tree.Get("duration").(time.Duration)
	var procs, killable []string
	clients := tree.Get("clients").(Map)
	if clients.Get("algorithm") == nil {
		n, _ := tree.Get("balancers").(Map).Get("count").(int)
		for i := range max(n, 1) {
			procs = append(procs, "lb"+strconv.Itoa(i+1))
		}
	}
	servers := 0 // servers are named by their place in the fleet, or their own name
	for _, grp := range tree.Get("servers").(List) {
		n, ok := grp.(Map).Get("count").(int)
		if !ok {
			n = 1
		}
		for range n {
			servers++
			name, ok := grp.(Map).Get("name").(string)
			if !ok {
				name = "s" + strconv.Itoa(servers)
			}
			procs = append(procs, name)
		}
	}
	killable = slices.Clone(procs)
	procs = append(procs, "loadgen")
	var kinds []string
	for _, k := range faultKinds {
		if g.coin("fault-"+k, 0.6) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		kinds = []string{faultStop}
		g.features = append(g.features, "fault-stop")
	}
	if g.coin("restart-on-failure", 0.5) {
		tree.Set(restartKey, true)
	}
	n := g.intIn(1, 4)
	last := int(duration/time.Millisecond) - 300
	var out List
	var drawn []fault
	for range n {
		f := fault{Kind: pick(g, kinds), At: g.ms(100, last)}
		if f.Kind != faultStarve {
			if f.Kind == faultKill {
				f.Target = pick(g, killable)
			} else {
				f.Target = pick(g, procs)
			}
		}
		if f.Kind != faultKill {
			room := int((duration-f.At)/time.Millisecond) - 200
			f.For = g.ms(min(50, room), min(3000, room))
		}
		drawn = append(drawn, f)
	}
	slices.SortStableFunc(drawn, func(a, b fault) int { return int(a.At - b.At) })
	for _, f := range drawn {
		m := Map{{"at", f.At}, {"fault", f.Kind}}
		if f.Target != "" {
			m.Set("target", f.Target)
		}
		if f.For > 0 {
			m.Set("for", f.For)
		}
		out = append(out, m)
	}
	tree.Set(faultsKey, out)
	d.Tree = tree
	d.Features = append(d.Features, g.features...)
}

// faultsOf reads the faults of a tree; an error is a fault the shrinker
// left without what it needs, or one the lab's duration no longer holds.
func faultsOf(tree Map) ([]fault, bool, error) {
	restart, _ := tree.Get(restartKey).(bool)
	duration, _ := tree.Get("duration").(time.Duration)
	list, _ := tree.Get(faultsKey).(List)
	var out []fault
	for i, e := range list {
		m, ok := e.(Map)
		if !ok {
			return nil, false, fmt.Errorf("%s[%d]: not a mapping", faultsKey, i)
		}
		f := fault{}
		f.At, _ = m.Get("at").(time.Duration)
		f.Kind, _ = m.Get("fault").(string)
		f.Target, _ = m.Get("target").(string)
		f.For, _ = m.Get("for").(time.Duration)
		switch {
		case !slices.Contains(faultKinds, f.Kind):
			return nil, false, fmt.Errorf("%s[%d]: unknown fault %q", faultsKey, i, f.Kind)
		case f.Kind != faultStarve && f.Target == "":
			return nil, false, fmt.Errorf("%s[%d]: %s needs a target", faultsKey, i, f.Kind)
		case f.Kind != faultKill && f.For <= 0:
			return nil, false, fmt.Errorf("%s[%d]: %s needs for", faultsKey, i, f.Kind)
		case f.At+f.For >= duration:
			return nil, false, fmt.Errorf("%s[%d]: ends at %v, not before the end of the lab (%v)", faultsKey, i, f.At+f.For, duration)
		}
		out = append(out, f)
	}
	return out, restart, nil
}

// faultTime is how long the faults hold processes up, in all: the most a
// request's wait can grow by them.
func faultTime(faults []fault) time.Duration {
	var t time.Duration
	for _, f := range faults {
		t += f.For
		if f.Kind == faultKill {
			t += time.Second // a restart waits 1 s
		}
	}
	return t
}

// injector sends a lab's faults to its processes. Signals go through
// os.Process (a pidfd where the kernel has them), so a process that has
// exited is never confused with another that took its pid.
type injector struct {
	faults []fault
	spin   func(d time.Duration) *exec.Cmd // a busy process for d

	mu       sync.Mutex
	injected map[string]int // faults applied, by kind
	missed   int            // faults whose target was gone
}

// step is one signal of the timeline: a fault's start or its end.
type step struct {
	at  time.Duration
	i   int  // the fault
	end bool // SIGCONT, or the end of a starvation
}

// run applies the faults from now, the start of the traffic, until they are
// all done or ctx ends; whatever it froze or started is undone before it
// returns.
func (in *injector) run(ctx context.Context, procs func() []livelab.Process) {
	start := time.Now()
	var steps []step
	for i, f := range in.faults {
		steps = append(steps, step{at: f.At, i: i})
		if f.Kind != faultKill {
			steps = append(steps, step{at: f.At + f.For, i: i, end: true})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int { return int(a.at - b.at) })
	stopped := map[int]livelab.Process{} // fault -> the process it froze
	spinners := map[int][]*exec.Cmd{}
	undo := func(i int) {
		if p, ok := stopped[i]; ok {
			_ = p.Signal(syscall.SIGCONT)
			delete(stopped, i)
		}
		for _, c := range spinners[i] {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
		delete(spinners, i)
	}
	defer func() {
		for i := range in.faults {
			undo(i)
		}
	}()
	for _, s := range steps {
		t := time.NewTimer(time.Until(start.Add(s.at)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		f := in.faults[s.i]
		if s.end {
			undo(s.i)
			continue
		}
		switch f.Kind {
		case faultStarve:
			for range 4 * runtime.NumCPU() { // four per CPU: every thread of the lab waits its turn behind them
				c := in.spin(f.For)
				if c.Start() == nil {
					spinners[s.i] = append(spinners[s.i], c)
				}
			}
			in.count(f.Kind, len(spinners[s.i]) > 0)
		case faultStop, faultKill:
			p, ok := find(procs(), f.Target)
			sig := syscall.SIGKILL
			if f.Kind == faultStop {
				sig = syscall.SIGSTOP
			}
			ok = ok && p.Signal(sig) == nil
			if ok && f.Kind == faultStop {
				stopped[s.i] = p
			}
			in.count(f.Kind, ok)
		}
	}
}

func (in *injector) count(kind string, ok bool) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if ok {
		in.injected[kind]++
	} else {
		in.missed++
	}
}

func find(procs []livelab.Process, name string) (livelab.Process, bool) {
	for _, p := range procs {
		if p.Name == name {
			return p, true
		}
	}
	return livelab.Process{}, false
}
