package sim

import (
	"fmt"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/hedge"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/workload"
)

// drainLimit is how long after the last arrival pending requests may still
// finish before the run cuts them off (they count as timed out).
const drainLimit = 30 * clock.Instant(1e9)

// newWorld builds a run of lab (already validated and with the setting applied).
func newWorld(lab *labfile.Lab, name string, opts Options) (*world, error) {
	w := &world{lab: lab, name: name, seed: lab.Seed, hop: lab.Network.Hop, jitter: lab.Network.Jitter,
		check: opts.Check}
	w.stopAt = clock.Instant(lab.Duration)
	w.cutAt = w.stopAt + drainLimit
	for _, ns := range lab.ExpandServers() {
		if err := w.addServer(ns); err != nil {
			return nil, err
		}
	}
	if err := w.buildClient(); err != nil {
		return nil, err
	}
	if err := w.buildBalancers(); err != nil {
		return nil, err
	}
	if err := w.buildStream(); err != nil {
		return nil, err
	}
	w.col = newCollector(w, opts.Series)
	return w, nil
}

// serverConfig maps a lab server to the core's config.
func (w *world) serverConfig(ns labfile.NamedServer) (server.Config, error) {
	work := w.lab.ServerWork(ns.Server)
	lim, err := policy.NewLimit(policy.LimitSpec{Kind: ns.Limiter.Kind, Initial: ns.Limiter.Initial,
		Min: ns.Limiter.Min, Max: ns.Limiter.Max, MeanService: work.Mean()})
	if err != nil {
		return server.Config{}, fmt.Errorf("server %s: %w", ns.Name, err)
	}
	return server.Config{
		Name: ns.Name, Workers: ns.Workers, QueueCap: ns.Queue.Capacity, LIFO: ns.Queue.Discipline == "lifo",
		DropExpired: ns.DropExpired, MaxOutstanding: ns.MaxOutstanding, QueueTimeout: ns.QueueTimeout,
		Speed: ns.Speed, Work: work, GCEvery: ns.GC.Every, GCPause: ns.GC.Pause, Errors: ns.Errors,
		Fail: ns.Fail, ErrorTime: ns.ErrorTime, CacheSize: ns.Cache.Size, HitFactor: ns.Cache.HitFactor,
		Limit: lim, Seed: w.seed,
	}, nil
}

func (w *world) addServer(ns labfile.NamedServer) error {
	cfg, err := w.serverConfig(ns)
	if err != nil {
		return err
	}
	core, err := server.New(cfg)
	if err != nil {
		return fmt.Errorf("server %s: %w", ns.Name, err)
	}
	w.servers = append(w.servers, &srv{core: core, spec: ns, wakeAt: clock.Never})
	w.health = append(w.health, healthState{healthy: true})
	w.schedWake(len(w.servers) - 1)
	return nil
}

func (w *world) buildClient() error {
	c := w.lab.Clients
	jitter := c.Backoff.Jitter != "none"
	w.client = policy.Client{Cfg: policy.ClientConfig{Timeout: c.Timeout, AttemptTimeout: c.AttemptTimeout,
		Retries: c.Retries, Backoff: retry.Backoff{Base: c.Backoff.Base, Jitter: jitter},
		Seed: rng.Hash(w.seed, 0, rng.StringHash("backoff"))}}
	if c.Budget > 0 {
		b, err := retry.NewBudget(c.Budget)
		if err != nil {
			return fmt.Errorf("clients.budget: %w", err)
		}
		w.client.Budget = b
	}
	hc, on, err := hedge.Parse(c.Hedge)
	if err != nil {
		return fmt.Errorf("clients.hedge: %w", err)
	}
	if on {
		h, err := hedge.New(hc)
		if err != nil {
			return fmt.Errorf("clients.hedge: %w", err)
		}
		w.client.Hedger = h
	}
	return nil
}

// buildBalancers makes the balancer tier, or one pipeline per client id when
// clients balance themselves.
func (w *world) buildBalancers() error {
	var servers []balance.Server
	for _, s := range w.servers {
		servers = append(servers, balance.Server{Name: s.spec.Name, Weight: s.spec.Speed})
	}
	n, cfg := w.lab.Balancers.Count, w.balancerConfig()
	if w.lab.Clients.Algorithm != "" {
		w.clientLB, n = true, w.lab.Clients.Count
	}
	w.bals = make([]*policy.Balancer, n)
	for i := range w.bals {
		cfg.Salt = uint64(i) + 1
		cfg.Algorithm.Salt = cfg.Salt
		b, err := policy.NewBalancer(cfg, servers)
		if err != nil {
			return err
		}
		bi := i
		b.OnBreaker = func(now clock.Instant, s int, from, to breaker.State) { w.col.breaker(now, bi, s, from, to) }
		w.bals[i] = b
	}
	return nil
}

// balancerConfig is the pipeline config of the balancers (or of the clients
// when they balance themselves).
func (w *world) balancerConfig() policy.BalancerConfig {
	b, c := w.lab.Balancers, w.lab.Clients
	cfg := policy.BalancerConfig{
		Algorithm: balance.Config{Name: b.Algorithm, Seed: w.seed, Choices: b.Choices, VNodes: b.VNodes, Epsilon: b.Epsilon},
		Load:      load.Local, Decay: b.Decay, Timeout: b.Timeout, Subset: b.Subset, Seed: w.seed,
	}
	if b.Load == "shared" {
		cfg.Load = load.Shared
	}
	if b.Breaker.Enabled {
		cfg.Breaker = &breaker.Config{Window: b.Breaker.Window, Threshold: b.Breaker.Threshold,
			Open: b.Breaker.Open, Probes: b.Breaker.Probes}
	}
	if c.Algorithm != "" {
		cfg.Algorithm.Name, cfg.Subset, cfg.Timeout, cfg.Load = c.Algorithm, c.Subset, 0, load.Local
	}
	return cfg
}

func (w *world) buildStream() error {
	c := w.lab.Clients
	work, err := c.Work.Build()
	if err != nil {
		return fmt.Errorf("clients.work: %w", err)
	}
	rate := c.Rate
	if c.Mode == "closed" {
		rate = 0
	}
	s, err := workload.New(workload.Config{Seed: w.seed, Rate: rate, Clients: c.Count,
		UnevenClients: c.Activity == "zipf", Keys: c.Keys, ZipfS: c.Zipf, Work: work, Think: c.Think})
	if err != nil {
		return fmt.Errorf("clients: %w", err)
	}
	w.stream = s
	if c.Mode == "closed" {
		w.users = c.Users
	}
	return nil
}
