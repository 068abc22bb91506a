// Package loadgen is the live load generator: it replays the lab's seeded
// request stream (the simulator's, request for request) over real HTTP to
// one or more balancers, or straight to the servers when the clients balance
// themselves, and reports what the clients saw in the simulator's report
// format (mode "live").
//
// One event-loop goroutine owns the stream, every target's policy.Client,
// calls and balancers, driving them like the simulator does: a timer heap
// (arrivals, call timers, bins) woken by a single time.Timer, and attempts on
// goroutines that post their answers back through a channel. Latency counts
// from each request's intended start (no coordinated omission).
package loadgen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/client"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/metrics"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/stats"
	"github.com/lblab/lblab/internal/workload"
)

// Runner is one live run. Build it with New, start it once with Run; Admin
// serves its admin API while it runs.
type Runner struct {
	l       *loop
	met     *metrics.Loadgen
	started atomic.Bool
	running chan struct{} // closed when the loop starts
	stopped chan struct{} // closed when the loop stops taking commands
	done    chan struct{} // closed when Run returns
}

// New validates cfg and builds the run without sending anything (what
// --check-config runs).
func New(cfg Config) (*Runner, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	l := &loop{cfg: cfg, lab: cfg.Lab, log: cfg.Log, tr: newTransport(cfg.Dial, cfg.Token, cfg.TLS, cfg.Waits), net: assemble.Network(cfg.Lab),
		results: make(chan result, 1024), cmds: make(chan command), lateness: stats.NewHistogram(), closeReplay: func() {}}
	if cfg.HTTP.Plain {
		l.net = policy.Network{} // a real service over a real network: nothing to inject
	}
	if l.stream, l.users, err = assemble.Stream(l.lab); err != nil {
		return nil, err
	}
	l.arrivals = l.stream
	if cfg.Replay != nil {
		l.users = 0 // a trace's instants are the arrivals (Run opens it)
	}
	r := &Runner{l: l, running: make(chan struct{}), stopped: make(chan struct{}), done: make(chan struct{})}
	r.newMetrics()
	for i, tc := range cfg.Targets {
		t, err := l.newTarget(i, tc)
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", tc.Name, err)
		}
		l.targets = append(l.targets, t)
	}
	return r, nil
}

// newTarget builds one target: its endpoints (and its balancers in
// client-side mode) and its client runtime over the run's shared stream.
func (l *loop) newTarget(i int, tc Target) (*target, error) {
	t := &target{l: l, idx: i, name: tc.Name, byName: map[string]int{}}
	cfg, err := assemble.ClientConfig(l.lab)
	if err != nil {
		return nil, err
	}
	cfg.Stream, cfg.Series = l.stream, l.cfg.Series
	cfg.Requests, cfg.Attempts = l.obs.Requests(tc.Name), l.obs.Attempts(tc.Name)
	cfg.Users = l.users // 0 when a trace is replayed
	if l.cfg.clientSide() {
		if cfg.Balancers, err = l.clientSide(t); err != nil {
			return nil, err
		}
	} else if err := l.balancerTier(t, tc); err != nil {
		return nil, err
	}
	cfg.Tier = len(t.eps)
	t.rt = client.New[onWire](cfg, t)
	t.modelConns()
	return t, nil
}

// balancerTier points t at the balancer URLs of tc.
func (l *loop) balancerTier(t *target, tc Target) error {
	t.algo = l.lab.Balancers.Algorithm
	if slices.Contains(policy.Algorithms(), t.name) {
		t.algo = t.name
	}
	if l.cfg.HTTP.Plain {
		t.algo = "" // not lblab's balancer: the servers are whoever answers
	} else {
		for _, ns := range l.lab.ExpandServers() {
			t.server(ns.Name)
		}
	}
	return l.templates(t, tc)
}

// clientSide points t at the given servers and returns one balancer per
// client id over them.
func (l *loop) clientSide(t *target) ([]*policy.Balancer, error) {
	t.algo = l.lab.Clients.Algorithm
	t.present = map[string]int{}
	for _, s := range l.cfg.Servers {
		t.addEndpoint(s.Name, s.Addr)
	}
	bals, err := buildBalancers(l.lab, serverWeights(l.lab, l.cfg.Servers))
	if err != nil {
		return nil, err
	}
	for _, b := range bals {
		b.OnBreaker = l.breakerLogger(t)
	}
	if l.lab.Clients.Refresh > 0 {
		l.log.Warn("clients.refresh is not supported live: client-side balancers learn loads from the answers' piggybacked headers only")
	}
	return bals, nil
}

// Run sends the stream until the lab's duration, waits for the requests
// still out (up to the drain limit; the rest end as timed out) and returns
// the report. Cancelling ctx (SIGINT) stops the arrivals at once, drains
// briefly and reports what ran.
func (r *Runner) Run(ctx context.Context) (*report.Report, error) {
	if !r.started.CompareAndSwap(false, true) {
		return nil, errors.New("loadgen: a Runner runs once")
	}
	defer close(r.done)
	l := r.l
	if l.cfg.Replay != nil {
		if err := l.openReplay(l.cfg.Replay); err != nil {
			return nil, err
		}
	}
	if l.cfg.Logs != nil {
		for _, t := range l.targets {
			t.rt.SetLog(l.cfg.Logs(t.name))
		}
	}
	stopDiscovery, err := r.startDiscovery()
	if err != nil {
		return nil, err
	}
	l.start()
	close(r.running)
	end := l.run(ctx)
	close(r.stopped)
	stopDiscovery()
	l.shutdown()
	if l.cfg.LogWaits {
		l.cfg.Waits.Log(l.log)
	}
	l.closeReplay()
	l.warnLate()
	for _, t := range l.targets {
		t.rt.Ended(end)
	}
	if err := l.arrivals.Err(); err != nil {
		return nil, err
	}
	return l.report(end), nil
}

// openReplay makes the trace the run's arrivals (open loop).
func (l *loop) openReplay(tr *workload.Trace) error {
	rc, err := tr.Open()
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	p, err := workload.NewReplay(rc, tr.Name, l.stream)
	if err != nil {
		rc.Close()
		return err
	}
	l.arrivals, l.closeReplay = p, func() { rc.Close() }
	return nil
}

// Late returns how many requests started late (after Run).
func (r *Runner) Late() uint64 { return r.l.late }

// report builds the live report: one run per target.
func (l *loop) report(end clock.Instant) *report.Report {
	rep := &report.Report{Mode: "live", Lab: l.lab.Name, Seed: l.lab.Seed, DurationS: math.Round(l.stopAt.Seconds()*1000) / 1000}
	for _, t := range l.targets {
		run := report.Run{Name: t.name, Algorithm: t.algo, Log: t.log}
		if l.late > 0 {
			run.Log = append(run.Log, report.LogLine{T: l.stopAt.Seconds(), Text: l.lateText()})
		}
		if l.capHits > 0 {
			run.Log = append(run.Log, report.LogLine{T: l.stopAt.Seconds(), Text: l.capText()})
		}
		t.rt.Rec.Fill(&run, end)
		run.Servers = t.serverRows()
		run.Pacing = &report.Pacing{Started: uint64(l.lateness.Count()), Late: l.late,
			P50: report.Ms(l.lateness.Quantile(0.5)), P99: report.Ms(l.lateness.Quantile(0.99)),
			Max: report.Ms(l.lateness.Max())}
		rep.Runs = append(rep.Runs, run)
	}
	return rep
}

// serverRows are the servers as the client saw them, in fleet order.
func (t *target) serverRows() []report.Server {
	var sent uint64
	for _, s := range t.servers {
		sent += s.sent
	}
	rows := make([]report.Server, len(t.servers))
	for i, s := range t.servers {
		rows[i] = report.Server{Name: s.name, Sent: s.sent, Completed: s.completed, MaxQueue: s.maxQueue}
		if sent > 0 {
			rows[i].Share = float64(s.sent) / float64(sent)
		}
	}
	return rows
}

// warnLate prints the loud end-of-run warning when the loop fell behind.
func (l *loop) warnLate() {
	if l.late == 0 && l.capHits == 0 {
		return
	}
	l.log.Warn("loadgen fell behind", zap.Uint64("late", l.late), zap.Duration("worst", l.maxLate),
		zap.Uint64("held_by_inflight_cap", l.capHits), zap.Uint64("never_started", l.unsent))
	if l.cfg.Warn != nil {
		fmt.Fprintf(l.cfg.Warn, "\n!!! WARNING: %s\n", l.lateText())
		if l.capHits > 0 {
			fmt.Fprintf(l.cfg.Warn, "!!! %s\n", l.capText())
		}
		if l.unsent > 0 {
			fmt.Fprintf(l.cfg.Warn, "!!! %d requests of the stream never started before the drain limit; the report leaves them out\n", l.unsent)
		}
	}
}

func (l *loop) capText() string {
	return fmt.Sprintf("%d requests waited for the in-flight cap (--max-inflight %d attempts out at once)",
		l.capHits, l.cfg.MaxInflight)
}

func (l *loop) lateText() string {
	return fmt.Sprintf("loadgen fell behind: %d requests started more than %v after their intended time (worst %v); "+
		"their latency still counts from the intended time", l.late, l.cfg.Late, l.maxLate.Round(time.Microsecond))
}
