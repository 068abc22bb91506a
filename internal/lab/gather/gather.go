// Package gather reads a live lab's running processes: every 250 ms their
// admin states into a dash.Reading (Read), the balancers' event streams
// into the lab's event log (Log), the progress line of lab run (Progress),
// and at a run's end the servers' and the balancers' own figures for the
// report (ServerFigures, BalancerConnections). It reads; it changes
// nothing in the processes.
package gather

import (
	"context"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/shell/state"
)

// gatherTimeout bounds one reading, so one stuck process delays a tick,
// not the dashboard.
const gatherTimeout = time.Second

// Extra is one more reading taken in parallel with the processes' (an
// external proxy's stats interface): it reads, and returns what to add to
// the reading once every part is in.
type Extra func(ctx context.Context) func(*dash.Reading)

// Read reads every process of a run in parallel: its balancers, its
// backends (in server order) and its loadgen, whose /metrics also gives the
// latency histogram; and each extra, whose additions are made in order
// once all are in.
func Read(ctx context.Context, lbs, backs []*proc.Proc, loadgen *proc.Proc, extra ...Extra) *dash.Reading {
	ctx, cancel := context.WithTimeout(ctx, gatherTimeout)
	defer cancel()
	out := &dash.Reading{At: time.Now(), LBs: make([]dash.LBReading, len(lbs)), Servers: make([]dash.ServerReading, len(backs))}
	var wg sync.WaitGroup
	for i, p := range lbs {
		wg.Go(func() {
			var st state.LB
			out.LBs[i] = dash.LBReading{Name: p.Name, State: &st, Exited: p.ExitedHow()}
			if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.LBs[i] = dash.LBReading{Name: p.Name, Err: err.Error(), Exited: p.ExitedHow()}
			}
		})
	}
	for i, p := range backs {
		wg.Go(func() {
			var st state.Backend
			out.Servers[i] = dash.ServerReading{Name: p.Name, State: &st, Exited: p.ExitedHow()}
			if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				out.Servers[i] = dash.ServerReading{Name: p.Name, Err: err.Error(), Exited: p.ExitedHow()}
			}
		})
	}
	wg.Go(func() {
		var st state.Loadgen
		if err := admin.Call(ctx, loadgen.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			out.LoadgenErr = err.Error()
			return
		}
		out.Loadgen = &st
	})
	wg.Go(func() { out.Latency = readLatency(ctx, loadgen.Ready.Admin) })
	adds := make([]func(*dash.Reading), len(extra))
	for i, e := range extra {
		wg.Go(func() { adds[i] = e(ctx) })
	}
	wg.Wait()
	for _, add := range adds {
		add(out)
	}
	return out
}

// readLatency scrapes the loadgen's /metrics for the latency histogram; nil
// when it has none (an older loadgen, or no exporter yet).
func readLatency(ctx context.Context, addr string) *dash.Buckets {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+addr+"/metrics", nil)
	if err != nil {
		return nil
	}
	admin.Authorize(req)
	resp, err := admin.Client.Do(req)
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
