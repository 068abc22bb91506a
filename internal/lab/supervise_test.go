//go:build linux

package lab

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// childPID is the pid of this test's child process started as `lab ROLE
// ... --name NAME ...` (0 if none).
func childPID(role, name string) int {
	for _, pid := range childrenOf(os.Getpid()) {
		raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(raw), "\x00"), "\x00")
		if len(args) > 1 && args[1] == role && slices.Contains(args, "--name") && args[slices.Index(args, "--name")+1] == name {
			return pid
		}
	}
	return 0
}

func logHas(log []report.LogLine, text string) bool {
	return slices.ContainsFunc(log, func(l report.LogLine) bool { return strings.Contains(l.Text, text) })
}

func hasBadge(s dash.ServerView, kind string) bool {
	return slices.ContainsFunc(s.Badges, func(b dash.Badge) bool { return b.Kind == kind })
}

// lab up notices a backend killed from outside (SIGKILL): an event, the
// EXITED badge on its card, and it stays down (--restart never, the
// default); and a balancer killed the same way is marked too.
func TestUpNoticesADeadProcess(t *testing.T) {
	addr := startUp(t, smallLab(t, "p2c", 3600))
	waitSnapshot(t, addr, 10*time.Second, "readings", func(s dash.Snapshot) bool { return len(s.Servers) == 3 })
	for _, p := range [][2]string{{"backend", "s2"}, {"lb", "lb1"}} {
		pid := childPID(p[0], p[1])
		if pid == 0 {
			t.Fatalf("no %s %s process", p[0], p[1])
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	s := waitSnapshot(t, addr, 10*time.Second, "the deaths noticed", func(s dash.Snapshot) bool {
		return len(s.Servers) == 3 && s.Servers[1].Exited != "" && len(s.Balancers) == 1 && s.Balancers[0].Exited != ""
	})
	if !hasBadge(s.Servers[1], "exited") || hasBadge(s.Servers[0], "exited") {
		t.Errorf("badges: s1 %+v, s2 %+v", s.Servers[0].Badges, s.Servers[1].Badges)
	}
	for _, want := range []string{"backend s2 exited unexpectedly (signal: killed)", "lb lb1 exited unexpectedly (signal: killed)"} {
		if !logHas(s.Log, want) {
			t.Errorf("no %q in the event log: %+v", want, s.Log)
		}
	}
	time.Sleep(2 * time.Second) // never: nothing restarts it
	if childPID("backend", "s2") != 0 {
		t.Error("s2 was restarted under --restart never")
	}
}

// With --restart on-failure a killed backend is started again on its
// ports: its card loses the EXITED badge and it serves again.
func TestUpRestartsOnFailure(t *testing.T) {
	addr := startUp(t, smallLab(t, "round-robin", 3600), func(o *UpOptions) { o.Restart = proc.RestartOnFailure })
	before := waitSnapshot(t, addr, 10*time.Second, "readings", func(s dash.Snapshot) bool { return len(s.Servers) == 3 && s.Servers[1].Backend != nil })
	pid := childPID("backend", "s2")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	s := waitSnapshot(t, addr, 15*time.Second, "s2 restarted", func(s dash.Snapshot) bool {
		return logHas(s.Log, "backend s2 restarted") && len(s.Servers) == 3 && s.Servers[1].Exited == "" &&
			s.Servers[1].Backend != nil && s.Servers[1].Backend.Counters.Arrived > 0 && s.Servers[1].Error == ""
	})
	if np := childPID("backend", "s2"); np == 0 || np == pid {
		t.Errorf("s2's pid %d after the restart, %d before", np, pid)
	}
	if s.Servers[1].Backend.Addr != before.Servers[1].Backend.Addr {
		t.Errorf("s2 came back on %s, not its address %s", s.Servers[1].Backend.Addr, before.Servers[1].Backend.Addr)
	}
	if !logHas(s.Log, "backend s2 exited unexpectedly (signal: killed); restarting it in 1s") {
		t.Errorf("event log: %+v", s.Log)
	}
}

// lab run with a backend killed from outside mid-run: its share is what
// the balancer sent it (its own counters died with it), not 0, and the run's
// log says so.
func TestRunFiguresOfAKilledBackend(t *testing.T) {
	ctx := ctxFor(t, 90*time.Second)
	lab := smallLab(t, "round-robin", 4)
	killed := make(chan int, 1)
	go func() {
		time.Sleep(2 * time.Second)
		pid := childPID("backend", "s2")
		if pid != 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		killed <- pid
	}()
	rep, err := Run(ctx, lab, []labfile.Setting{{Name: "rr"}}, RunOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	if pid := <-killed; pid == 0 {
		t.Fatal("s2 was not found to kill")
	}
	run := rep.Runs[0]
	if len(run.Servers) != 3 || run.Servers[1].Sent == 0 || run.Servers[1].Share < 0.1 {
		t.Fatalf("servers after s2 was killed: %+v", run.Servers)
	}
	for _, want := range []string{"backend s2 exited unexpectedly (signal: killed)", "s2: its own counters are lost"} {
		if !logHas(run.Log, want) {
			t.Errorf("no %q in the run's log: %+v", want, run.Log)
		}
	}
}

// lab run's Inject sees the setting's processes while its traffic runs and
// is waited for; under Restart on-failure a backend it kills comes back on
// its address with a new pid, and the run's log says so.
func TestRunInjectAndRestart(t *testing.T) {
	ctx := ctxFor(t, 90*time.Second)
	lab := smallLab(t, "round-robin", 4)
	opts := testOptions(t)
	opts.Restart = proc.RestartOnFailure
	var before, after []Process
	returned := false
	inject := func(ctx context.Context, procs func() []Process) {
		before = procs()
		for _, p := range before {
			if p.Name == "s2" {
				_ = p.Signal(syscall.SIGKILL)
			}
		}
		time.Sleep(2500 * time.Millisecond) // the restart comes 1 s after the death
		after = procs()
		<-ctx.Done()
		returned = true
	}
	rep, err := Run(ctx, lab, []labfile.Setting{{Name: "rr"}}, RunOptions{Options: opts, Inject: inject})
	if err != nil {
		t.Fatal(err)
	}
	if !returned {
		t.Error("Run returned before Inject did")
	}
	names := func(ps []Process) map[string]int {
		m := map[string]int{}
		for _, p := range ps {
			m[p.Role+" "+p.Name] = p.PID
		}
		return m
	}
	b, a := names(before), names(after)
	for _, want := range []string{"lb lb1", "backend s1", "backend s2", "backend s3", "loadgen loadgen"} {
		if b[want] == 0 {
			t.Errorf("Inject did not see %s: %v", want, before)
		}
	}
	if a["backend s2"] == 0 || a["backend s2"] == b["backend s2"] {
		t.Errorf("s2's pid %d after the kill, %d before: not restarted", a["backend s2"], b["backend s2"])
	}
	if !logHas(rep.Runs[0].Log, "backend s2 restarted") {
		t.Errorf("the run's log: %+v", rep.Runs[0].Log)
	}
}
