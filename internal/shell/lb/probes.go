package lb

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// A probing algorithm's probes (balance.Prober: prequal), live. At each
// pick the pipeline says which backends to probe (policy.Balancer.Probes,
// under the lock); after the lock, each probe is a goroutine of its own,
// never on the request's path: it sleeps the outbound hop, asks the
// backend's GET /probe, sleeps the way back and hands the answer to the
// pipeline (policy.Balancer.Probed), as the simulator's probe events time
// it (the k-th probe of a pick rides legs policy.ProbeLeg(k, ...)). At most
// maxProbesInFlight are on their way; a probe beyond them is dropped and
// counted.

// maxProbesInFlight bounds the probes on their way at once.
const maxProbesInFlight = 256

// probeTarget is one probe a pick asks for: the backend and its index.
type probeTarget struct {
	b *backend
	i int
}

// probes is the balancer's probing: the slots of the probes in flight,
// the goroutines Shutdown waits for (none starts once closed), and the
// counts its state shows.
type probes struct {
	slots                           chan struct{}
	mu                              sync.Mutex // guards closed and the wg.Add that starts a probe
	closed                          bool
	wg                              sync.WaitGroup
	sent, answered, failed, dropped atomic.Uint64
}

// close stops new probes and waits for those on their way.
func (p *probes) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.wg.Wait()
}

// start counts a probe started, unless closed.
func (p *probes) start() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.wg.Add(1)
	p.sent.Add(1)
	return true
}

func newProbes() *probes { return &probes{slots: make(chan struct{}, maxProbesInFlight)} }

// probeTargets asks the pipeline which backends to probe at the pick req,
// at now, into a's probes. Caller holds mu.
func (l *LB) probeTargets(now clock.Instant, req balance.Request, a *attempt) {
	if !l.bal.Probing() {
		return
	}
	l.probeBuf = l.bal.Probes(now, req, l.probeBuf[:0])
	if len(l.probeBuf) == 0 {
		return
	}
	a.probes = make([]probeTarget, 0, len(l.probeBuf))
	for _, i := range l.probeBuf {
		a.probes = append(a.probes, probeTarget{b: l.backends[i], i: i})
	}
}

// sendProbes starts a's probes, each on its own goroutine, while slots
// last; it never waits. Not under mu.
func (l *LB) sendProbes(a *attempt) {
	for k, t := range a.probes {
		select {
		case l.probes.slots <- struct{}{}:
		default:
			l.probes.dropped.Add(1)
			continue
		}
		if !l.probes.start() { // shutting down
			<-l.probes.slots
			return
		}
		if cutTo(a.base, l.cfg.Index, t.b.Name) { // across a cut link: it never arrives
			<-l.probes.slots
			l.probes.wg.Done()
			l.probes.failed.Add(1)
			continue
		}
		go l.probe(t, a.pick, k, toServer(a.base, l.cfg.Index, t.b.Name))
	}
}

// probe is one probe's life: the hop out, GET /probe, the hop back, the
// answer to the pipeline.
func (l *LB) probe(t probeTarget, pick uint64, k int, net policy.Network) {
	defer l.probes.wg.Done()
	defer func() { <-l.probes.slots }()
	if d := net.Delay(pick, policy.ProbeLeg(k, false)); d > 0 {
		l.cfg.Waits.Sleep(pace.Hop, d)
	}
	p, err := getProbe(t.b.hc, t.b.Addr, maxProbeWait)
	if err != nil {
		l.probes.failed.Add(1)
		l.log.Debug("probe", zap.String("backend", t.b.Name), zap.Error(err))
		return
	}
	if d := net.Delay(pick, policy.ProbeLeg(k, true)); d > 0 {
		l.cfg.Waits.Sleep(pace.Hop, d)
	}
	l.mu.Lock()
	l.bal.Probed(l.nowLocked(), t.i, pick, p)
	l.mu.Unlock()
	l.probes.answered.Add(1)
}

// getProbe asks the backend at addr for its probe answer within wait.
func getProbe(hc *fasthttp.HostClient, addr string, wait time.Duration) (p load.Probe, err error) {
	err = get(hc, addr, wire.ProbePath, wait, "", func(body []byte) (err error) {
		p, err = wire.ParseProbe(body)
		return err
	})
	return p, err
}

// probeState is the state's probe counts, when the algorithm probes or
// probes were sent (nil otherwise). Caller holds mu.
func (l *LB) probeState() *state.LBProbes {
	p := l.probes
	sent := p.sent.Load()
	if !l.bal.Probing() && sent == 0 {
		return nil
	}
	return &state.LBProbes{Sent: sent, Answered: p.answered.Load(), Failed: p.failed.Load(), Dropped: p.dropped.Load()}
}
