package dash

import (
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

// Reading is every process's /admin/state at one instant (one 250 ms tick).
type Reading struct {
	At         time.Time
	LBs        []LBReading
	Servers    []ServerReading
	Loadgen    *state.Loadgen
	LoadgenErr string
	Latency    *Buckets // the loadgen's latency histogram, cumulative; nil without one
}

type LBReading struct {
	Name   string
	State  *state.LB
	Err    string
	Exited string // how its process ended, when nobody asked it to
	// Proxy is an external proxy's own figures (nil for lblab's lb). Its
	// State is then made from them: the algorithm, the requests it sent
	// (the backends' counts summed) and, per server, what it has in flight
	// and a breaker state from its verdict (HAProxy's DOWN or MAINT: open).
	Proxy *Proxy
}

type ServerReading struct {
	Name   string
	State  *state.Backend
	Err    string
	Exited string
}

// carry fills what this reading could not read with the previous reading's
// figures, so a missed answer shows as a flat bin and the next bin's deltas
// stay right (the error is kept for display).
func (cur *Reading) carry(prev *Reading) {
	if prev == nil {
		return
	}
	if cur.Loadgen == nil {
		cur.Loadgen = prev.Loadgen
	}
	if cur.Latency == nil {
		cur.Latency = prev.Latency
	}
	for i := range cur.LBs {
		if cur.LBs[i].State == nil {
			if p := prev.lb(cur.LBs[i].Name); p != nil {
				cur.LBs[i].State = p
			}
		}
		if cur.LBs[i].Proxy == nil {
			for _, l := range prev.LBs {
				if l.Name == cur.LBs[i].Name {
					cur.LBs[i].Proxy = l.Proxy
				}
			}
		}
	}
	for i := range cur.Servers {
		if cur.Servers[i].State == nil {
			if p := prev.server(cur.Servers[i].Name); p != nil {
				cur.Servers[i].State = p
			}
		}
	}
}

func (r *Reading) lb(name string) *state.LB {
	for _, l := range r.LBs {
		if l.Name == name {
			return l.State
		}
	}
	return nil
}

func (r *Reading) server(name string) *state.Backend {
	for _, s := range r.Servers {
		if s.Name == name {
			return s.State
		}
	}
	return nil
}

// totals sums the loadgen's targets (one in lab up; several in a live
// compare) into client counters.
func (r *Reading) totals() (c clientTotals) {
	if r.Loadgen == nil {
		return c
	}
	c.ok = true
	for _, t := range r.Loadgen.Targets {
		c.offered += t.Requests
		c.attempts += t.Attempts
		c.succeeded += t.Succeeded
		c.failed += t.Failed
		c.timeouts += t.Timeouts
		c.rejected += t.Rejected
		c.errors += t.Errors
		c.retries += t.Retries
		c.hedges += t.Hedges
		c.wasted += t.Wasted
		c.crossed += t.Crossed
		c.pending += t.Pending
	}
	if len(r.Loadgen.Targets) > 0 { // the first target's: percentiles do not add up
		c.p50, c.p99 = r.Loadgen.Targets[0].P50, r.Loadgen.Targets[0].P99
	}
	return c
}

// clientTotals are the loadgen's counters since it started.
type clientTotals struct {
	ok                                   bool
	offered, attempts, succeeded, failed uint64
	timeouts, rejected, errors, retries  uint64
	hedges, wasted, crossed              uint64
	pending                              int
	p50, p99                             float64
}

// sentTo is how many requests went to each server so far: the balancers'
// picks summed, or (client-side, no balancer; an external proxy, which
// not every kind counts per server) what each backend received.
func (r *Reading) sentTo() map[string]uint64 {
	out := map[string]uint64{}
	if len(r.LBs) == 0 || r.proxied() {
		for _, s := range r.Servers {
			if s.State != nil {
				out[s.Name] = s.State.Counters.Arrived
			}
		}
		return out
	}
	for _, l := range r.LBs {
		if l.State == nil {
			continue
		}
		for _, b := range l.State.Backends {
			out[b.Name] += b.Picks
		}
	}
	return out
}

// proxied says whether the balancer tier is an external proxy.
func (r *Reading) proxied() bool {
	for _, l := range r.LBs {
		if l.Proxy != nil {
			return true
		}
	}
	return false
}
