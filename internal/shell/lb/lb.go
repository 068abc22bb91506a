// Package lb is the live balancer: a fasthttp reverse proxy that drives the
// policy.Balancer pipeline (eligible members -> algorithm -> breaker) on the
// wall clock, with an admin API on its own listener. docs/model.md says what
// it must do (balancers, network); docs/admin-api-lb.md is the user's
// reference.
//
// Concurrency: the pipeline is not safe for concurrent use, so one mutex
// (LB.mu) guards it together with the backend table and the lab copy. The
// hot path holds it twice per request, for Pick and for Done (about 0.2 µs
// in all, see BenchmarkPickReport); network I/O, hop sleeps and delivery to
// event subscribers never run under it.
package lb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/health"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/wire"
)

// LB is one balancer process: proxy, admin API and background loops.
type LB struct {
	cfg   Config
	log   *zap.Logger
	clock wallClock
	ev    *events
	met   *metrics.LB      // GET /metrics
	obs   observe.Balancer // per-request reports, outside mu
	note  observe.Events   // what publish logs

	mu       sync.Mutex // guards everything below it
	lab      *labfile.Lab
	bal      *policy.Balancer
	backends []*backend
	checks   *health.Checker // active health checks' runs, by backend index
	byName   map[string]int  // present backends only
	picks    uint64
	last     clock.Instant // the latest instant handed to the pipeline (nowLocked)
	// derived from lab by derive, for the hot path
	hashClient bool
	net        policy.Network
	conns      *connModel // the connection model (conns.go); nil when the lab has none
	probeBuf   []int      // the backends a pick probes (probes.go)
	idleBuf    []int      // the idle queue's backends (idle.go)

	// Set in New or Start, then only read (seq is atomic).
	routes    map[string]route
	seq       atomic.Uint64 // request numbers for requests without X-Lab-Request
	accepted  atomic.Uint64 // connections accepted on the data listener
	data      *fasthttp.Server
	admin     *fasthttp.Server
	ln, adLn  net.Listener
	done      chan struct{}
	kickLoad  chan struct{}
	kickCheck chan struct{}
	disc      *discover.Watcher // nil without Config.Discover
	probes    *probes           // a probing algorithm's probes (probes.go)
	idle      idleCount         // the backends' idle announcements (idle.go)
	wg        sync.WaitGroup
	stopOnce  sync.Once
}

// wallClock is the clock the balancer reads: instants for the pipeline,
// and the wall time of instant 0 for deadlines on the wire.
type wallClock interface {
	Now() clock.Instant
	Epoch() time.Time
}

// nowLocked is the instant to hand the pipeline. It is read while mu is
// held, so two requests' instants reach the pipeline in the order they were
// read (read outside the lock, a request that read the clock first could
// take the lock second, and the pipeline would see time run backwards); it
// never goes below the last one handed out. Caller holds mu.
func (l *LB) nowLocked() clock.Instant {
	l.last = max(l.last, l.clock.Now())
	return l.last
}

// derive reads what the hot path needs from the lab: the hop model and
// what key affinity hashes. Caller holds mu, or is New.
func (l *LB) derive() {
	l.net = assemble.Network(l.lab)
	l.hashClient = l.lab.Balancers.HashOn == labfile.HashClient
}

// New validates cfg and builds the balancer; nothing listens until Start.
func New(cfg Config) (*LB, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l := &LB{cfg: cfg, log: cfg.Logger, clock: clock.NewWall(), ev: newEvents(200),
		lab: cfg.Lab, byName: map[string]int{}, done: make(chan struct{}),
		kickLoad: make(chan struct{}, 1), kickCheck: make(chan struct{}, 1), probes: newProbes()}
	hc := cfg.Lab.Balancers.Health
	if l.checks, err = health.New(health.Config{Fails: hc.Fails, Passes: hc.Passes}); err != nil {
		return nil, fmt.Errorf("balancers.health: %w", err)
	}
	l.newMetrics()
	for _, s := range cfg.Backends {
		l.backends = append(l.backends, l.newBackend(s))
		l.byName[s.Name] = len(l.backends) - 1
	}
	if err := l.rebuild(); err != nil {
		return nil, fmt.Errorf("balancers: %w", err)
	}
	l.derive()
	l.modelConns()
	l.routes = l.adminRoutes()
	l.data = &fasthttp.Server{Handler: l.serveProxy, Name: "lblab-lb", MaxRequestBodySize: cfg.MaxBody,
		ReadBufferSize: cfg.MaxHeader, NoDefaultServerHeader: true, CloseOnShutdown: true,
		Logger: wire.ServerLogger(l.log)}
	// Handler: Start puts the access guard in front of the admin routes.
	l.admin = &fasthttp.Server{Name: "lblab-lb-admin", MaxRequestBodySize: 64 << 10,
		ReadBufferSize: cfg.MaxHeader, NoDefaultServerHeader: true, CloseOnShutdown: true,
		Logger: wire.ServerLogger(l.log)}
	return l, nil
}

// Start listens on both addresses and starts serving and the loops.
func (l *LB) Start() error {
	var err error
	if l.ln, err = listen(l.cfg.Listener, l.cfg.Addr); err != nil {
		return fmt.Errorf("addr: %w", err)
	}
	l.ln = l.listenData(l.ln)
	if l.adLn, err = listen(l.cfg.AdminListener, l.cfg.Admin); err != nil {
		l.ln.Close()
		return fmt.Errorf("admin: %w", err)
	}
	l.admin.Handler = wire.NewGuard(l.cfg.Access, l.adLn.Addr()).Fasthttp(l.serveAdmin)
	if err := l.startDiscovery(); err != nil {
		l.ln.Close()
		l.adLn.Close()
		return err
	}
	l.serve(l.data, l.ln, wire.DataLimits(l.cfg.MaxClientConns))
	l.serve(l.admin, l.adLn, wire.AdminLimits())
	l.wg.Add(3)
	go l.loop(l.kickLoad, l.loadPeriod, l.pollLoads)
	go l.loop(l.kickCheck, l.checkPeriod, l.checkHealth)
	go l.loop(nil, l.sweepPeriod, l.sweepConns)
	l.log.Info("listening", zap.String("addr", l.Addr()),
		zap.String("admin", l.AdminAddr()), zap.String("algorithm", l.Algorithm()))
	return nil
}

func listen(given net.Listener, addr string) (net.Listener, error) {
	if given != nil {
		return given, nil
	}
	return net.Listen("tcp", addr)
}

// serve starts s on ln with lim; Shutdown waits for it to end.
func (l *LB) serve(s *fasthttp.Server, ln net.Listener, lim wire.Limits) {
	done := wire.Serve(s, ln, lim, func(err error) { l.log.Error("serve", zap.Error(err)) })
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		<-done
	}()
}

// Addr is the data listener's address (after Start).
func (l *LB) Addr() string { return l.ln.Addr().String() }

// AdminAddr is the admin listener's address (after Start).
func (l *LB) AdminAddr() string { return l.adLn.Addr().String() }

// Name is the balancer's name (the X-Lab-Balancer header).
func (l *LB) Name() string { return l.cfg.Name }

// Algorithm is the current algorithm's name.
func (l *LB) Algorithm() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bal.Algorithm()
}

// Shutdown stops the loops and event streams, lets in-flight requests finish
// until ctx ends, and closes pooled backend connections.
func (l *LB) Shutdown(ctx context.Context) error {
	var err error
	l.stopOnce.Do(func() {
		close(l.done)
		err = errors.Join(l.admin.ShutdownWithContext(ctx), l.data.ShutdownWithContext(ctx))
		l.wg.Wait()
		l.probes.close() // waits for those on their way: each ends within its hops and maxProbeWait
		l.mu.Lock()
		var live []*conns.Conn
		for _, b := range l.backends {
			b.close()
			for _, c := range b.live {
				live = append(live, c)
			}
		}
		l.mu.Unlock()
		closeAll(live)
		l.cfg.Waits.Log(l.log)
	})
	return err
}

// loop runs round every period while period says it is on. A kick
// (settings changed) schedules a round if none is pending and the rounds
// are on; a pending round keeps its time, and one that comes due after
// they were turned off does nothing: the simulator's schedule
// (sim.startHealth, sim.startRefresh), so a set of another setting moves
// no health check or load poll.
func (l *LB) loop(kick <-chan struct{}, period func() (time.Duration, bool), round func()) {
	defer l.wg.Done()
	var t *time.Timer
	var tick <-chan time.Time
	arm := func() {
		t, tick = nil, nil
		if d, on := period(); on {
			t = time.NewTimer(d)
			tick = t.C
		}
	}
	arm()
	for {
		select {
		case <-l.done:
			stopTimer(t)
			return
		case <-kick:
			if t == nil {
				arm()
			}
		case <-tick:
			if _, on := period(); on {
				round()
			}
			arm()
		}
	}
}

func stopTimer(t *time.Timer) {
	if t != nil {
		t.Stop()
	}
}

func kick(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
