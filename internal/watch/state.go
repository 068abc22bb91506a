package watch

import (
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/sim"
)

// reading presents a simulated world's state as its processes would report
// it on their admin APIs (backend, lb and loadgen /admin/state), so the
// snapshot is built by the live dashboard's code. now is the lab with the
// settings in force, settings its balancers' settings (state.SettingsOf(now)).
func reading(st sim.State, bin *report.Bin, now *labfile.Lab, settings state.Settings) dash.VirtualReading {
	r := dash.VirtualReading{At: time.Duration(st.T), Bin: bin}
	c := st.Clients
	mode := "open"
	if !c.Open {
		mode = "closed"
	}
	k := c.Counts
	r.Loadgen = state.Loadgen{Mode: mode, Rate: c.Rate, Users: c.Users, ElapsedS: time.Duration(st.T).Seconds(),
		Targets: []state.Target{{Name: "sim", Requests: k.Offered, Pending: c.Pending, Succeeded: k.Succeeded,
			Failed: k.Failed, Attempts: k.Attempts, Timeouts: k.Timeouts, Rejected: k.Rejected, Errors: k.Errors,
			Retries: k.Retries, Hedges: k.Hedges, Wasted: k.Wasted, Crossed: k.Crossed, P50: report.Ms(c.P50), P99: report.Ms(c.P99)}}}
	for _, sv := range st.Servers {
		r.Servers = append(r.Servers, serverState(sv, now))
	}
	for i, b := range st.Balancers {
		ls := state.LB{Name: b.Name, Index: i, Algorithm: b.Algorithm, Settings: settings, Picks: b.Picks}
		if q := b.Idle; q != nil {
			ls.Idle = &state.LBIdle{Received: q.Received, FromQueue: q.FromQueue, Queue: make([]string, len(q.Queue))}
			for k, si := range q.Queue {
				ls.Idle.Queue[k] = st.Servers[si].Spec.Name
			}
		}
		for j, v := range b.Servers {
			bs := state.LBBackend{Name: st.Servers[j].Name, Weight: v.Weight, Outstanding: v.Outstanding,
				Queued: v.Queued, InService: v.InService, Utilization: v.Utilization, ORCAWeight: v.ORCAWeight, EWMAMs: report.Ms(v.EWMA), Breaker: v.Breaker.String(),
				Healthy: v.Healthy, Ejected: v.Ejected, Member: v.Member, Picks: v.Picks, Present: v.Present,
				Probe: state.PoolProbe(st.T, b.Pool, j)}
			if b.Picks > 0 {
				bs.Share = float64(v.Picks) / float64(b.Picks)
			}
			ls.Backends = append(ls.Backends, bs)
		}
		r.Balancers = append(r.Balancers, ls)
	}
	return r
}

func serverState(sv sim.ServerState, now *labfile.Lab) state.Backend {
	spec := sv.Spec.Server
	kinds := make([]string, len(sv.Kinds))
	for i, k := range sv.Kinds {
		kinds[i] = k.String()
	}
	q := state.Queue{Capacity: spec.Queue.Capacity, Discipline: string(labfile.FIFO), DropExpired: spec.DropExpired}
	if spec.Queue.Discipline == labfile.LIFO {
		q.Discipline = string(labfile.LIFO)
	}
	limiter := state.Limiter{Kind: "none"}
	if l := spec.Limiter; l.Kind != "" {
		limiter = state.Limiter{Kind: l.Kind, Initial: l.Initial, Min: l.Min, Max: l.Max, Limit: sv.Limit}
	}
	s := sv.Snapshot
	return state.Backend{Name: sv.Spec.Name, Up: s.Up && !sv.Removed, Listening: s.Up, Paused: s.Paused, Fail: s.Failing,
		Speed: s.Speed, ConfiguredSpeed: spec.Speed, Errors: s.ErrorShare, ConfiguredErrors: spec.Errors,
		Workers: s.Workers, Busy: s.Busy, Queued: s.Queued, QueuedKinds: kinds, QueuedAbandoned: sv.Abandoned, Queue: q,
		MaxOutstanding: spec.MaxOutstanding, QueueTimeoutMs: report.Ms(spec.QueueTimeout), Limiter: limiter,
		HopMs: report.Ms(now.Network.Hop), JitterMs: report.Ms(now.Network.Jitter),
		Counters: state.CountersOf(s)}
}
