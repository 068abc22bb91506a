package torture

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	livelab "github.com/lblab/lblab/internal/lab"
	labproc "github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
)

// LiveConfig is one lab torture --live run: labs drawn from seeds First,
// First+1, ... within liveLimits, each run on real processes with its
// process faults, one after the other.
type LiveConfig struct {
	First uint64
	Runs  int
	// MaxDuration caps each lab's duration (0 = the generator's, at most
	// 4 s); events and faults past the cap are dropped.
	MaxDuration time.Duration
	Launch      labproc.Launcher // starts backend, lb, loadgen and spin processes
	// Shrink is the number of failures shrunk (the first ones) and
	// ShrinkRuns the live runs each shrink may spend.
	Shrink, ShrinkRuns int
	Dir                string    // where each failure's files are kept
	Progress           io.Writer // one line per lab (nil = quiet)
}

// liveDrain is the loadgen's drain limit in a live torture: how long after
// the traffic it waits for the requests still out. Every fault is over
// before the traffic ends, so a request still out this long after is lost
// unless the lab itself keeps requests that long (see excused).
const liveDrain = 10 * time.Second

// Verdicts of a live lab (after the simulator's).
const (
	LiveError  Verdict = iota + Uncosted + 1 // lab run failed: a process did not start, the loadgen failed
	Accounting                               // a request not ended exactly once
	Lost                                     // requests ended only by the drain limit
	LeftBehind                               // a process outlived its lab
	Leak                                     // lab's goroutines or descriptors did not come back to their baseline
)

var liveVerdicts = []string{"live run failed", "accounting", "lost answers", "process left behind", "goroutine or fd leak"}

// LiveOutcome is one live lab's run.
type LiveOutcome struct {
	Outcome
	Faults   map[string]int // faults applied, by kind
	Missed   int            // faults whose target was gone (killed, not restarted)
	Excused  int            // drain cut-offs the lab itself explains
	Dir      string         // the run's files (logs, requests), kept for a failure
	Duration time.Duration
}

// LiveSummary is what a live torture found and covered.
type LiveSummary struct {
	Labs     int
	Requests uint64
	Faults   map[string]int
	Missed   int
	Excused  int
	Failures []LiveFailure
	Features map[string]int
	Actions  map[string]int
	Elapsed  time.Duration
}

// LiveFailure is a live lab that failed, with its shrunk form when shrunk.
type LiveFailure struct {
	Drawn   Drawn
	Outcome LiveOutcome
	Shrunk  Map
	Runs    int
	File    string
}

// DrawLive generates the live lab of seed: the simulator's generator
// within liveLimits, and its process faults.
func DrawLive(seed uint64) Drawn {
	d := draw(seed, "torture-live", liveLimits)
	drawFaults(seed, &d)
	return d
}

// baseline is lab's own goroutines and descriptors before the first lab.
type baseline struct{ goroutines, fds int }

func measure() baseline { return baseline{runtime.NumGoroutine(), countFDs()} }

func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// RunLive runs cfg.Runs live labs one after the other, shrinks the first
// failures and returns what it found. It stops early when ctx ends.
func RunLive(ctx context.Context, cfg LiveConfig) *LiveSummary {
	start := time.Now()
	s := &LiveSummary{Faults: map[string]int{}, Features: map[string]int{}, Actions: map[string]int{}}
	base := measure()
	for i := range cfg.Runs {
		if ctx.Err() != nil {
			break
		}
		d := DrawLive(cfg.First + uint64(i))
		d.Tree = capDuration(d.Tree, cfg.MaxDuration)
		o := runLive(ctx, cfg, d.Tree, base)
		if ctx.Err() != nil && o.Failed() {
			break // interrupted: not a finding
		}
		s.Labs++
		s.Requests += o.Requests
		s.Missed += o.Missed
		s.Excused += o.Excused
		for k, n := range o.Faults {
			s.Faults[k] += n
		}
		for _, f := range d.Features {
			s.Features[f]++
		}
		for _, l := range o.Log {
			if k := kind(l); k != "" && k != "ejected" && k != "opened" {
				s.Actions[k]++
			}
		}
		if cfg.Progress != nil {
			verdict := "ok"
			if o.Failed() {
				verdict = "FAIL " + o.Verdict.String()
			}
			fmt.Fprintf(cfg.Progress, "torture --live: lab %d of %d, seed %d, %v: %d requests, faults %s: %s\n",
				i+1, cfg.Runs, d.Seed, o.Duration, o.Requests, faultList(d.Tree), verdict)
		}
		if o.Failed() {
			s.Failures = append(s.Failures, LiveFailure{Drawn: d, Outcome: o})
		}
	}
	for i := range s.Failures {
		if i >= cfg.Shrink || ctx.Err() != nil {
			break
		}
		f := &s.Failures[i]
		sig := f.Outcome.Signature()
		f.Shrunk, f.Runs = shrink(f.Drawn.Tree, cfg.ShrinkRuns, func(cand Map) (bool, bool) {
			if _, err := labyaml.Parse("x", cand.YAML()); err != nil {
				return false, false
			}
			if _, _, err := faultsOf(cand); err != nil {
				return false, false
			}
			o := runLive(ctx, cfg, cand, base)
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "  shrinking seed %d: %s, faults %s: %s\n", f.Drawn.Seed, size(cand), faultList(cand), o.Verdict)
			}
			return true, o.Failed() && o.Signature() == sig
		})
		if cfg.Dir != "" {
			f.File = filepath.Join(cfg.Dir, labName(f.Drawn.Seed)+"-live.yaml")
			if err := os.WriteFile(f.File, f.Shrunk.YAML(), 0o644); err != nil {
				f.File = ""
			}
		}
	}
	s.Elapsed = time.Since(start)
	return s
}

// capDuration shortens a lab to at most d (0: no cap), dropping the
// events and faults that no longer fit.
func capDuration(tree Map, d time.Duration) Map {
	if cur, _ := tree.Get("duration").(time.Duration); d <= 0 || cur <= d {
		return tree
	}
	tree = shorter(tree, d)
	if list, ok := tree.Get(faultsKey).(List); ok {
		var keep List
		for _, e := range list {
			at, _ := e.(Map).Get("at").(time.Duration)
			f, _ := e.(Map).Get("for").(time.Duration)
			if at+f < d {
				keep = append(keep, e)
			}
		}
		tree = with(tree, faultsKey, keep)
	}
	return tree
}

func faultList(tree Map) string {
	faults, _, err := faultsOf(tree)
	if err != nil {
		return err.Error()
	}
	parts := make([]string, len(faults))
	for i, f := range faults {
		parts[i] = f.String()
	}
	if len(parts) == 0 {
		return "none"
	}
	if r, _ := tree.Get(restartKey).(bool); r {
		parts = append(parts, "restart on-failure")
	}
	return strings.Join(parts, ", ")
}

// runLive runs one lab tree on real processes with its faults and checks
// the run: every request ended exactly once, none only by the drain limit
// (unless the lab itself keeps requests that long), no process left
// behind, lab's goroutines and descriptors back to base.
func runLive(ctx context.Context, cfg LiveConfig, tree Map, base baseline) (out LiveOutcome) {
	start := time.Now()
	defer func() { out.Duration = time.Since(start).Round(100 * time.Millisecond) }()
	name := labName(tree.Get("seed").(uint64))
	lab, err := labyaml.Parse(name, tree.YAML())
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: Invalid, Detail: err.Error()}}
	}
	faults, restart, err := faultsOf(tree)
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: Invalid, Detail: err.Error()}}
	}
	setting := settingOf(lab)
	one, err := lab.WithSetting(setting)
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: Invalid, Detail: err.Error()}}
	}
	tail, err := simTail(one)
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: Violation, Detail: "the simulator: " + err.Error()}}
	}
	dir, err := os.MkdirTemp(cfg.Dir, name+"-live-")
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: LiveError, Detail: err.Error()}}
	}
	out.Dir = dir
	defer func() {
		if !out.Failed() {
			os.RemoveAll(dir)
			out.Dir = ""
		} else {
			out.Detail += "\n(processes' logs and requests in " + dir + ")"
		}
	}()
	logs, err := os.Create(filepath.Join(dir, "processes.log"))
	if err != nil {
		return LiveOutcome{Outcome: Outcome{Verdict: LiveError, Detail: err.Error()}}
	}
	csvPath := filepath.Join(dir, "requests.csv")
	in := &injector{faults: faults, injected: map[string]int{},
		spin: func(d time.Duration) *exec.Cmd { return cfg.Launch("spin", []string{"--for", d.String()}) }}
	opts := livelab.RunOptions{
		Options:     livelab.Options{Launch: cfg.Launch, Logs: logs, Log: zap.NewNop(), Dir: dir, MaxProcesses: livelab.DefaultMaxProcesses},
		LoadgenArgs: []string{"--out", csvPath, "--drain", liveDrain.String()},
		Inject:      in.run,
	}
	if restart {
		opts.Restart = labproc.RestartOnFailure
	}
	rctx, cancel := context.WithTimeout(ctx, lab.Duration+liveDrain+time.Minute)
	rep, err := livelab.Run(rctx, one, []labfile.Setting{setting}, opts)
	cancel()
	logs.Close()
	out.Faults, out.Missed = in.injected, in.missed
	// The checks that hold whatever the run came to: no process left
	// behind, lab itself back to where it was.
	if left := childrenLeft(exitGrace); left != "" {
		return LiveOutcome{Outcome: Outcome{Verdict: LeftBehind, Detail: left}, Faults: out.Faults, Missed: out.Missed, Dir: dir}
	}
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		out.Outcome = Outcome{Verdict: LiveError, Detail: err.Error()}
		return out
	}
	if leak := settle(base, settleGrace); leak != "" {
		out.Outcome = Outcome{Verdict: Leak, Detail: leak}
		return out
	}
	run := rep.Runs[0]
	out.Requests = run.Requests
	for _, l := range run.Log {
		out.Log = append(out.Log, l.Text)
	}
	if detail := accounting(run); detail != "" {
		out.Outcome.Verdict, out.Outcome.Detail = Accounting, detail
		return out
	}
	cut, detail := readRequests(csvPath, run.Requests, lab.Duration)
	if detail != "" {
		out.Outcome.Verdict, out.Outcome.Detail = Accounting, detail
		return out
	}
	if cut > 0 {
		if excused(tail, faults) {
			out.Excused = cut
			return out
		}
		out.Outcome.Verdict = Lost
		out.Outcome.Detail = fmt.Sprintf("%d requests were never answered: they ended timed-out only at the drain limit (%v after the traffic), "+
			"with every fault over by the end of the traffic; in the simulator the last request of this lab ended %v after it",
			cut, liveDrain, tail.Round(time.Millisecond))
	}
	return out
}

// settingOf is the setting a drawn lab runs, live or in the simulator:
// the lab as written, or one of its compare settings, by seed.
func settingOf(lab *labfile.Lab) labfile.Setting {
	i := int(lab.Seed % uint64(len(lab.Compare)+1))
	if i == 0 {
		name := lab.Balancers.Algorithm
		if lab.Clients.Algorithm != "" {
			name = lab.Clients.Algorithm
		}
		return labfile.Setting{Name: name}
	}
	return lab.Compare[i-1]
}

// simTail runs the lab in the simulator and returns how long after the
// end of the traffic its last request ended: the time the lab itself
// keeps requests out (a slowed server's queue, long timeouts).
func simTail(lab *labfile.Lab) (time.Duration, error) {
	var last tailLog
	_, err := sim.Run(lab, sim.Options{Logs: func(string) report.RequestLog { return &last }, MaxPending: 200_000})
	var overflow *sim.OverflowError
	if errors.As(err, &overflow) {
		return time.Hour, nil // work piles up without bound: anything may be out at the end
	}
	if err != nil {
		return 0, err
	}
	return max(0, last.end.Duration()-lab.Duration), nil
}

// tailLog keeps the latest end of a request.
type tailLog struct{ end clock.Instant }

func (t *tailLog) RequestStarted(report.RequestRecord)  {}
func (t *tailLog) AttemptAnswered(report.AttemptRecord) {}
func (t *tailLog) RunEnded(clock.Instant)               {}
func (t *tailLog) RequestEnded(r report.RequestRecord)  { t.end = max(t.end, r.End) }

// excused: requests cut off at the drain limit are no finding when the lab
// itself keeps requests out about that long: its last request in the
// simulator, plus what the faults held processes up for, plus a second
// of a loaded machine's slack, reaches the drain limit.
func excused(tail time.Duration, faults []fault) bool {
	return tail+faultTime(faults)+time.Second >= liveDrain
}

// accounting checks the loadgen's report: every request has one outcome.
func accounting(run report.Run) string {
	o := run.Outcomes
	if sum := o.Succeeded + o.Failed + o.Rejected + o.TimedOut; sum != run.Requests {
		return fmt.Sprintf("outcomes add up to %d (succeeded %d, failed %d, rejected %d, timed out %d), not the %d requests",
			sum, o.Succeeded, o.Failed, o.Rejected, o.TimedOut, run.Requests)
	}
	if run.Succeeded+run.Failed != run.Requests {
		return fmt.Sprintf("succeeded %d + failed %d is not the %d requests", run.Succeeded, run.Failed, run.Requests)
	}
	return ""
}

// readRequests checks the per-request CSV: one row per request, none
// twice, as many as the report counts; it returns how many ended timed-out
// at the drain limit (their end, intended + latency, at the traffic's end
// plus the drain).
func readRequests(path string, requests uint64, duration time.Duration) (int, string) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err.Error()
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return 0, fmt.Sprintf("the requests CSV does not read: %v", err)
	}
	col := map[string]int{}
	for i, c := range rows[0] {
		col[c] = i
	}
	seen := map[string]bool{}
	cut := 0
	limit := float64((duration + liveDrain - 5*time.Millisecond) / time.Millisecond)
	for _, r := range rows[1:] {
		seq := r[col["seq"]]
		if seen[seq] {
			return 0, fmt.Sprintf("request %s ended twice", seq)
		}
		seen[seq] = true
		intended, _ := strconv.ParseFloat(r[col["intended_ms"]], 64)
		latency, _ := strconv.ParseFloat(r[col["latency_ms"]], 64)
		if r[col["outcome"]] == "timed-out" && intended+latency >= limit {
			cut++
		}
	}
	if uint64(len(seen)) != requests {
		return 0, fmt.Sprintf("%d requests ended in the requests CSV, the report counts %d", len(seen), requests)
	}
	return cut, ""
}

// Grace periods after a lab: for its processes to be gone (a restart
// racing the end of the run starts one late and stops it at once), and for
// lab's goroutines and descriptors to come back.
const (
	exitGrace   = 10 * time.Second
	settleGrace = 5 * time.Second
)

// childrenLeft waits up to grace for lab's children to be gone and
// describes those still there, which it then kills: they are ours.
func childrenLeft(grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for {
		kids := children()
		if len(kids) == 0 {
			return ""
		}
		if time.Now().After(deadline) {
			var parts []string
			for _, k := range kids {
				parts = append(parts, fmt.Sprintf("pid %d (%s)", k.pid, k.cmd))
				_ = syscall.Kill(k.pid, syscall.SIGKILL)
			}
			return fmt.Sprintf("%d processes outlived the lab by %v: %s", len(kids), grace, strings.Join(parts, ", "))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type child struct {
	pid int
	cmd string
}

// children are the processes whose parent is lab (zombies too).
func children() []child {
	self := os.Getpid()
	ents, _ := os.ReadDir("/proc")
	var out []child
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so split after ')'
		s := string(stat)
		paren := strings.LastIndexByte(s, ')')
		if paren < 0 {
			continue
		}
		fields := strings.Fields(s[paren+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == self {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			out = append(out, child{pid: pid, cmd: strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))})
		}
	}
	return out
}

// settle waits up to grace for lab's goroutines and descriptors to come
// back to base, and describes what is left over when they do not.
func settle(base baseline, grace time.Duration) string {
	deadline := time.Now().Add(grace)
	for {
		now := measure()
		if now.goroutines <= base.goroutines && now.fds <= base.fds {
			return ""
		}
		if time.Now().After(deadline) {
			return fmt.Sprintf("lab has %d goroutines and %d descriptors %v after the lab, %d and %d before the first one",
				now.goroutines, now.fds, grace, base.goroutines, base.fds)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Write prints the live summary: the counts, then each failure with the
// command that reproduces it and its shrunk lab.
func (s *LiveSummary) Write(w io.Writer, cfg LiveConfig) {
	faults := 0
	for _, n := range s.Faults {
		faults += n
	}
	fmt.Fprintf(w, "torture --live: %d labs, %d requests, %d faults injected, %d failures in %.0f s (seeds %d..%d)\n",
		s.Labs, s.Requests, faults, len(s.Failures), s.Elapsed.Seconds(), cfg.First, cfg.First+uint64(max(s.Labs, 1))-1)
	fmt.Fprintf(w, "  faults: %s; %d aimed at a process already gone; drain cut-offs the labs explain: %d\n",
		counts(s.Faults, nil), s.Missed, s.Excused)
	fmt.Fprintf(w, "  chaos applied: %s\n", counts(s.Actions, nil))
	fmt.Fprintf(w, "  labs with each feature: %s\n", counts(s.Features, func(k string) bool {
		for _, a := range chaosKinds {
			if k == string(a) {
				return false
			}
		}
		return true
	}))
	for _, f := range s.Failures {
		seed := f.Drawn.Seed
		fmt.Fprintf(w, "\nFAIL seed %d: %s\n  %s\n", seed, f.Outcome.Verdict, indent(f.Outcome.Detail))
		fmt.Fprintf(w, "  faults: %s\n", faultList(f.Drawn.Tree))
		fmt.Fprintf(w, "  reproduce: lab torture --live --seed %d --runs 1\n", seed)
		if f.Shrunk == nil {
			continue
		}
		fmt.Fprintf(w, "  shrunk in %d live runs to %s, faults %s (from %s)", f.Runs, size(f.Shrunk), faultList(f.Shrunk), size(f.Drawn.Tree))
		if f.File != "" {
			fmt.Fprintf(w, ": %s (lab run takes it; x-faults are the process faults)", f.File)
		}
		fmt.Fprintf(w, "\n---\n%s---\n", f.Shrunk.YAML())
	}
}
