package sim

import (
	"fmt"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/health"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

// drainLimit is how long after the last arrival pending requests may still
// finish before the run cuts them off (they count as timed out).
const drainLimit = 30 * clock.Instant(1e9)

// newWorld builds a run of lab (already validated and with the setting applied).
func newWorld(lab *labfile.Lab, name string, opts Options) (*world, error) {
	w := &world{lab: lab, name: name, net: assemble.Network(lab), check: opts.Check, arrivalAt: clock.Never,
		closeReplay: func() {}, maxPending: opts.MaxPending, maxWork: opts.MaxWork, reached: opts.runReached,
		maxMemory: opts.MaxMemory, raise: opts.Raise, stop: opts.Stop, builtStale: true}
	if w.maxPending <= 0 {
		w.maxPending = DefaultMaxPending
	}
	hc := lab.Balancers.Health
	var err error
	if w.health, err = health.New(health.Config{Fails: hc.Fails, Passes: hc.Passes}); err != nil {
		return nil, fmt.Errorf("balancers.health: %w", err)
	}
	w.stopAt = clock.Instant(lab.Duration)
	w.cutAt = w.stopAt + drainLimit
	for _, ns := range lab.ExpandServers() {
		if err := w.addServer(ns); err != nil {
			return nil, err
		}
	}
	if err := w.buildBalancers(); err != nil {
		return nil, err
	}
	w.probing = !w.clientLB && assemble.Probes(lab)
	w.announcing = !w.clientLB && assemble.Announces(lab)
	w.open = make([]int, len(w.bals))
	if err := w.buildClients(opts); err != nil {
		return nil, err
	}
	if err := w.buildConns(); err != nil {
		return nil, err
	}
	w.col = newCollector(w)
	return w, nil
}

func (w *world) addServer(ns labfile.NamedServer) error {
	cfg, err := assemble.ServerConfig(w.lab, ns)
	if err != nil {
		return err
	}
	core, err := server.New(cfg)
	if err != nil {
		return fmt.Errorf("server %s: %w", ns.Name, err)
	}
	w.servers = append(w.servers, &srv{core: core, spec: ns, wakeAt: clock.Never})
	w.schedWake(len(w.servers) - 1)
	return nil
}

// buildBalancers makes the balancer tier, or one pipeline per client id when
// clients balance themselves.
func (w *world) buildBalancers() error {
	servers := assemble.Servers(w.lab)
	n := w.lab.Balancers.Count
	if w.clientLB = assemble.ClientSide(w.lab); w.clientLB {
		n = w.lab.Clients.Count
	}
	w.bals = make([]*policy.Balancer, n)
	for i := range w.bals {
		b, err := assemble.Balancer(w.lab, i, servers)
		if err != nil {
			return err
		}
		bi := i
		b.OnBreaker = func(now clock.Instant, s int, from, to breaker.State) { w.col.breaker(now, bi, s, from, to) }
		b.OnOutlier = func(now clock.Instant, s int, c outlier.Change) { w.col.log(now, c.Describe(w.servers[s].spec.Name)) }
		w.bals[i] = b
	}
	return nil
}

// buildClients makes the client runtime, with the simulator as its
// transport, and its arrivals: the lab's stream, or the trace it replays.
func (w *world) buildClients(opts Options) error {
	cfg, err := assemble.ClientConfig(w.lab)
	if err != nil {
		return err
	}
	cfg.Series = opts.Series
	if w.clientLB {
		cfg.Balancers = w.bals
	}
	if opts.Logs != nil {
		cfg.Log = opts.Logs(w.name)
	}
	if opts.trips > 0 {
		w.trace = newTracer(w, opts.trips)
		cfg.Log = report.Tee(cfg.Log, w.trace)
	}
	w.stream, w.users = cfg.Stream, cfg.Users
	if opts.Replay != nil {
		rc, err := opts.Replay.Open()
		if err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		w.closeReplay = func() { rc.Close() }
		if w.stream, err = workload.NewReplay(rc, opts.Replay.Name, cfg.Stream); err != nil {
			rc.Close()
			return err
		}
		w.users, cfg.Users = 0, 0 // the trace's instants are the arrivals
	}
	w.rt = client.New[transit](cfg, w)
	return nil
}
