package lab

import (
	"context"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

// reading is every process's /admin/state at one instant (one 250 ms tick).
type reading struct {
	at      time.Time
	lbs     []lbReading
	servers []serverReading
	lg      *state.Loadgen
	lgErr   string
	lat     *buckets // the loadgen's latency histogram, cumulative; nil without one
}

type lbReading struct {
	name   string
	st     *state.LB
	err    string
	exited string // how its process ended, when nobody asked it to
}

type serverReading struct {
	name   string
	st     *state.Backend
	err    string
	exited string
}

// gatherTimeout bounds one reading, so one stuck process delays a tick,
// not the dashboard.
const gatherTimeout = time.Second

// gather reads every process of the run in parallel.
func gather(ctx context.Context, r *liveRun) *reading {
	ctx, cancel := context.WithTimeout(ctx, gatherTimeout)
	defer cancel()
	lbs, backs := r.balancers(), r.backends()
	out := &reading{at: time.Now(), lbs: make([]lbReading, len(lbs)), servers: make([]serverReading, len(backs))}
	var wg sync.WaitGroup
	for i, p := range lbs {
		wg.Go(func() {
			var st state.LB
			out.lbs[i] = lbReading{name: p.name, st: &st, exited: p.exitedHow()}
			if err := call(ctx, p.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.lbs[i] = lbReading{name: p.name, err: err.Error(), exited: p.exitedHow()}
			}
		})
	}
	for i, p := range backs {
		wg.Go(func() {
			var st state.Backend
			out.servers[i] = serverReading{name: p.name, st: &st, exited: p.exitedHow()}
			if err := call(ctx, p.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.servers[i] = serverReading{name: p.name, err: err.Error(), exited: p.exitedHow()}
			}
		})
	}
	wg.Go(func() {
		var st state.Loadgen
		if err := call(ctx, r.loadgen.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			out.lgErr = err.Error()
			return
		}
		out.lg = &st
	})
	wg.Go(func() { out.lat = readLatency(ctx, r.loadgen.ready.Admin) })
	wg.Wait()
	return out
}

// carry fills what this reading could not read with the previous reading's
// figures, so a missed answer shows as a flat bin and the next bin's deltas
// stay right (the error is kept for display).
func (cur *reading) carry(prev *reading) {
	if prev == nil {
		return
	}
	if cur.lg == nil {
		cur.lg = prev.lg
	}
	if cur.lat == nil {
		cur.lat = prev.lat
	}
	for i := range cur.lbs {
		if cur.lbs[i].st == nil {
			if p := prev.lb(cur.lbs[i].name); p != nil {
				cur.lbs[i].st = p
			}
		}
	}
	for i := range cur.servers {
		if cur.servers[i].st == nil {
			if p := prev.server(cur.servers[i].name); p != nil {
				cur.servers[i].st = p
			}
		}
	}
}

func (r *reading) lb(name string) *state.LB {
	for _, l := range r.lbs {
		if l.name == name {
			return l.st
		}
	}
	return nil
}

func (r *reading) server(name string) *state.Backend {
	for _, s := range r.servers {
		if s.name == name {
			return s.st
		}
	}
	return nil
}

// totals sums the loadgen's targets (one in lab up; several in a live
// compare) into client counters.
func (r *reading) totals() (c clientTotals) {
	if r.lg == nil {
		return c
	}
	c.ok = true
	for _, t := range r.lg.Targets {
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
		c.pending += t.Pending
	}
	if len(r.lg.Targets) > 0 { // the first target's: percentiles do not add up
		c.p50, c.p99 = r.lg.Targets[0].P50, r.lg.Targets[0].P99
	}
	return c
}

// clientTotals are the loadgen's counters since it started.
type clientTotals struct {
	ok                                   bool
	offered, attempts, succeeded, failed uint64
	timeouts, rejected, errors, retries  uint64
	hedges, wasted                       uint64
	pending                              int
	p50, p99                             float64
}

// sentTo is how many requests went to each server so far: the balancers'
// picks summed, or (client-side, no balancer) what each backend received.
func (r *reading) sentTo() map[string]uint64 {
	out := map[string]uint64{}
	if len(r.lbs) == 0 {
		for _, s := range r.servers {
			if s.st != nil {
				out[s.name] = s.st.Counters.Arrived
			}
		}
		return out
	}
	for _, l := range r.lbs {
		if l.st == nil {
			continue
		}
		for _, b := range l.st.Backends {
			out[b.Name] += b.Picks
		}
	}
	return out
}
