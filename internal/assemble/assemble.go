// Package assemble turns a lab file into the policy objects that both
// drivers run: the simulator and the live processes call the same functions,
// so a live run replays the simulator's requests with the simulator's
// policies. No I/O, no clocks.
package assemble

import (
	"fmt"
	"math"
	"slices"

	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/hedge"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/core/slowstart"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/rng"
	"github.com/lblab/lblab/internal/workload"
)

// LimitSpec is the concurrency limiter a lab server asks for (Kind "" = none).
func LimitSpec(lab *labfile.Lab, ns labfile.NamedServer) limit.Spec {
	return limit.Spec{Kind: ns.Limiter.Kind, Initial: ns.Limiter.Initial, Min: ns.Limiter.Min,
		Max: ns.Limiter.Max, MeanService: lab.ServerWork(ns.Server).Mean()}
}

// ServerConfig maps one lab server to the emulated server's config.
func ServerConfig(lab *labfile.Lab, ns labfile.NamedServer) (server.Config, error) {
	work := lab.ServerWork(ns.Server)
	lim, err := limit.New(LimitSpec(lab, ns))
	if err != nil {
		return server.Config{}, fmt.Errorf("server %s: %w", ns.Name, err)
	}
	return server.Config{
		Name: ns.Name, Workers: ns.Workers, QueueCap: ns.Queue.Capacity, LIFO: ns.Queue.Discipline == labfile.LIFO,
		DropExpired: ns.DropExpired, MaxOutstanding: ns.MaxOutstanding, QueueTimeout: ns.QueueTimeout,
		Speed: ns.Speed, Work: work, GCEvery: ns.GC.Every, GCPause: ns.GC.Pause, Errors: ns.Errors,
		Fail: ns.Fail, ErrorTime: ns.ErrorTime, CacheSize: ns.Cache.Size, HitFactor: ns.Cache.HitFactor,
		Limit: lim, Seed: lab.Seed, Meter: ReadsReports(lab), Probed: Probes(lab),
	}, nil
}

// ReadsReports reports whether an algorithm of the lab, at its start or
// after a script event, reads the servers' load reports beyond their queue
// (balance.Caps.Reports): then the servers measure them (server.Config.Meter).
func ReadsReports(lab *labfile.Lab) bool {
	return anyAlgorithm(lab, func(c balance.Caps) bool { return c.Reports })
}

// Probes reports whether an algorithm of the lab, at its start or after a
// script event, probes the servers (balance.Caps.Probes): then the servers
// keep what their answers estimate from (server.Config.Probed).
func Probes(lab *labfile.Lab) bool {
	return anyAlgorithm(lab, func(c balance.Caps) bool { return c.Probes })
}

// Announces reports whether an algorithm of the lab's balancer tier, at its
// start or after a script event, keeps an idle queue (balance.Caps.Idle):
// then the servers announce themselves idle to the balancers (never when
// clients balance themselves, which the lab file refuses such an algorithm).
func Announces(lab *labfile.Lab) bool {
	return !ClientSide(lab) && anyAlgorithm(lab, func(c balance.Caps) bool { return c.Idle })
}

// JIQ is the join rule of the lab's idle servers (balancers.jiq).
func JIQ(lab *labfile.Lab) balance.JIQ {
	return balance.JIQ{Join: lab.Balancers.JIQ.Join, Choices: lab.Balancers.JIQ.Choices}
}

// IdleLocal reports whether the lab's idle servers announce themselves
// only to the balancers of their own zone (policy.AnnounceTo): a lab with
// zones and a locality layer (Localized).
func IdleLocal(lab *labfile.Lab) bool { return Localized(lab) }

// Localized reports whether the lab's picks go through the locality
// layer: it has zones and a locality policy other than none.
func Localized(lab *labfile.Lab) bool {
	return lab.Zoned() && balance.LocalityConfig{Policy: lab.Balancers.Locality.Policy}.Active()
}

// anyAlgorithm reports whether an algorithm the lab names, at its start or
// in a script event, has a capability.
func anyAlgorithm(lab *labfile.Lab, has func(balance.Caps) bool) bool {
	of := func(name string) bool { return has(balance.CapsOf(name)) }
	if of(lab.Balancers.Algorithm) || of(lab.Clients.Algorithm) {
		return true
	}
	for _, ev := range lab.Events {
		if of(ev.Algorithm) || of(ev.Set["balancers.algorithm"]) || of(ev.Set["clients.algorithm"]) {
			return true
		}
	}
	return false
}

// Client builds the client-side policy: retries, backoff, budget, hedging.
func Client(lab *labfile.Lab) (policy.Client, error) {
	c := lab.Clients
	cl := policy.Client{Cfg: policy.ClientConfig{Timeout: c.Timeout, AttemptTimeout: c.AttemptTimeout,
		Retries: c.Retries, Backoff: retry.Backoff{Base: c.Backoff.Base, Jitter: c.Backoff.Jitter != labfile.NoJitter},
		Seed: rng.Hash(lab.Seed, 0, rng.StringHash("backoff"))}}
	if c.Budget > 0 {
		b, err := retry.NewBudget(c.Budget)
		if err != nil {
			return cl, fmt.Errorf("clients.budget: %w", err)
		}
		cl.Budget = b
	}
	hc, on, err := hedge.Parse(c.Hedge)
	if err != nil {
		return cl, fmt.Errorf("clients.hedge: %w", err)
	}
	if on {
		h, err := hedge.New(hc)
		if err != nil {
			return cl, fmt.Errorf("clients.hedge: %w", err)
		}
		cl.Hedger = h
	}
	return cl, nil
}

// ClientSide reports whether the lab's clients balance themselves.
func ClientSide(lab *labfile.Lab) bool { return lab.Clients.Algorithm != "" }

// TierConfig is the pipeline config of balancer number index (0-based) of
// the balancer tier; the index salts its random draws so balancers sharing a
// seed draw differently.
func TierConfig(lab *labfile.Lab, index int) policy.BalancerConfig {
	b := lab.Balancers
	salt := uint64(index) + 1
	cfg := policy.BalancerConfig{
		Algorithm: balance.Config{Name: b.Algorithm, Seed: lab.Seed, Salt: salt, Choices: b.Choices,
			Replacement: b.Replacement, DefaultRTT: b.DefaultRTT, VNodes: b.VNodes, Epsilon: b.Epsilon, Aperture: b.Aperture, ApertureLoad: b.ApertureLoad,
			Peer: index, Peers: max(b.Count, index+1),
			ORCA: balance.ORCA{Blackout: b.ORCA.Blackout, Expiration: b.ORCA.Expiration, Update: b.ORCA.Update,
				ErrorPenalty: b.ORCA.ErrorPenalty, OutOfBand: b.ORCA.OutOfBand},
			Prequal: balance.Prequal{ProbeRate: b.Prequal.ProbeRate, PoolSize: b.Prequal.PoolSize, MaxAge: b.Prequal.MaxAge,
				QRIF: b.Prequal.QRIF, ReuseDelta: b.Prequal.ReuseDelta},
			JIQ: JIQ(lab)},
		Load: load.Local, Decay: b.Decay, FailurePenalty: b.FailurePenalty, Timeout: b.Timeout, Subset: b.Subset, Seed: lab.Seed, Salt: salt,
		Locality: balance.LocalityConfig{Policy: b.Locality.Policy, MinClusterSize: b.Locality.MinClusterSize,
			Overprovisioning: b.Locality.Overprovisioning, Threshold: b.Locality.Threshold},
	}
	if z := Zones(lab); z != nil {
		cfg.Zones, cfg.Zone = z, z.Balancer(int32(index))
	}
	if b.Load == labfile.SharedLoad {
		cfg.Load = load.Shared
	}
	if b.Breaker.Enabled {
		cfg.Breaker = &breaker.Config{Window: b.Breaker.Window, Threshold: b.Breaker.Threshold,
			Open: b.Breaker.Open, Probes: b.Breaker.Probes}
	}
	if o := b.Outlier; o.Enabled {
		cfg.Outlier = &outlier.Config{ConsecutiveFailures: o.ConsecutiveFailures, Interval: o.Interval,
			BaseEjection: o.BaseEjection, MaxEjection: o.MaxEjection, MaxShare: o.MaxEjectionShare,
			SuccessRateK: o.SuccessRateK, LatencyK: o.LatencyK, MinRequests: o.MinRequests}
	}
	if s := b.SlowStart; s.Enabled {
		cfg.SlowStart = &slowstart.Config{Window: s.Window, Floor: s.Floor, Aggression: s.Aggression}
	}
	return cfg
}

// BalancerConfig is the pipeline config of balancer (or client) number
// index: the tier's, or, when clients balance themselves, the clients'
// algorithm, subset and aperture (on a ring of all the clients) with local
// counts and no balancer timeout. Breakers, outlier ejection and slow start
// are the balancers' settings either way.
func BalancerConfig(lab *labfile.Lab, index int) policy.BalancerConfig {
	cfg := TierConfig(lab, index)
	if c := lab.Clients; ClientSide(lab) {
		cfg.Algorithm.Name, cfg.Subset, cfg.Timeout, cfg.Load = c.Algorithm, c.Subset, 0, load.Local
		cfg.Algorithm.Aperture, cfg.Algorithm.ApertureLoad, cfg.Algorithm.Peers = c.Aperture, c.ApertureLoad, c.Count
		cfg.ClientSide = true
		if cfg.Zones != nil {
			cfg.Zone = cfg.Zones.Client(int32(index))
		}
	}
	return cfg
}

// Balancer builds pipeline number index over servers.
func Balancer(lab *labfile.Lab, index int, servers []balance.Server) (*policy.Balancer, error) {
	return policy.NewBalancer(BalancerConfig(lab, index), servers)
}

// Servers lists the lab's servers for a balancer, weighted by speed (the
// default weights of weighted round robin).
func Servers(lab *labfile.Lab) []balance.Server {
	var out []balance.Server
	for _, ns := range lab.ExpandServers() {
		out = append(out, balance.Server{Name: ns.Name, Weight: ns.Speed})
	}
	return out
}

// Stream returns the lab's seeded request stream and, in closed loop, the
// number of users (0 in open loop; with a profile, the most it reaches).
// An open-loop profile drives the stream's rate.
func Stream(lab *labfile.Lab) (*workload.Stream, int, error) {
	c := lab.Clients
	work, err := c.Work.Build()
	if err != nil {
		return nil, 0, fmt.Errorf("clients.work: %w", err)
	}
	cfg := workload.Config{Seed: lab.Seed, Rate: c.Rate, Clients: c.Count, UnevenClients: c.Activity == labfile.ZipfActivity,
		Keys: c.Keys, ZipfS: c.Zipf, Work: work, Think: c.Think, Faults: Faults(lab)}
	users := 0
	if c.Mode == labfile.ClosedLoop {
		cfg.Rate, users = 0, c.Users
		if p := Profile(lab); p != nil {
			users = int(math.Ceil(p.Max()))
		}
	} else {
		cfg.Profile = Profile(lab)
	}
	s, err := workload.New(cfg)
	if err != nil {
		return nil, 0, fmt.Errorf("clients: %w", err)
	}
	return s, users, nil
}

// Profile is the lab's load profile (nil: none): the open-loop rate, or the
// closed-loop users.
func Profile(lab *labfile.Lab) *workload.Profile {
	p := lab.Clients.Profile
	if p == nil {
		return nil
	}
	shape := map[labfile.ProfileShape]workload.Shape{labfile.ShapeRamp: workload.Ramp, labfile.ShapeSteps: workload.Steps,
		labfile.ShapeSine: workload.Sine, labfile.ShapeSpike: workload.Spike}[p.Shape]
	return &workload.Profile{Shape: shape, From: p.From, To: p.To, Over: p.Over, Levels: slices.Clone(p.Levels),
		Every: p.Every, Mean: p.Mean, Amplitude: p.Amplitude, Period: p.Period, Base: p.Base, Peak: p.Peak, At: p.At, For: p.For}
}

// Faults are the lab's fault shares (clients.faults) for the stream.
func Faults(lab *labfile.Lab) []workload.FaultShare {
	var out []workload.FaultShare
	for _, f := range lab.Clients.Faults {
		out = append(out, workload.FaultShare{Share: f.Share, Fault: workload.Fault{Status: f.Status, Delay: f.Delay}})
	}
	return out
}

// Network is the lab's hop model, shared by every process and the simulator:
// with its zones when it declares some.
func Network(lab *labfile.Lab) policy.Network {
	return policy.Network{Hop: lab.Network.Hop, Jitter: lab.Network.Jitter, Seed: lab.Seed, Zones: Zones(lab),
		Cut: lab.Network.Partition && lab.Zoned()}
}

// Zones places the lab's clients, balancers and servers in its zones and
// joins them by its links (nil when it declares no zones).
func Zones(lab *labfile.Lab) *policy.Zones {
	if !lab.Zoned() {
		return nil
	}
	n := lab.Network
	var names []string
	for _, ns := range lab.ExpandServers() {
		names = append(names, ns.Name)
	}
	return policy.NewZones(policy.ZonePlaces{Regions: lab.ZoneRegions(), Clients: lab.ClientZones(),
		Balancers: lab.BalancerZones(), Servers: lab.ServerZones(), ServerNames: names, Tier: lab.Balancers.Count,
		Cross: policy.Link{Hop: n.CrossZone.Hop, Jitter: n.CrossZone.Jitter},
		Far:   policy.Link{Hop: n.CrossRegion.Hop, Jitter: n.CrossRegion.Jitter}})
}

// Conns is the lab's connection model (network.handshake, keepalive and
// max_conns), the same for every pair on both clocks; ok is false when the
// lab does not model connections (labfile.Network.Connections).
func Conns(lab *labfile.Lab) (cfg conn.Config, ok bool) {
	n := lab.Network
	return conn.Config{Keepalive: n.Keepalive, MaxConns: n.MaxConns,
		Handshake: conn.Cost{Rounds: n.Handshake.Rounds, Fixed: n.Handshake.Fixed}}, n.Connections()
}

// ClientConfig is the client runtime of lab: its policy, a fresh request
// stream, the users in closed loop, when the arrivals stop, how attempts are
// addressed, how many balancers front the servers, how long a client sticks
// to its pick and the connection model. The driver adds the
// clients' own balancers when they balance themselves, and its observers.
func ClientConfig(lab *labfile.Lab) (client.Config, error) {
	pol, err := Client(lab)
	if err != nil {
		return client.Config{}, err
	}
	s, users, err := Stream(lab)
	if err != nil {
		return client.Config{}, err
	}
	var usersProfile *workload.Profile
	if lab.Clients.Mode == labfile.ClosedLoop {
		usersProfile = Profile(lab)
	}
	cfg := client.Config{Stream: s, Users: users, UsersProfile: usersProfile, StopAt: clock.Instant(lab.Duration), Tier: lab.Balancers.Count,
		Live: client.Live{Policy: pol, HashClient: lab.Balancers.HashOn == labfile.HashClient, WorkAtServer: lab.Clients.WorkAt == labfile.WorkAtServer,
			Sticky: lab.Clients.Sticky, StickyAge: lab.Clients.StickyAge, RetryOther: lab.Clients.RetryOther, Net: Network(lab)}}
	if cc, ok := Conns(lab); ok {
		cfg.Conns = &cc
	}
	return cfg, nil
}
