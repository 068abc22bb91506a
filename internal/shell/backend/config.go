package backend

import (
	"crypto/tls"
	"fmt"
	"github.com/lblab/lblab/internal/assemble"
	"net"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Config configures one backend process.
type Config struct {
	Lab  *labfile.Lab // nil = labfile.Default(); never changed (/admin/set works on a clone)
	Name string       // this server's name (X-Lab-Server); "" = s1
	// Server is the lab server whose settings it emulates; "" = Name. Replicas
	// of one service emulate one lab server under names of their own.
	Server string
	Addr   string // data listener; "" = 127.0.0.1:0
	Admin  string // admin listener; "" = 127.0.0.1:0
	Seed   uint64 // 0 = the lab's seed

	// Hop is the one-way server -> balancer delay added before each answer,
	// Jitter the uniform extra in [0, Jitter]; negative = the lab's network.
	Hop, Jitter time.Duration

	// CancelOnClose removes a queued job whose client closed its connection.
	// Off by default: docs/model.md §3 has the server keep working on an attempt the
	// balancer timed out (and fasthttp clients close the connection on a
	// timeout), so only hedge cancellation wants it. Unix TCP only.
	CancelOnClose bool

	// Access guards the admin listener (origin and Host checks, the
	// token); MaxConns caps the data listener's connections (0 = from the
	// open-files limit, wire.DataConns).
	Access   wire.Access
	MaxConns int

	Log *zap.Logger // nil = no logging

	// TLS is the data listener's certificate, required with network.tls
	// (the data listener then speaks only TLS; the admin API stays plain).
	TLS *tls.Config

	// Listen opens a listener (tests pass in-memory ones); nil = TCP.
	Listen func(addr string) (net.Listener, error)

	// Waits times the core's deadlines and the held answers: nil is the
	// process's precise scheduler; tests in a synctest bubble set
	// pace.Runtime.
	Waits *pace.Scheduler

	// Agent is where the backend answers HAProxy's agent check (agent.go);
	// "" = nowhere. AgentScale is the capacity (requests/s at full
	// utilization) it answers as 100%: lab passes the fleet's mean
	// (labfile.Lab.FleetCapacity); 0 = this server's own nominal capacity
	// (labfile.Lab.Capacity), which every replica of one service shares.
	Agent      string
	AgentScale float64
}

// withDefaults fills the defaults.
func (cfg Config) withDefaults() Config {
	if cfg.Lab == nil {
		cfg.Lab = labfile.Default()
	}
	if cfg.Name == "" {
		cfg.Name = "s1"
	}
	if cfg.Server == "" {
		cfg.Server = cfg.Name
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Admin == "" {
		cfg.Admin = "127.0.0.1:0"
	}
	if cfg.Seed == 0 {
		cfg.Seed = cfg.Lab.Seed
	}
	if cfg.Hop < 0 {
		cfg.Hop = cfg.Lab.Network.Hop
	}
	if cfg.Jitter < 0 {
		cfg.Jitter = cfg.Lab.Network.Jitter
	}
	if cfg.Log == nil {
		cfg.Log = zap.NewNop()
	}
	cfg.Waits = pace.Or(cfg.Waits)
	if cfg.Listen == nil {
		cfg.Listen = func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	}
	return cfg
}

// Check validates cfg the way New does, without listening: the lab must
// hold the named server and its settings must build a server core.
func Check(cfg Config) error {
	cfg = cfg.withDefaults()
	ns, err := FindServer(cfg.Lab, cfg.Server)
	if err != nil {
		return err
	}
	ns.Name = cfg.Name // its own draws and name, with the settings of the server it emulates
	sc, err := ServerConfig(cfg.Lab, ns, cfg.Seed)
	if err != nil {
		return err
	}
	_, err = server.New(sc)
	return err
}

// FindServer returns the lab's server called name, or an error listing the
// names there are.
func FindServer(lab *labfile.Lab, name string) (labfile.NamedServer, error) {
	all := lab.ExpandServers()
	names := make([]string, 0, len(all))
	for _, ns := range all {
		if ns.Name == name {
			return ns, nil
		}
		names = append(names, ns.Name)
	}
	if len(names) > 12 {
		names = append(names[:12], "...")
	}
	return labfile.NamedServer{}, fmt.Errorf("the lab has no server named %q (it has %s)", name, strings.Join(names, ", "))
}

// ServerConfig maps a lab server to the core's config with the simulator's
// mapping (internal/assemble); seed replaces the lab's. The backend's
// meter and probe history are always on: any caller may ask an answer for
// the load report (endpoint-load-metrics-format), a proxy that reads ORCA
// among them, or probe it (GET /probe).
func ServerConfig(lab *labfile.Lab, ns labfile.NamedServer, seed uint64) (server.Config, error) {
	sc, err := assemble.ServerConfig(lab, ns)
	sc.Seed, sc.Meter, sc.Probed = seed, true, true
	return sc, err
}
