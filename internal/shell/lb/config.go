package lb

import (
	"crypto/tls"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/assemble"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Size limits: a lab request is a few headers and a tiny body, so anything
// much larger is a mistake or abuse, not traffic worth proxying.
const (
	DefaultMaxBody     = 1 << 20 // request body bytes
	DefaultMaxHeader   = 8 << 10 // request header bytes (the read buffer)
	DefaultMaxRespBody = 4 << 20 // backend response body bytes
	DefaultMaxConns    = 1024    // pooled connections per backend
)

// BackendSpec names one backend: its data address and, optionally, the
// admin address that serves GET /load.
type BackendSpec = wire.BackendSpec

// Config is one lb process. The lab holds every balancer setting; command
// line overrides (algorithm, hop, seed) are applied to it before New.
type Config struct {
	Name     string
	Index    int // salts random draws: BalancerConfig.Salt = Index+1
	Backends []BackendSpec
	Lab      *labfile.Lab // nil = labfile.Default()
	Addr     string       // data listener, default 127.0.0.1:0
	Admin    string       // admin listener, default 127.0.0.1:0
	Logger   *zap.Logger  // nil = no logging

	// Discover, if set, adds and removes backends behind a DNS name as it
	// resolves over time (discover.go), besides Backends.
	Discover *discover.Config

	// Tests may hand in listeners and a dialer (fasthttputil in-memory).
	Listener      net.Listener
	AdminListener net.Listener
	Dial          func(addr string) (net.Conn, error)

	MaxBody, MaxHeader, MaxRespBody, MaxConns int // 0 = the defaults above
	IdleConn                                  time.Duration

	// Access guards the admin listener (origin and Host checks, the
	// token); MaxClientConns caps the traffic listener's connections (0 =
	// from the open-files limit, wire.DataConns).
	Access         wire.Access
	MaxClientConns int
	// With network.tls: the data listener's certificate (TLS) and the
	// certificate to trust when connecting to the backends (ClientTLS).
	TLS, ClientTLS *tls.Config

	// Waits times the injected hops: nil is the process's precise
	// scheduler; tests in a synctest bubble set pace.Runtime.
	Waits *pace.Scheduler
}

// BalancerConfig maps a lab's balancers section to the pipeline config of the
// balancer numbered index, as the simulator does (internal/sim/build.go).
func BalancerConfig(lab *labfile.Lab, index int) policy.BalancerConfig {
	return assemble.TierConfig(lab, index)
}

// ParseBackends reads "s1=127.0.0.1:8001,s2=..." and the optional admin list
// in the same form; every admin name must be a backend.
func ParseBackends(backends, admins string) ([]BackendSpec, error) {
	data, err := parsePairs("--backends", backends)
	if err != nil {
		return nil, err
	}
	adm, err := parsePairs("--backend-admins", admins)
	if err != nil {
		return nil, err
	}
	specs := make([]BackendSpec, len(data))
	index := map[string]int{}
	for i, p := range data {
		if _, dup := index[p[0]]; dup {
			return nil, fmt.Errorf("--backends: duplicate backend name %q", p[0])
		}
		index[p[0]] = i
		specs[i] = BackendSpec{Name: p[0], Addr: p[1]}
	}
	for _, p := range adm {
		i, ok := index[p[0]]
		if !ok {
			return nil, fmt.Errorf("--backend-admins: %q is not a backend in --backends", p[0])
		}
		specs[i].Admin = p[1]
	}
	return specs, nil
}

func parsePairs(flag, list string) ([][2]string, error) {
	var out [][2]string
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, addr, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q is not NAME=HOST:PORT", flag, item)
		}
		out = append(out, [2]string{strings.TrimSpace(name), strings.TrimSpace(addr)})
	}
	return out, nil
}

// checkSpec validates one backend; each error starts with the JSON field
// it is about.
func checkSpec(s BackendSpec) error {
	if err := s.Check(); err != nil {
		return err
	}
	if e := labfile.Bounds.Weight.Check("weight", s.Weight); e != nil {
		return fmt.Errorf("weight: backend %s: %s", s.Name, e.Msg)
	}
	return nil
}

// withDefaults fills the zero fields and validates the config once.
func (c Config) withDefaults() (Config, error) {
	if c.Lab == nil {
		c.Lab = labfile.Default()
	}
	c.Lab = c.Lab.Clone()
	if err := c.Lab.Validate(); err != nil {
		return c, fmt.Errorf("lab: %w", err)
	}
	if c.Name == "" {
		c.Name = "lb1"
	}
	if err := wire.CheckName(c.Name); err != nil {
		return c, fmt.Errorf("name: %w", err)
	}
	if c.Index < 0 {
		return c, fmt.Errorf("index: must be >= 0, got %d", c.Index)
	}
	c.Addr = orDefault(c.Addr, "127.0.0.1:0")
	c.Admin = orDefault(c.Admin, "127.0.0.1:0")
	c.MaxBody = orDefault(c.MaxBody, DefaultMaxBody)
	c.MaxHeader = orDefault(c.MaxHeader, DefaultMaxHeader)
	c.MaxRespBody = orDefault(c.MaxRespBody, DefaultMaxRespBody)
	c.MaxConns = orDefault(c.MaxConns, DefaultMaxConns)
	c.IdleConn = orDefault(c.IdleConn, 10*time.Second)
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	c.Waits = pace.Or(c.Waits)
	if err := c.checkDiscover(); err != nil {
		return c, err
	}
	if c.Lab.Network.TLS && (c.TLS == nil || c.ClientTLS == nil) {
		return c, fmt.Errorf("network.tls is on: give the certificate to serve and to trust (--tls-cert, --tls-key, --tls-ca)")
	}
	return c, c.checkBackends()
}

func (c Config) checkBackends() error {
	seen := map[string]bool{}
	for _, s := range c.Backends {
		if err := checkSpec(s); err != nil {
			return fmt.Errorf("backends: %w", err)
		}
		if seen[s.Name] {
			return fmt.Errorf("backends: duplicate backend name %q", s.Name)
		}
		seen[s.Name] = true
		if c.Lab.Balancers.Load == labfile.SharedLoad && s.Admin == "" {
			return fmt.Errorf("backends: %s has no admin address, needed when balancers.load is shared", s.Name)
		}
	}
	return nil
}

func orDefault[T comparable](v, d T) T {
	var zero T
	if v == zero {
		return d
	}
	return v
}
