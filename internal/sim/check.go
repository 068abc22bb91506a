package sim

import (
	"fmt"
	"math"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
)

// The invariants below are checked after every event in check mode (tests):
// a violation is recorded, and the run fails with all of them listed.

func (w *world) fail(format string, args ...any) {
	if len(w.fault) < 20 {
		w.fault = append(w.fault, fmt.Sprintf("at %v: ", w.now)+fmt.Sprintf(format, args...))
	}
}

// checkPick: nothing goes to an ejected server or through an open breaker;
// a pick through a half-open breaker is a probe; outlier ejection never
// holds more than its share of the servers out.
func (w *world) checkPick(now clock.Instant, b *policy.Balancer, t policy.Ticket) {
	if b.Ejected(t.Server) {
		w.fail("picked %s while it was ejected as an outlier", w.servers[t.Server].spec.Name)
	}
	if ejected, allowed := b.Ejections(); ejected > allowed {
		w.fail("%d servers ejected as outliers, at most %d allowed", ejected, allowed)
	}
	switch b.BreakerState(now, t.Server) {
	case breaker.Open:
		w.fail("picked %s through an open breaker", w.servers[t.Server].spec.Name)
	case breaker.HalfOpen:
		if !t.Probe {
			w.fail("picked %s through a half-open breaker without a probe", w.servers[t.Server].spec.Name)
		}
	}
	if b.Algorithm() == "ring-hash-bounded" && !w.clientLB && w.lab.Balancers.Load == labfile.LocalLoad {
		w.checkBounded(now, b, t.Server)
	}
	if !w.clientLB && w.lab.Balancers.Health.Enabled && !w.health.Healthy(t.Server) {
		w.fail("picked %s while health checks had ejected it", w.servers[t.Server].spec.Name)
	}
}

// checkServer: a server's workers and queue stay within their limits. After
// a set cut its workers, the jobs in service then finish: busy may stay over
// the count, but never grows while it is (no job starts on a cut worker).
func (w *world) checkServer(si int) {
	s := w.servers[si]
	q, in := s.core.Load()
	if in > max(s.spec.Workers, s.draining) || in < 0 || q < 0 {
		w.fail("%s has %d busy of %d workers (%d finishing over a cut) and %d queued", s.spec.Name, in, s.spec.Workers, s.draining, q)
	}
	if in > s.spec.Workers {
		s.draining = in
	} else {
		s.draining = 0
	}
	if c := s.spec.Queue.Capacity; c > 0 && q > c {
		w.fail("%s queue %d over capacity %d", s.spec.Name, q, c)
	}
}

// checkStep: every 1024 events, no pair holds more connections than
// max_conns, and each balancer's outstanding counts are never negative and
// equal the attempts it has forwarded and not yet answered.
func (w *world) checkStep() {
	if w.events%1024 != 0 {
		return
	}
	w.checkInFlight() // every kind of lab: check_inflight.go
	w.checkConnLimit()
	if w.clientLB || w.bals[0].Loads().Mode != load.Local {
		return
	}
	inflight := make([]int, len(w.bals))
	w.rt.EachAttempt(func(_ uint64, a *attempt) {
		if a.Net.ticket.Valid && !a.Net.lbDone {
			inflight[a.Bal]++
		}
	})
	for bi, b := range w.bals {
		for si, st := range b.Loads().Stats {
			if st.Outstanding < 0 {
				w.fail("balancer %d counts %d outstanding on server %d", bi, st.Outstanding, si)
			}
		}
		if got := b.Loads().InFlight(); got != inflight[bi] {
			w.fail("balancer %d counts %d outstanding, %d attempts are in flight", bi, got, inflight[bi])
		}
	}
}

// checkEnd: every request ended exactly once; connections are counted
// once each.
func (w *world) checkEnd() {
	w.checkConns()
	t, o := w.col.Total, w.col.Outcomes
	if n := w.rt.Pending(); n != 0 {
		w.fail("%d requests never ended", n)
	}
	if sum := o.Succeeded + o.Failed + o.Rejected + o.TimedOut; sum != t.Offered {
		w.fail("%d requests offered but %d outcomes", t.Offered, sum)
	}
	if t.Succeeded+t.Failed != t.Offered {
		w.fail("succeeded %d + failed %d != requests %d", t.Succeeded, t.Failed, t.Offered)
	}
}

// checkBounded: consistent hashing with bounded loads never puts a server
// over ceil((1+eps)(T+1)/m), where m servers were eligible for the pick and
// T were in flight on them before it, so the busiest stays within
// (1+eps) x mean + 1 (Mirrokni, Thorup, Zadimoghaddam). The servers eligible
// before the pick are those eligible after it plus the one picked (a probe
// can use up its breaker's last half-open place); under a locality layer,
// those of the zones it chose for the pick (policy.Balancer.PickZones).
func (w *world) checkBounded(now clock.Instant, b *policy.Balancer, picked int) {
	loads := b.Loads()
	m, before := 0.0, -1.0 // the pick itself is in the count now
	for _, i := range b.Members() {
		if i == picked || b.Eligible(now, i) && b.PickZones(i) {
			m++
			before += float64(loads.Stats[i].Outstanding)
		}
	}
	capacity := math.Ceil((1 + w.lab.Balancers.Epsilon) * (before + 1) / m)
	if got := float64(loads.Stats[picked].Outstanding); got > capacity {
		w.fail("ring-hash-bounded put %s at %v outstanding, over its capacity %v", w.servers[picked].spec.Name, got, capacity)
	}
}
