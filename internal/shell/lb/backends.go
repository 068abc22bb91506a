package lb

import (
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/observe"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/conns"
	"github.com/lblab/lblab/internal/shell/turns"
)

// backend is one server at a stable global index. Removed backends stay in
// the table (present false) so indices never move. Guarded by LB.mu except
// hc and adminHC, which are safe for concurrent use.
type backend struct {
	BackendSpec
	hc      *fasthttp.HostClient // pooled data connections
	adminHC *fasthttp.HostClient // GET /load; nil without an admin address
	fw      observe.Forwards     // this backend's attempts, safe for concurrent use
	present bool
	healthy bool // the active health checks' verdict, as applied to the pipeline
	picks   uint64
	live    map[conn.ID]*conns.Conn // the model's connections to it (conns.go)
}

func (l *LB) newBackend(s BackendSpec) *backend {
	if s.Weight == 0 {
		s.Weight = l.lab.ServerSpeed(s.Name) // weighted round robin weighs servers by speed, as in the simulator
	}
	b := &backend{BackendSpec: s, present: true, healthy: true, hc: l.hostClient(s.Addr, l.cfg.MaxRespBody),
		fw: l.obs.Backend(s.Name), live: map[conn.ID]*conns.Conn{}}
	if l.lab.Network.TLS { // health checks reach the data listener, which speaks TLS
		b.hc.IsTLS, b.hc.TLSConfig = true, l.cfg.ClientTLS
	}
	if s.Admin != "" {
		b.adminHC = l.hostClient(s.Admin, 64<<10)
	}
	return b
}

// hostClient returns a pooled client for addr. The balancer decides retries
// itself, so fasthttp retries only a request whose pooled connection turned
// out dead before answering (a restarted backend), and only once.
func (l *LB) hostClient(addr string, maxBody int) *fasthttp.HostClient {
	hc := &fasthttp.HostClient{Addr: addr, MaxConns: l.cfg.MaxConns, MaxIdleConnDuration: l.cfg.IdleConn,
		MaxResponseBodySize: maxBody, ReadBufferSize: l.cfg.MaxHeader, NoDefaultUserAgentHeader: true,
		MaxIdemponentCallAttempts: 2, RetryIfErr: retryStale, DisablePathNormalizing: true}
	dial := fasthttp.Dial
	if l.cfg.Dial != nil {
		dial = func(string) (net.Conn, error) { return l.cfg.Dial(addr) }
	}
	hc.Dial = func(addr string) (net.Conn, error) {
		c, err := dial(addr)
		if err != nil {
			return nil, err
		}
		return turns.Client(c), nil // saves a read that would find nothing
	}
	return hc
}

func retryStale(_ *fasthttp.Request, attempts int, err error) (resetTimeout, retry bool) {
	stale := errors.Is(err, io.EOF) || errors.Is(err, fasthttp.ErrConnectionClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
	return false, attempts == 1 && stale
}

func (b *backend) close() {
	b.hc.CloseIdleConnections()
	if b.adminHC != nil {
		b.adminHC.CloseIdleConnections()
	}
}

// rebuild makes the pipeline over the backend table from the lab copy (New;
// later settings go through policy.Balancer.Reconfigure).
func (l *LB) rebuild() error {
	servers := make([]balance.Server, len(l.backends))
	for i, b := range l.backends {
		servers[i] = balance.Server{Name: b.Name, Weight: b.Weight}
	}
	bal, err := policy.NewBalancer(BalancerConfig(l.lab, l.cfg.Index), servers)
	if err != nil {
		return err
	}
	for i, b := range l.backends {
		if !b.present {
			bal.RemoveServer(i)
		}
		bal.SetHealthy(i, b.healthy)
	}
	bal.OnBreaker = l.onBreaker
	bal.OnOutlier = l.onOutlier
	l.bal = bal
	return nil
}

// onBreaker logs a breaker transition (called under mu by the pipeline).
func (l *LB) onBreaker(now clock.Instant, i int, from, to breaker.State) {
	l.publish(now, "breaker", breaker.Describe(l.backends[i].Name, from, to))
}

// onOutlier logs an outlier ejection or return (called under mu by the pipeline).
func (l *LB) onOutlier(now clock.Instant, i int, c outlier.Change) {
	l.publish(now, "outlier", c.Describe(l.backends[i].Name))
}

// addBackend adds a backend at a new global index; a present one of the
// same name is a conflict.
func (l *LB) addBackend(s BackendSpec) error {
	if err := checkSpec(s); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.byName[s.Name]; ok {
		return errConflict{fmt.Errorf("name: backend %q already exists", s.Name)}
	}
	if max := labfile.Bounds.Servers.Max; len(l.backends) >= max { // removed ones keep their slot
		return fmt.Errorf("name: this balancer has had %d backends, the most a lab may have", max)
	}
	if s.Admin == "" && l.lab.Balancers.Load == labfile.SharedLoad {
		return fmt.Errorf("admin: needed when balancers.load is shared")
	}
	b := l.newBackend(s)
	l.backends = append(l.backends, b)
	i := l.bal.AddServer(balance.Server{Name: b.Name, Weight: b.Weight})
	l.byName[s.Name] = i
	l.publish(l.nowLocked(), "backend", fmt.Sprintf("backend %s added at %s", s.Name, s.Addr))
	return nil
}

// removeBackend takes a backend out for good; requests in flight finish.
func (l *LB) removeBackend(name string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	i, ok := l.byName[name]
	if !ok {
		return false
	}
	delete(l.byName, name)
	b := l.backends[i]
	b.present = false
	l.bal.RemoveServer(i)
	b.close()
	if l.conns != nil {
		l.conns.pool.CloseIdleTo(int32(i))
		go closeAll(l.takeClosing()) // not under mu
	}
	l.publish(l.nowLocked(), "backend", fmt.Sprintf("backend %s removed", name))
	return true
}

// errConflict marks an error answered 409.
type errConflict struct{ error }

func (e errConflict) Unwrap() error { return e.error }

// snapshot lists the present backends for a background round.
func (l *LB) snapshot() []target {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []target
	for i, b := range l.backends {
		if b.present {
			out = append(out, target{i: i, b: b})
		}
	}
	return out
}

// target is one backend a background round visits.
type target struct {
	i int
	b *backend
}
