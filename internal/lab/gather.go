package lab

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/shell/state"
)

// gatherTimeout bounds one reading, so one stuck process delays a tick,
// not the dashboard.
const gatherTimeout = time.Second

// gather reads every process of the run in parallel.
func gather(ctx context.Context, r *liveRun) *dash.Reading {
	ctx, cancel := context.WithTimeout(ctx, gatherTimeout)
	defer cancel()
	lbs, backs := r.balancers(), r.backends()
	out := &dash.Reading{At: time.Now(), LBs: make([]dash.LBReading, len(lbs)), Servers: make([]dash.ServerReading, len(backs))}
	var wg sync.WaitGroup
	for i, p := range lbs {
		wg.Go(func() {
			var st state.LB
			out.LBs[i] = dash.LBReading{Name: p.name, State: &st, Exited: p.exitedHow()}
			if err := call(ctx, p.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.LBs[i] = dash.LBReading{Name: p.name, Err: err.Error(), Exited: p.exitedHow()}
			}
		})
	}
	for i, p := range backs {
		wg.Go(func() {
			var st state.Backend
			out.Servers[i] = dash.ServerReading{Name: p.name, State: &st, Exited: p.exitedHow()}
			if err := call(ctx, p.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.Servers[i] = dash.ServerReading{Name: p.name, Err: err.Error(), Exited: p.exitedHow()}
			}
		})
	}
	wg.Go(func() {
		var st state.Loadgen
		if err := call(ctx, r.loadgen.ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			out.LoadgenErr = err.Error()
			return
		}
		out.Loadgen = &st
	})
	wg.Go(func() { out.Latency = readLatency(ctx, r.loadgen.ready.Admin) })
	x := r.f.external()
	var pst *ProxyStats
	var perr error
	if x != nil { // a proxy in the lb's place: its stats interface (externaldash.go)
		wg.Go(func() { pst, perr = x.liveStats(ctx) })
	}
	wg.Wait()
	if x != nil {
		out.LBs = append(out.LBs, x.liveReading(pst, perr, out.Servers))
	}
	return out
}

// readLatency scrapes the loadgen's /metrics for the latency histogram; nil
// when it has none (an older loadgen, or no exporter yet).
func readLatency(ctx context.Context, admin string) *dash.Buckets {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+admin+"/metrics", nil)
	if err != nil {
		return nil
	}
	authorize(req)
	resp, err := adminClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return nil
	}
	return dash.ParseBuckets(string(data), dash.LatencyFamily)
}
