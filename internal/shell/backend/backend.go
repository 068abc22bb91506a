// Package backend is the live emulated server: a fasthttp process that
// drives the sans-I/O core (internal/core/server) on the wall clock.
//
// Concurrency (docs/architecture.md, "The shells"): one mutex serializes
// every call into the core, and one timer of the precise scheduler
// (internal/shell/pace), armed at the core's NextDeadline, calls Advance. A request handler registers a waiter under its job id, calls Arrive
// and blocks until whoever produced its reply (its own Arrive, the timer, an
// admin action) hands the reply over. Work is emulated by the core's clock
// and that timer; no CPU is burnt.
package backend

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lblab/lblab/internal/assemble"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/turns"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Limits on what a client may send (beyond them: 431 or 413 with a JSON
// reason). They exceed the lb's (8 KiB of headers, to which it adds its
// own, and 1 MiB of body), so whatever an lb accepts reaches the server.
const (
	maxHeaderBytes = 16 << 10
	maxBodyBytes   = 1 << 20
)

// maxIdleWorker is fasthttp's MaxIdleWorkerDuration. Its pool cleaner
// sleeps this long between rounds, so it is also how long a goroutine
// lingers after a shutdown (tests shorten it for goleak).
var maxIdleWorker = time.Second

// Backend is one running emulated server.
type Backend struct {
	cfg  Config
	name []byte // cfg.Name: the X-Lab-Server header's value
	clk  *clock.Wall
	log  *zap.Logger
	met  *metrics.Backend       // GET /metrics
	obs  observe.ServerAttempts // attempts' ends, reported outside mu
	note observe.Events         // admin actions applied

	leaving atomic.Bool // lame duck: GET /healthz fails (leave.go)

	mu      sync.Mutex // guards everything below up to life
	core    *server.Server
	waiters map[uint64]*waiter
	nextID  uint64
	out     []server.Reply
	kinds   []server.Kind
	timer   *pace.Timer
	armed   bool
	armedAt clock.Instant
	lab     *labfile.Lab        // the process's lab copy (changed by /admin/set)
	spec    labfile.NamedServer // this server in lab: the configured values
	queue   queueSettings       // the core's current queue settings
	limiter limit.Spec          // the current limiter; Kind "" = none
	addrs   addrs

	accepted atomic.Uint64 // connections accepted on the data listener

	// zones are the lab's zones (nil without): the hop back takes the link
	// between this server's zone and the sender's (zones.go); replaced
	// whole when /admin/set changes the lab
	zones atomic.Pointer[policy.Zones]

	// life serializes the listener changes (kill, restart, shutdown). Lock
	// order: life, then mu. Nothing holds life while it waits for the admin
	// listener's handlers, which may themselves want life.
	life   sync.Mutex
	data   *listener
	admin  *listener
	closed bool

	drainOver chan struct{} // closed when a shutdown's drain time is over

	agent *agentListener // HAProxy's agent check (agent.go); nil without Config.Agent
	idle  *idle          // its idle announcements (idle.go)
}

// addrs are the bound addresses; restart re-binds data on the same one.
type addrs struct {
	data, admin string
	agent       string // the agent-check listener ("" without one)
	open        bool   // the data listener is open
}

type queueSettings struct {
	capacity    int
	lifo        bool
	dropExpired bool
}

// New validates cfg and builds the backend without listening.
func New(cfg Config) (*Backend, error) {
	cfg = cfg.withDefaults()
	if cfg.Lab.Network.TLS && cfg.TLS == nil {
		return nil, errors.New("network.tls is on: give the certificate to serve (--tls-cert, --tls-key)")
	}
	ns, err := FindServer(cfg.Lab, cfg.Server)
	if err != nil {
		return nil, err
	}
	ns.Name = cfg.Name // its own draws and name, with the settings of the server it emulates
	sc, err := ServerConfig(cfg.Lab, ns, cfg.Seed)
	if err != nil {
		return nil, err
	}
	core, err := server.New(sc)
	if err != nil {
		return nil, err
	}
	b := &Backend{
		cfg: cfg, name: []byte(cfg.Name), clk: clock.NewWall(), log: cfg.Log.With(zap.String("server", cfg.Name)),
		core: core, waiters: map[uint64]*waiter{}, lab: cfg.Lab, spec: ns,
		queue:     queueSettings{capacity: sc.QueueCap, lifo: sc.LIFO, dropExpired: sc.DropExpired},
		limiter:   assemble.LimitSpec(cfg.Lab, ns),
		drainOver: make(chan struct{}),
		idle:      newIdle(cfg),
	}
	if cfg.Agent != "" {
		b.agent = newAgentListener(cfg, ns)
	}
	b.zones.Store(assemble.Zones(cfg.Lab))
	b.newMetrics()
	b.timer = cfg.Waits.AfterFunc(pace.Service, time.Hour, b.onTimer)
	b.timer.Stop()
	return b, nil
}

// Start opens the admin and data listeners and serves them.
func (b *Backend) Start() error {
	b.life.Lock()
	defer b.life.Unlock()
	if b.closed || b.admin != nil {
		return errors.New("backend: Start called twice or after Shutdown")
	}
	admin, err := b.serve(b.cfg.Admin, b.serveAdmin, true)
	if err != nil {
		return fmt.Errorf("admin listener: %w", err)
	}
	data, err := b.serve(b.cfg.Addr, b.serveData, false)
	if err != nil {
		_ = admin.shutdown(context.Background(), nil)
		return fmt.Errorf("data listener: %w", err)
	}
	agent := ""
	if b.agent != nil {
		if agent, err = b.agent.start(b); err != nil {
			_ = data.shutdown(context.Background(), nil)
			_ = admin.shutdown(context.Background(), nil)
			return fmt.Errorf("agent listener: %w", err)
		}
	}
	b.admin, b.data = admin, data
	b.mu.Lock()
	b.addrs = addrs{data: data.addr, admin: admin.addr, agent: agent, open: true}
	b.mu.Unlock()
	fields := []zap.Field{zap.String("addr", data.addr), zap.String("admin", admin.addr)}
	if agent != "" {
		fields = append(fields, zap.String("agent", agent))
	}
	b.log.Info("listening", fields...)
	return nil
}

// Ready is the readiness line's content.
func (b *Backend) Ready(pid int) wire.Ready {
	b.mu.Lock()
	defer b.mu.Unlock()
	return wire.Ready{Name: b.cfg.Name, Addr: b.addrs.data, Admin: b.addrs.admin, Agent: b.addrs.agent, PID: pid}
}

// Shutdown stops taking requests and lets those in flight finish until ctx
// ends; the rest then end Lost (their connections are closed). It closes
// both listeners and returns once every goroutine of the backend is done.
func (b *Backend) Shutdown(ctx context.Context) error {
	b.life.Lock()
	data, admin, closed := b.data, b.admin, b.closed
	b.data, b.admin, b.closed = nil, nil, true
	b.life.Unlock()
	if closed {
		return nil
	}
	var err error
	if data != nil {
		b.setOpen(false)
		err = data.shutdown(ctx, func() {
			b.log.Warn("drain time is over: the requests left end lost")
			close(b.drainOver)
			b.killCore()
		})
	}
	if admin != nil {
		err = errors.Join(err, admin.shutdown(context.Background(), nil))
	}
	if b.agent != nil {
		b.agent.stop()
	}
	b.idle.close()
	b.mu.Lock()
	b.timer.Stop()
	b.armed = false
	b.mu.Unlock()
	b.cfg.Waits.Log(b.log)
	return err
}

func (b *Backend) setOpen(open bool) {
	b.mu.Lock()
	b.addrs.open = open
	b.mu.Unlock()
}

// listener is one fasthttp server on one net.Listener.
type listener struct {
	srv  *fasthttp.Server
	addr string
	done <-chan struct{} // closed when Serve returns
}

// serve listens on addr and serves h there in a goroutine: the admin API
// behind the access guard, with the admin listeners' limits; the data
// port open to any client (it is the service under test), with its
// connection cap, counted and with TLS when the lab says (dataListener).
func (b *Backend) serve(addr string, h fasthttp.RequestHandler, admin bool) (*listener, error) {
	ln, err := b.cfg.Listen(addr)
	if err != nil {
		return nil, err
	}
	lim := wire.DataLimits(b.cfg.MaxConns)
	if admin {
		h, lim = wire.NewGuard(b.cfg.Access, ln.Addr()).Fasthttp(h), wire.AdminLimits()
	} else {
		ln = b.dataListener(ln)
	}
	l := &listener{addr: ln.Addr().String(), srv: &fasthttp.Server{
		Handler: h, Name: "lblab-backend", ReadBufferSize: maxHeaderBytes, MaxRequestBodySize: maxBodyBytes,
		MaxIdleWorkerDuration: maxIdleWorker,
		NoDefaultDate:         true, // the Date header would start fasthttp's global ticker goroutine
		Logger:                wire.ServerLogger(b.log),
	}}
	l.done = wire.Serve(l.srv, ln, lim, func(err error) {
		b.log.Warn("serve ended", zap.String("addr", l.addr), zap.Error(err))
	})
	return l, nil
}

// dataListener counts the connections accepted on the data listener and,
// with network.tls, serves TLS over them.
func (b *Backend) dataListener(ln net.Listener) net.Listener {
	var cfg *tls.Config
	if b.cfg.Lab.Network.TLS {
		cfg = b.cfg.TLS
	}
	return conns.Listen(turns.Listen(ln), cfg, &b.accepted) // turns: a read less a request
}

// shutdown closes the listener and waits for the connections to finish
// their requests. If ctx ends first, onTimeout (when set) must make the
// handlers finish; shutdown still waits for them, so that no goroutine
// outlives it. (fasthttp's ShutdownWithContext would return at ctx's end
// and leave the handlers running.)
func (l *listener) shutdown(ctx context.Context, onTimeout func()) error {
	done := make(chan error, 1)
	go func() { done <- l.srv.Shutdown() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		if onTimeout != nil {
			onTimeout()
		}
		err = <-done
	}
	<-l.done
	return err
}

// now is the current instant of the backend's wall clock.
func (b *Backend) now() clock.Instant { return b.clk.Now() }

// Unix converts an instant of the backend's clock to Unix nanoseconds.
func (b *Backend) unixNano(t clock.Instant) int64 { return b.clk.Epoch().UnixNano() + int64(t) }

// Addr returns the data listener's address ("" before Start).
func (b *Backend) Addr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addrs.data
}

// AdminAddr returns the admin listener's address ("" before Start).
func (b *Backend) AdminAddr() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addrs.admin
}
