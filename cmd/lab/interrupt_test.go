package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
)

// A lab run stopped by Ctrl-C reports the time it actually ran (duration_s),
// marks the run interrupted, names the settings that never ran, and exits
// 130 - not 0 with the lab's full duration, as if it had completed.
func TestRunInterruptedReportsTimeRun(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: starts real processes (-short)")
	}
	rep, errText := interruptRun(t, false)
	if !rep.Interrupted || rep.DurationS <= 0 || rep.DurationS >= 30 || len(rep.Runs) != 1 ||
		!rep.Runs[0].Interrupted || rep.Runs[0].DurationS != rep.DurationS || rep.Runs[0].Requests == 0 ||
		len(rep.NotRun) != 1 || rep.NotRun[0] != "round-robin" {
		t.Fatalf("interrupted report: interrupted %v, duration_s %v, not_run %v, runs %+v", rep.Interrupted, rep.DurationS, rep.NotRun, rep.Runs)
	}
	// about 100 requests a second for the time it ran; the band is wide because
	// a loaded machine starts requests late, but the lab's 30 s would give ~10/s
	if perS := float64(rep.Runs[0].Requests) / rep.DurationS; perS < 30 || perS > 170 {
		t.Errorf("%d requests in %gs: the duration is not the time that ran", rep.Runs[0].Requests, rep.DurationS)
	}
	if !strings.Contains(errText, "lab: run tiny: interrupted after") {
		t.Errorf("stderr does not say the run was interrupted:\n%s", errText)
	}
}

// Ctrl-C in a terminal signals the whole foreground process group, not lab
// alone. The lab's processes live in groups of their own, so they are still
// there when lab reads their counters: every server has its share and no
// attempt failed, as when lab alone is sent SIGINT. (They used to die with
// the terminal's signal: every share 0.0% and spurious 5xx.)
func TestRunInterruptedByTerminalKeepsItsServers(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIPPED: starts real processes (-short)")
	}
	rep, errText := interruptRun(t, true)
	if len(rep.Runs) != 1 || rep.Runs[0].Requests == 0 {
		t.Fatalf("interrupted report: runs %+v\nstderr:\n%s", rep.Runs, errText)
	}
	run := rep.Runs[0]
	if len(run.Servers) != 2 {
		t.Fatalf("servers %+v, want 2", run.Servers)
	}
	for _, s := range run.Servers {
		if s.Share < 0.3 || s.Completed == 0 {
			t.Errorf("server %s: share %.3f, %d completed: its counters were lost", s.Name, s.Share, s.Completed)
		}
	}
	if run.Errors != 0 || run.Rejected != 0 || run.Failed != 0 {
		t.Errorf("%d errors, %d rejected, %d failed requests after the terminal's Ctrl-C, want none\nstderr:\n%s",
			run.Errors, run.Rejected, run.Failed, errText)
	}
}

// interruptRun starts a two-setting live run of a tiny lab, lets its first
// setting run 3 s and sends SIGINT: to lab alone, or (group) to the whole
// process group lab was started in, as a terminal's Ctrl-C does. It checks
// the exit status 130 and returns the JSON report and lab's stderr.
func interruptRun(t *testing.T, group bool) (report.Report, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.yaml")
	if err := os.WriteFile(path, []byte("name: tiny\nduration: 30s\nclients: {rate: 100, work: {mean: 5ms}}\nservers: [{count: 2}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(labBin, "run", path, "--compare", "p2c,round-robin", "--dashboard", "", "--json")
	// lab leads a process group of its own, the test's stand-in for a
	// terminal's foreground job
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// only if the test fails before its wait: lab's group, and its children
	// with lab (Pdeathsig)
	defer syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	started := make(chan struct{})
	var errText bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			errText.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "setting p2c (1 of 2)") {
				once = true
				close(started)
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case <-started:
	case <-time.After(60 * time.Second):
		t.Fatal("lab run did not start its first setting within 60 s")
	}
	time.Sleep(3 * time.Second) // the fleet starts, then some traffic
	pid := cmd.Process.Pid
	if group {
		pid = -pid
	}
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	<-read // stderr to its end, before Wait closes the pipe
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130; stderr:\n%s", err, errText.String())
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	return rep, errText.String()
}
