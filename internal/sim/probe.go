package sim

import (
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
)

// A probing algorithm's probes (balance.Prober: prequal) are events: a
// probe travels the balancer -> server hop, the server answers at once
// (no worker, no queue: server.Server.Probe), and the answer travels back;
// the k-th probe of a pick rides legs policy.ProbeLeg(k, ...) with the
// pick's number, so its hops are delayed as the live lb delays them. A
// server that is down or gone does not answer.

// probeTransit is one probe on its way: which balancer sent it to which
// server, at which pick, and the server's answer once it has one.
type probeTransit struct {
	bal, server int32
	k           int32  // its place among its pick's probes
	pick        uint64 // the pick that sent it
	answer      load.Probe
}

// sendProbes sends the probes balancer bi's algorithm asks for at the pick
// req (none for an algorithm that does not probe).
func (w *world) sendProbes(now clock.Instant, bi int, req balance.Request) {
	if !w.bals[bi].Probing() {
		return
	}
	w.probeBuf = w.bals[bi].Probes(now, req, w.probeBuf[:0])
	for k, si := range w.probeBuf {
		h, p := w.probes.New()
		*p = probeTransit{bal: int32(bi), server: int32(si), k: int32(k), pick: req.Seq}
		w.probesSent++
		if z := w.net.Zones; w.net.Cut && z != nil && w.net.Crosses(z.Balancer(int32(bi)), z.Server(int32(si))) {
			w.probes.Free(h) // across a cut link: it never arrives
			continue
		}
		w.pushHop(now.Add(w.probeDelay(p, false)), evProbeAtServer, h)
	}
}

// probeDelay is probe p's one-way delay, out or back.
func (w *world) probeDelay(p *probeTransit, back bool) time.Duration {
	if z := w.net.Zones; z != nil {
		return w.net.Between(z.Balancer(p.bal), z.Server(p.server)).Delay(p.pick, policy.ProbeLeg(int(p.k), back))
	}
	if w.net.Jitter <= 0 {
		return w.net.Hop
	}
	return w.net.Delay(p.pick, policy.ProbeLeg(int(p.k), back))
}

// onProbeAtServer answers a probe that reached its server, and sends the
// answer back.
func (w *world) onProbeAtServer(h uint64) {
	p := w.probes.Get(h)
	if p == nil {
		return
	}
	s := w.servers[p.server]
	if s.removed || !s.core.Up() {
		w.probes.Free(h)
		return
	}
	p.answer = s.core.Probe()
	w.pushHop(w.now.Add(w.probeDelay(p, true)), evProbeAtLB, h)
}

// onProbeAtLB hands an answer that reached its balancer to the algorithm.
func (w *world) onProbeAtLB(h uint64) {
	p := w.probes.Get(h)
	if p == nil {
		return
	}
	w.bals[p.bal].Probed(w.now, int(p.server), p.pick, p.answer)
	w.probes.Free(h)
}

// probeFigures are the run's probe figures, when an algorithm of the lab
// probes or a probe was sent (nil otherwise): the probes sent, and those
// the servers answered.
func (w *world) probeFigures(requests uint64) *report.Probes {
	if !w.probing && w.probesSent == 0 {
		return nil
	}
	var answered uint64
	for _, s := range w.servers {
		answered += s.core.Peek().Probes
	}
	return report.NewProbes(w.probesSent, answered, requests)
}
