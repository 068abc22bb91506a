package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/proxies"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Options configure how a lab's processes are started.
type Options struct {
	Launch proc.Launcher
	Logs   io.Writer   // the processes' stderr (their logs)
	Log    *zap.Logger // lab's own log
	LBAddr string      // the first balancer's traffic address ("" = any free port)
	Dir    string      // where lab files for the processes are written ("" = a temp dir)
	// MaxProcesses bounds the processes a run may start (0 =
	// DefaultMaxProcesses); see CheckFleet.
	MaxProcesses int
	// Token is the admin token of the processes: lab up and lab run give
	// it to those they start ("" = a fresh random one), lab dashboard
	// presents it to those it attaches to. Access guards the controller
	// itself (its token may be "" on a loopback address).
	Token  string
	Access wire.Access
	// Restart says what lab up does when a process exits on its own.
	Restart proc.RestartPolicy
	// Budget is what a lab may cost (lab up --max-cost; zero: the default),
	// checked for a scenario and a drill that changes settings.
	Budget assemble.Budget
}

// fleet is one running copy of a lab: its backends and balancers.
type fleet struct {
	opts    Options
	lab     *labfile.Lab
	labPath string
	dir     string
	ownDir  bool
	tls     tlsFiles // the certificate made at start under network.tls (tls.go)

	mu       sync.Mutex   // guards backends, lbs and stopped: drills add servers, restarts replace them, while others read
	backends []*proc.Proc // in server order; added servers at the end
	lbs      []*proc.Proc
	initial  int              // backends started with the fleet (the rest were added)
	onStart  func(*proc.Proc) // called for each process added later (supervision)
	stopped  bool             // stop has begun: no process joins any more
	proxy    *externalProxy   // the external balancer tier (balancers.kind), if the lab has one (external.go)
	// agentScale is the capacity the backends' agent checks answer as
	// 100% (agentArgs), set when the first backend starts
	agentScale float64
}

// startFleet writes the lab for the processes and starts a backend per
// server and (unless clients balance themselves) the balancers.
func startFleet(ctx context.Context, lab *labfile.Lab, opts Options) (*fleet, error) {
	f := &fleet{opts: opts, lab: lab, dir: opts.Dir}
	if f.dir == "" {
		dir, err := os.MkdirTemp("", "lblab-")
		if err != nil {
			return nil, err
		}
		f.dir, f.ownDir = dir, true
	}
	var err error
	if f.labPath, err = f.writeLab(lab, "lab.yaml"); err != nil {
		return nil, err
	}
	if err := f.makeCert(); err != nil {
		f.stop()
		return nil, err
	}
	if err := f.startBackends(ctx); err != nil {
		f.stop()
		return nil, err
	}
	f.initial = len(f.servers())
	if p, ok := proxies.Of(lab); ok {
		if err := f.startExternal(ctx, p); err != nil {
			f.stop()
			return nil, err
		}
	} else if lab.Clients.Algorithm == "" {
		if err := f.startBalancers(ctx); err != nil {
			f.stop()
			return nil, err
		}
		if err := f.tellBalancers(ctx, f.servers()...); err != nil {
			f.stop()
			return nil, err
		}
	}
	return f, nil
}

// writeLab writes the lab the processes read. They run one setting, so the
// compare list is left out: a setting valid on the lab as written may not
// be on top of another one already applied (client-side's aperture arms on
// a lab whose clients no longer balance themselves), and the processes
// would refuse the file.
func (f *fleet) writeLab(lab *labfile.Lab, name string) (string, error) {
	one := lab.Clone()
	one.Compare = nil
	data, err := labyaml.Marshal(one)
	if err != nil {
		return "", err
	}
	path := filepath.Join(f.dir, name)
	return path, os.WriteFile(path, data, 0o644)
}

// startBackends starts every server of the lab, all at once. Every process
// that started is recorded, even when another failed, so that stop stops
// it; the error is the first failure in server order.
func (f *fleet) startBackends(ctx context.Context) error {
	servers := f.lab.ExpandServers()
	procs := make([]*proc.Proc, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, ns := range servers {
		wg.Go(func() { procs[i], errs[i] = f.startBackend(ctx, f.labPath, ns.Name) })
	}
	wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	var first error
	for i, p := range procs {
		if p != nil {
			f.backends = append(f.backends, p)
		} else if first == nil {
			first = errs[i]
		}
	}
	return first
}

func (f *fleet) startBackend(ctx context.Context, labPath, name string) (*proc.Proc, error) {
	args := []string{"--lab", labPath, "--name", name, "--addr", "127.0.0.1:0", "--admin", "127.0.0.1:0"}
	args = append(append(args, f.tls.serverArgs()...), f.agentArgs()...)
	return proc.Start(ctx, f.opts.Launch, "backend", name, args, f.opts.Logs, f.opts.Log)
}

// agentArgs start a backend's agent check when the lab's external proxy
// weighs servers by it for some algorithm (HAProxy), whatever the lab's
// algorithm is now, since an algorithm drill may switch to one that does:
// on a free port, answering the fleet's mean nominal capacity as 100%, the
// same for every server (an added one too), so the answers are in one
// unit.
func (f *fleet) agentArgs() []string {
	p, ok := proxies.Of(f.lab)
	if !ok || !slices.ContainsFunc(p.Algorithms, func(a proxies.Algorithm) bool { return a.Agent }) {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.agentScale == 0 {
		f.agentScale = f.lab.FleetCapacity()
	}
	return []string{"--agent", "127.0.0.1:0", "--agent-scale", strconv.FormatFloat(f.agentScale, 'g', -1, 64)}
}

// backendList is name=addr,... (data, or admin addresses).
func (f *fleet) backendList(admin bool) string {
	var parts []string
	for _, b := range f.servers() {
		addr := b.Ready.Addr
		if admin {
			addr = b.Ready.Admin
		}
		parts = append(parts, b.Name+"="+addr)
	}
	return strings.Join(parts, ",")
}

func (f *fleet) startBalancers(ctx context.Context) error {
	for i := 0; i < f.lab.Balancers.Count; i++ {
		addr := "127.0.0.1:0"
		if i == 0 && f.opts.LBAddr != "" {
			addr = f.opts.LBAddr
		}
		name := labfile.BalancerName(i)
		args := []string{"--lab", f.labPath, "--name", name, "--index", strconv.Itoa(i),
			"--backends", f.backendList(false), "--backend-admins", f.backendList(true),
			"--addr", addr, "--admin", "127.0.0.1:0"}
		args = append(append(args, f.tls.serverArgs()...), f.tls.clientArgs()...)
		p, err := proc.Start(ctx, f.opts.Launch, "lb", name, args, f.opts.Logs, f.opts.Log)
		if err != nil {
			return err
		}
		f.mu.Lock()
		f.lbs = append(f.lbs, p)
		f.mu.Unlock()
	}
	return nil
}

// tellBalancers gives each of backends the balancers' admin addresses, in
// tier order, when an algorithm of the lab keeps an idle queue the servers
// announce themselves to (jiq: assemble.Announces); nothing otherwise.
func (f *fleet) tellBalancers(ctx context.Context, backends ...*proc.Proc) error {
	if !assemble.Announces(f.lab) {
		return nil
	}
	lbs := f.balancers()
	if len(lbs) == 0 {
		return nil
	}
	body := wire.IdleBalancers{}
	for _, l := range lbs {
		body.Balancers = append(body.Balancers, l.Ready.Admin)
	}
	for _, b := range backends {
		if err := admin.Call(ctx, b.Ready.Admin, "POST", wire.BalancersPath, body, nil); err != nil {
			return fmt.Errorf("telling %s the balancers it announces itself idle to: %w", b.Name, err)
		}
	}
	return nil
}

// loadgenArgs are the loadgen's --target (balancers; client ids spread over
// them) or --servers (client-side balancing) argument, and --admins: where
// it cancels a hedge's loser (each balancer's, or server's, admin address
// by its data address).
func (f *fleet) loadgenArgs() []string {
	if x := f.external(); x != nil { // a proxy: no admin API to cancel a hedge's loser at
		return []string{"--target", f.lab.Balancers.Algorithm + "=http://" + x.proc.Ready.Addr}
	}
	lbs := f.balancers()
	if len(lbs) == 0 {
		return []string{"--servers", f.backendList(false), "--admins", adminsList(f.servers())}
	}
	var urls []string
	for _, l := range lbs {
		urls = append(urls, "http://"+l.Ready.Addr)
	}
	return []string{"--target", f.lab.Balancers.Algorithm + "=" + strings.Join(urls, "|"),
		"--admins", adminsList(lbs)}
}

// adminsList is data=admin,... of procs.
func adminsList(procs []*proc.Proc) string {
	parts := make([]string, len(procs))
	for i, p := range procs {
		parts[i] = p.Ready.Addr + "=" + p.Ready.Admin
	}
	return strings.Join(parts, ",")
}

// addBackend starts a new server like the lab's last one, named name, and
// adds it to every process in holders (see script.holders).
func (f *fleet) addBackend(ctx context.Context, ev labfile.Event, holders []*proc.Proc) error {
	name := ev.Target
	path, err := f.writeLab(addedServerLab(f.lab, ev), "lab-"+name+".yaml")
	if err != nil {
		return err
	}
	p, err := f.startBackend(ctx, path, name)
	if err != nil {
		return err
	}
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		p.Stop()
		return fmt.Errorf("the lab is stopping")
	}
	f.backends = append(f.backends, p)
	f.mu.Unlock()
	if f.onStart != nil {
		f.onStart(p)
	}
	// its speed weighs it, as the simulator's balancers do (else the lb's lab's weight for the name)
	body := wire.BackendSpec{Name: name, Addr: p.Ready.Addr, Admin: p.Ready.Admin, Weight: ev.Speed}
	for _, l := range holders {
		if err := admin.Call(ctx, l.Ready.Admin, "POST", "/admin/backends", body, nil); err != nil {
			return err
		}
	}
	if len(holders) == 0 || holders[0].Role != "lb" {
		return nil // clients balance themselves, or a proxy: no idle queue to announce to
	}
	return f.tellBalancers(ctx, p)
}

// stop stops every process of the fleet, all at once, and removes its files.
func (f *fleet) stop() {
	f.mu.Lock()
	f.stopped = true
	f.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range f.all() {
		wg.Go(p.Stop)
	}
	if x := f.external(); x != nil {
		wg.Go(x.proc.Stop)
	}
	wg.Wait()
	if f.ownDir {
		os.RemoveAll(f.dir)
	}
}

// external is the fleet's external proxy (nil: none).
func (f *fleet) external() *externalProxy {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.proxy
}

// balancers returns the balancers.
func (f *fleet) balancers() []*proc.Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*proc.Proc(nil), f.lbs...)
}

// all returns every process, balancers first.
func (f *fleet) all() []*proc.Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append(append([]*proc.Proc(nil), f.lbs...), f.backends...)
}

// servers returns the backend processes, in server order.
func (f *fleet) servers() []*proc.Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*proc.Proc(nil), f.backends...)
}

// The process cap: every process a live run starts (a backend per server,
// an lb per balancer or the external proxy, the loadgen) is a Go program or
// a proxy of some 20 MB; a few hundred starting at once swamp a laptop (42
// servers took 800 MB; balancers: {count: 1000} started 316 lbs and 7 GB
// in 5 s before this counted them). CheckFleet is the one rule: lab run,
// lab up, lab sweep --live, the scenarios lab up switches to and the
// add-server drills are all held to it.

// ProcessesFlag is the flag that raises the cap (lab run, up, sweep).
const ProcessesFlag = "max-processes"

// DefaultMaxProcesses is the cap unless --max-processes says otherwise:
// about 1 GB of processes, the cost budget's memory (assemble.DefaultBudget);
// a lab of 40 servers behind a few lbs fits, balls-bins (1000 servers) is
// for lab sim.
const DefaultMaxProcesses = 50

// Processes are the processes a live run of a lab starts over its life.
type Processes struct {
	Servers int // a backend per server, with those its script and drills add
	Added   int // of which added by add-server events
	// Balancers are the lb processes (balancers.count), or 1 for an
	// external proxy (balancers.kind), or 0 when clients balance
	// themselves.
	Balancers int
	Proxy     string // the external proxy's name, if the tier is one
	Loadgen   int    // 1
}

// CountProcesses counts what a live run of lab starts: its servers, one
// more for each add-server event of its script, its balancer tier and the
// loadgen. A server removed and added again counts twice.
func CountProcesses(lab *labfile.Lab) Processes {
	p := Processes{Servers: len(lab.ExpandServers()), Loadgen: 1}
	for _, ev := range lab.Events {
		if ev.Action == labfile.ActionAddServer {
			p.Added++
		}
	}
	p.Servers += p.Added
	switch x, ok := proxies.Of(lab); {
	case ok:
		p.Balancers, p.Proxy = 1, x.Name
	case lab.Clients.Algorithm == "":
		p.Balancers = lab.Balancers.Count
	}
	return p
}

// Total is the number of processes.
func (p Processes) Total() int { return p.Servers + p.Balancers + p.Loadgen }

// String says what they are: 1000 servers, 1 lb, 1 loadgen.
func (p Processes) String() string {
	parts := []string{plural(p.Servers, "server")}
	if p.Added > 0 {
		parts[0] += fmt.Sprintf(" (%d of them added by add-server)", p.Added)
	}
	switch {
	case p.Proxy != "":
		parts = append(parts, "1 "+p.Proxy)
	case p.Balancers > 0:
		parts = append(parts, plural(p.Balancers, "lb")+" (balancers.count)")
	}
	return strings.Join(append(parts, plural(p.Loadgen, "loadgen")), ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// CheckFleet refuses a live run of a lab that would start more than max
// processes (0 = DefaultMaxProcesses), counting those its script adds
// (CountProcesses), naming the count and the ways out; then one whose
// external proxy is not installed.
func CheckFleet(lab *labfile.Lab, max int) error {
	max = maxProcesses(max)
	if n := CountProcesses(lab); n.Total() > max {
		return &FleetError{Lab: lab.Name, Processes: n, Max: max, Arg: lab.Name}
	}
	return CheckExternal(lab)
}

// FleetError is a lab too large for a live run. Arg is what to give lab
// sim instead: the lab's name (a built-in scenario), or the file the
// command line named, which the caller sets ("": no hint, for a drill).
type FleetError struct {
	Lab       string
	Processes Processes
	Max       int
	Arg       string
}

func (e *FleetError) Error() string {
	msg := fmt.Sprintf("%s would start %d processes (%s), too many processes for a live run (at most %d; --%s raises it)",
		e.Lab, e.Processes.Total(), e.Processes, e.Max, ProcessesFlag)
	if e.Arg != "" {
		msg += ": try lab sim " + e.Arg
	}
	return msg
}

// checkAddServer refuses an add-server drill that would take the run of
// lab (as drills have left it: its script's and earlier drills' add-server
// events in its events) past max processes: CheckFleet's rule, on the lab
// with the drill added.
func checkAddServer(lab *labfile.Lab, ev labfile.Event, max int) error {
	next := lab.Clone()
	next.Events = append(next.Events, ev)
	if n := CountProcesses(next); n.Total() > maxProcesses(max) {
		return fmt.Errorf("add-server: %w", &FleetError{Lab: lab.Name, Processes: n, Max: maxProcesses(max)})
	}
	return nil
}

// maxProcesses is the --max-processes cap in force (0 = DefaultMaxProcesses).
func maxProcesses(max int) int {
	if max <= 0 {
		return DefaultMaxProcesses
	}
	return max
}
