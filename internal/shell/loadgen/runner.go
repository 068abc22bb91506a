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
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

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
		results: make(chan result, 1024), cmds: make(chan command), wake: make(chan struct{}, 1), lateness: stats.NewHistogram(), closeReplay: func() {}}
	l.tr.inline = l.inline
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
	t := &target{l: l, idx: i, name: tc.Name, byName: map[string]int{},
		codes: map[int]uint64{}, kinds: map[string]uint64{}, service: stats.NewHistogram()}
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
	t.url = l.cfg.describe(tc)
	t.rt = client.New[onWire](cfg, t)
	t.modelConns()
	return t, nil
}

// describe names what target tc loads, for the report: its URLs ("|"
// between a tier's balancers), a targets file's, or the servers.
func (cfg *Config) describe(tc Target) string {
	switch {
	case cfg.clientSide():
		var parts []string
		for _, s := range cfg.Servers {
			parts = append(parts, s.Name+"="+s.Addr)
		}
		if cfg.Discover != nil {
			parts = append(parts, "DNS "+cfg.Discover.String())
		}
		return "servers " + strings.Join(parts, ",")
	case len(cfg.Requests) > 0:
		var urls []string
		for _, r := range cfg.Requests {
			if !slices.Contains(urls, r.URL) {
				urls = append(urls, r.URL)
			}
		}
		if len(urls) > 3 {
			urls = append(urls[:3], fmt.Sprintf("... (%d URLs)", len(urls)))
		}
		return "targets file: " + strings.Join(urls, " ")
	}
	return strings.Join(tc.URLs, "|")
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
	use := usage{cpu: cpuTime() - l.cpu0, wait: runqueueWait() - l.wait0, wall: time.Since(l.epoch), cores: runtime.GOMAXPROCS(0)}
	close(r.stopped)
	stopDiscovery()
	l.shutdown()
	if l.cfg.LogWaits {
		l.cfg.Waits.Log(l.log)
	}
	l.closeReplay()
	for _, t := range l.targets {
		t.rt.Ended(end)
	}
	if err := l.arrivals.Err(); err != nil {
		return nil, err
	}
	rep := l.report(end, use)
	l.warnLate(rep)
	return rep, nil
}

// usage is the CPU the loadgen used while the run went on.
type usage struct {
	cpu, wall time.Duration
	wait      time.Duration // waited for a CPU while ready to run (runqueueWait)
	cores     int
}

// waitShare is the time the process waited for a CPU while ready to run,
// as a share of the run.
func (u usage) waitShare() float64 {
	if u.wall <= 0 {
		return 0
	}
	return u.wait.Seconds() / u.wall.Seconds()
}

// share is the part of its cores the process kept busy.
func (u usage) share() float64 {
	if u.wall <= 0 || u.cores <= 0 {
		return 0
	}
	return u.cpu.Seconds() / (u.wall.Seconds() * float64(u.cores))
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
func (l *loop) report(end clock.Instant, use usage) *report.Report {
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
		run.Load = t.load(&run, use)
		rep.Runs = append(rep.Runs, run)
	}
	return rep
}

// load is the load tool's view of t's run (report.Load).
func (t *target) load(run *report.Run, use usage) *report.Load {
	l := t.l
	sending := math.Round(max(l.stopAt, l.lastStart).Seconds()*1000) / 1000
	ld := &report.Load{Target: t.url, Connections: l.cfg.Connections, Due: run.Requests, Sent: run.Requests,
		SendingS: sending, Latency: loadLatency(t.rt.Rec.Lat), Service: loadLatency(t.service),
		StatusCodes: t.codes, ErrorKinds: t.kinds}
	if l.users == 0 {
		ld.Due += l.unsent
		switch d := l.stopAt.Seconds(); {
		case l.lab.Clients.Profile == nil && l.cfg.Replay == nil && !l.rateSet:
			ld.Rate = l.lab.Clients.Rate
		case d > 0: // a profile, a trace, a rate changed on the way: the stream's average
			ld.Rate = round2(float64(ld.Due) / d)
		}
	}
	if sending > 0 {
		ld.AchievedRate = round2(float64(ld.Sent) / sending)
	}
	g := &ld.Generator
	g.Behind = report.IsBehind(l.late, l.started, l.unsent)
	g.BehindAtEndMs, g.WaitedForConnection, g.NeverStarted = report.Ms(l.lastLate), l.capHits, l.unsent
	g.CPU, g.Cores = math.Round(use.share()*1000)/1000, use.cores
	g.WaitedForCPUS = math.Round(use.wait.Seconds()*1000) / 1000
	if g.Behind {
		g.Cause, g.Advice = t.behindCause(ld, use)
	}
	return ld
}

// behindCause says why the generator fell behind and which knob helps:
// its own CPU, every connection busy, or neither (it was not run on time).
func (t *target) behindCause(ld *report.Load, use usage) (string, string) {
	l := t.l
	switch {
	case use.share() >= busyCPU:
		return "cpu", fmt.Sprintf("The loadgen used %.0f%% of its %d cores (GOMAXPROCS): its own CPU was the limit, not the service. "+
			"Give it more cores (GOMAXPROCS, taskset), lower --rate, or split the load over several loadgens.", 100*ld.Generator.CPU, use.cores)
	case use.waitShare() >= busyMachine:
		return "scheduling", fmt.Sprintf("The machine was busy: the loadgen's threads waited %v for a CPU while ready to run "+
			"(summed over its threads: %.0f%% of the run's time) and used %.0f%% of its %d cores. Its lateness and the service times it measured include that wait; "+
			"run it on a quieter machine or give it cores of its own (taskset).",
			use.wait.Round(time.Millisecond), 100*use.waitShare(), 100*ld.Generator.CPU, use.cores)
	case l.capHits > 0 && l.cfg.MaxInflight > 0:
		return "connections", fmt.Sprintf("%d requests waited because %d attempts were out (the in-flight cap, --max-inflight): "+
			"raise it, or leave it out to use every connection (--connections %d per endpoint).", l.capHits, l.cfg.MaxInflight, l.cfg.Connections)
	case l.capHits > 0:
		mean := t.service.Mean()
		eps := max(len(t.eps), 1)
		text := fmt.Sprintf("Every connection was busy: %d requests waited for one (--connections %d per endpoint).", l.capHits, l.cfg.Connections)
		need := int(math.Ceil(2 * ld.Rate * mean.Seconds() / float64(eps))) // Little's law, twice over for bursts
		switch {
		case mean <= 0:
		case need > l.cfg.Connections:
			text += fmt.Sprintf(" The service answered in %v on average, so they carry at most %.0f requests/s: "+
				"give --connections %d or more (the rate times the mean answer time, twice over for bursts).",
				mean.Round(time.Microsecond), float64(l.cfg.Connections*eps)/mean.Seconds(), need)
		default:
			text += fmt.Sprintf(" They are enough for the service's mean answer time (%v: %d would do), but the service "+
				"stalled (its answers' p99 %v, max %v) and held them all: the service was slow, and the wait is in the "+
				"latency as a user would see it. More connections would queue more requests at the service instead.",
				mean.Round(time.Microsecond), max(need, 1), t.service.Quantile(0.99).Round(time.Microsecond),
				t.service.Max().Round(time.Microsecond))
		}
		return "connections", text
	}
	return "scheduling", fmt.Sprintf("The connections had room and the loadgen used %.0f%% of its %d cores: "+
		"the machine did not run it on time (other processes on its cores?). A quieter machine or more cores would help.",
		100*ld.Generator.CPU, use.cores)
}

// busyCPU is the share of its cores above which the loadgen counts as
// CPU-bound when it falls behind.
const busyCPU = 0.8

// busyMachine is the time waiting for a CPU, as a share of the run, above
// which a loadgen that fell behind blames the machine.
const busyMachine = 0.1

func loadLatency(h *stats.Histogram) report.LoadLatency {
	return report.LoadLatency{Count: uint64(h.Count()), Min: report.Ms(h.Min()), Mean: report.Ms(h.Mean()),
		P50: report.Ms(h.Quantile(0.5)), P90: report.Ms(h.Quantile(0.9)), P95: report.Ms(h.Quantile(0.95)),
		P99: report.Ms(h.Quantile(0.99)), P999: report.Ms(h.Quantile(0.999)), Max: report.Ms(h.Max())}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

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

// warnLate prints the end-of-run warning when the loop fell behind its
// schedule (report.IsBehind): one paragraph, how far, why, and which knob
// would help; the same as the report's BEHIND paragraph.
func (l *loop) warnLate(rep *report.Report) {
	if l.cfg.Warn == nil || len(rep.Runs) == 0 {
		return
	}
	if text := report.BehindParagraph(&rep.Runs[0]); text != "" {
		fmt.Fprintf(l.cfg.Warn, "\n%s\n", text)
	}
}

func (l *loop) capText() string {
	return fmt.Sprintf("%s waited for a free connection (the in-flight cap: %d attempts out at once)",
		report.Plural(l.capHits, "request"), l.inflightCap())
}

func (l *loop) lateText() string {
	return fmt.Sprintf("%d of %s started more than %v after their intended time (worst %v); "+
		"their latency still counts from the intended time", l.late, report.Plural(l.started, "request"), l.cfg.Late,
		l.maxLate.Round(time.Microsecond))
}
