package backend

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// HAProxy's agent check (docs/admin-api-backend.md, "The agent check"):
// with Config.Agent the backend listens on a TCP port of its own and, on
// each connection, writes one line, the weight it gives itself from its
// load report (load.Agent: gRFC A58's capacity in Config.AgentScale's
// unit; "drain" while it leaves), and closes. Killed (its data listener
// closed, as if the process had died) it closes each connection without a
// word: HAProxy then keeps the weight it had, as it does when an agent
// does not answer.

// agentWriteTimeout bounds the write of one answer (a few bytes).
const agentWriteTimeout = time.Second

// agentListener is the backend's agent-check port.
type agentListener struct {
	addr  string
	rule  *load.Agent // guarded by the backend's mu
	ln    net.Listener
	done  chan struct{} // closed when the accept loop has returned
	stopd atomic.Bool
	once  sync.Once
}

// newAgentListener is the agent of server ns in cfg's lab: the lab's A58
// settings (balancers.orca), and cfg.AgentScale or else the server's own
// nominal capacity as 100%.
func newAgentListener(cfg Config, ns labfile.NamedServer) *agentListener {
	o := cfg.Lab.Balancers.ORCA
	scale := cfg.AgentScale
	if scale <= 0 {
		scale = cfg.Lab.Capacity(ns.Server)
	}
	return &agentListener{addr: cfg.Agent, rule: load.NewAgent(load.AgentConfig{
		Scale: scale, Penalty: o.ErrorPenalty, Blackout: o.Blackout, Expiration: o.Expiration})}
}

// start listens and answers in a goroutine; it returns the bound address.
func (a *agentListener) start(b *Backend) (string, error) {
	ln, err := b.cfg.Listen(a.addr)
	if err != nil {
		return "", err
	}
	a.ln, a.done = ln, make(chan struct{})
	go a.serve(b)
	return ln.Addr().String(), nil
}

// serve answers each connection in turn until stop.
func (a *agentListener) serve(b *Backend) {
	defer close(a.done)
	for {
		c, err := a.ln.Accept()
		if err != nil {
			if a.stopd.Load() {
				return
			}
			b.log.Warn("agent listener", zap.Error(err))
			time.Sleep(10 * time.Millisecond) // a passing error (too many open files): try again
			continue
		}
		if line := b.agentAnswer(); line != nil {
			_ = c.SetWriteDeadline(time.Now().Add(agentWriteTimeout))
			_, _ = c.Write(line)
		}
		_ = c.Close()
	}
}

// stop closes the listener and waits for the accept loop.
func (a *agentListener) stop() {
	a.once.Do(func() {
		a.stopd.Store(true)
		if a.ln != nil {
			_ = a.ln.Close()
			<-a.done
		}
	})
}

// agentAnswer is the line the agent check gets now, nil while the server
// is killed.
func (b *Backend) agentAnswer() []byte {
	var line []byte
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		out = b.core.Advance(now, out) // the report as of now, not as of the last event
		if b.addrs.open {
			line = wire.AgentAnswer(b.agent.rule.Percent(b.core.Report(now)), b.leaving.Load())
		}
		return out
	})
	return line
}
