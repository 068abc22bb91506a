package torture

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/testbin"
)

var labBin string

func TestMain(m *testing.M) { os.Exit(testbin.Run(m, "github.com/lblab/lblab/cmd/lab", &labBin)) }

func launcher(role string, args []string) *exec.Cmd {
	return exec.Command(labBin, append([]string{role}, args...)...)
}

func liveConfig(t *testing.T) LiveConfig {
	return LiveConfig{Launch: launcher, Dir: t.TempDir(), ShrinkRuns: 1}
}

// stoppedBalancer is issue 19's reproduction in small: a balancer frozen
// (SIGSTOP) for 2 s under load while busy processes starve the machine, so
// goroutines run late after it, with no timeout anywhere to end a request
// whose answer is lost.
func stoppedBalancer(seed uint64) Map {
	return Map{{"name", "stopped-lb"}, {"seed", seed}, {"duration", 5 * time.Second},
		{"clients", Map{{"rate", 300.0}, {"work", Map{{"mean", 4 * time.Millisecond}}}}},
		{"servers", List{Map{{"count", 3}, {"workers", 2}}}},
		{faultsKey, List{Map{{"at", 500 * time.Millisecond}, {"fault", "starve"}, {"for", 4 * time.Second}}, Map{{"at", time.Second}, {"fault", "stop"}, {"target", "lb1"}, {"for", 2 * time.Second}}}}}
}

// Without the turns fix (an answer held back and never sent when the
// reading goroutine runs past the 10 ms guard) one of the three runs or more
// loses answers: checked on the branch without it (seed 2 lost 7, another
// time seed 3 lost 4), and passing with the fix applied.
func TestLiveStoppedBalancerLosesNoAnswer(t *testing.T) {
	cfg := liveConfig(t)
	base := measure()
	for seed := uint64(1); seed <= 3; seed++ {
		o := runLive(context.Background(), cfg, stoppedBalancer(seed), base)
		t.Logf("seed %d: %v %s: %d requests, faults %v", seed, o.Verdict, o.Detail, o.Requests, o.Faults)
		if o.Failed() {
			t.Errorf("seed %d: %s: %s", seed, o.Verdict, o.Detail)
		}
	}
}

// A live lab is a pure function of its seed, valid, small, and its faults
// are over before the end of the traffic.
func TestDrawLive(t *testing.T) {
	a, b := DrawLive(9), DrawLive(9)
	if !bytes.Equal(a.Tree.YAML(), b.Tree.YAML()) {
		t.Fatal("seed 9 drew two different live labs")
	}
	kinds := map[string]int{}
	for seed := uint64(1); seed <= 300; seed++ {
		d := DrawLive(seed)
		lab, err := labyaml.Parse("x", d.Tree.YAML())
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, d.Tree.YAML())
		}
		if n := len(lab.ExpandServers()); n > 4 || lab.Balancers.Count > 2 || lab.Duration > liveLimits.maxDuration {
			t.Errorf("seed %d: %d servers, %d balancers, %v: not a small lab", seed, n, lab.Balancers.Count, lab.Duration)
		}
		faults, _, err := faultsOf(d.Tree)
		if err != nil || len(faults) == 0 {
			t.Fatalf("seed %d: faults %v, %v", seed, faults, err)
		}
		for _, f := range faults {
			kinds[f.Kind]++
			if f.Kind == faultKill && f.Target == "loadgen" {
				t.Errorf("seed %d kills the loadgen", seed)
			}
		}
	}
	for _, k := range faultKinds {
		if kinds[k] < 50 {
			t.Errorf("only %d %s faults in 300 live labs: %v", kinds[k], k, kinds)
		}
	}
}

// A fault the shrinker left without what it needs, or one that outlasts
// the lab, is no lab: the shrinker skips it.
func TestFaultsOfRefusesBrokenFaults(t *testing.T) {
	for _, f := range []Map{
		{{"at", time.Second}, {"fault", "stop"}},                                             // no target
		{{"at", time.Second}, {"fault", "stop"}, {"target", "lb1"}},                          // no for
		{{"at", time.Second}, {"fault", "freeze"}, {"target", "lb1"}},                        // unknown
		{{"at", time.Second}, {"fault", "starve"}, {"for", 5 * time.Second}},                 // past the end
		{{"at", time.Second}, {"fault", "kill"}, {"target", "s1"}, {"for", 0 * time.Second}}, // fine
	} {
		tree := Map{{"duration", 3 * time.Second}, {faultsKey, List{f}}}
		_, _, err := faultsOf(tree)
		if ok := f.Get("fault") == "kill"; (err == nil) != ok {
			t.Errorf("%v: err %v", f, err)
		}
	}
}

// The drain check counts the requests that ended timed-out at the drain
// limit, and only those; a request ended twice is an accounting failure.
func TestReadRequests(t *testing.T) {
	dir := t.TempDir()
	write := func(rows ...string) string {
		p := filepath.Join(dir, "r.csv")
		text := "run,seq,client,key,intended_ms,sent_ms,latency_ms,attempts,outcome,server\n" + strings.Join(rows, "\n") + "\n"
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// a 2 s lab: the drain limit is at 12,000 ms
	p := write("p2c,0,1,1,100,100,30,1,succeeded,s1",
		"p2c,1,1,1,1500,1500,10500,1,timed-out,",   // ends at 12,000: cut off
		"p2c,2,1,1,1900,1900,400,1,timed-out,",     // its own deadline
		"p2c,3,1,1,1999,1999,10001.5,1,timed-out,") // cut off
	if cut, detail := readRequests(p, 4, 2*time.Second); cut != 2 || detail != "" {
		t.Errorf("cut %d, %q; want 2 cut off", cut, detail)
	}
	if _, detail := readRequests(p, 5, 2*time.Second); !strings.Contains(detail, "4 requests ended") {
		t.Errorf("a missing request: %q", detail)
	}
	p = write("p2c,0,1,1,100,100,30,1,succeeded,s1", "p2c,0,1,1,100,100,30,1,failed,s1")
	if _, detail := readRequests(p, 2, 2*time.Second); !strings.Contains(detail, "ended twice") {
		t.Errorf("a request ended twice: %q", detail)
	}
}

// A child still there after the lab is found (and killed); a goroutine
// left running is a leak.
func TestLeftBehindAndLeaks(t *testing.T) {
	if left := childrenLeft(300 * time.Millisecond); left != "" {
		t.Fatalf("children before the test: %s", left)
	}
	base := measure()
	c := exec.Command("sleep", "60")
	if err := c.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	done := make(chan struct{})
	go func() { _ = c.Wait(); close(done) }()
	if left := childrenLeft(300 * time.Millisecond); !strings.Contains(left, "sleep 60") {
		t.Errorf("a child left behind was not found: %q", left)
	}
	<-done // childrenLeft killed it
	stop := make(chan struct{})
	go func() { <-stop }()
	if leak := settle(base, 300*time.Millisecond); !strings.Contains(leak, "goroutines") {
		t.Errorf("a leaked goroutine was not found: %q", leak)
	}
	close(stop)
	if leak := settle(base, 300*time.Millisecond); leak != "" {
		t.Errorf("after the goroutine ended: %s", leak)
	}
}

// A short live torture: two labs on real processes, their faults
// injected, every check passed, and the counts printed.
func TestLiveTortureShort(t *testing.T) {
	cfg := liveConfig(t)
	cfg.First, cfg.Runs = 2, 2 // both kill processes
	s := RunLive(context.Background(), cfg)
	for _, f := range s.Failures {
		t.Errorf("seed %d: %s: %s", f.Drawn.Seed, f.Outcome.Verdict, f.Outcome.Detail)
	}
	if s.Labs != 2 || s.Requests < 500 || s.Faults[faultKill] == 0 {
		t.Errorf("%d labs, %d requests, faults %v", s.Labs, s.Requests, s.Faults)
	}
	var out bytes.Buffer
	s.Write(&out, cfg)
	if !strings.HasPrefix(out.String(), "torture --live: 2 labs, ") {
		t.Errorf("summary:\n%s", out.String())
	}
}

// Faults aim at the processes a lab starts with: a named server by its
// name.
func TestFaultTargetsAreTheLabsProcesses(t *testing.T) {
	named := 0
	for seed := uint64(1); seed <= 400; seed++ {
		d := DrawLive(seed)
		lab, err := labyaml.Parse("x", d.Tree.YAML())
		if err != nil {
			t.Fatal(err)
		}
		procs := map[string]bool{"loadgen": true}
		for _, s := range lab.ExpandServers() {
			procs[s.Name] = true
			if !strings.HasPrefix(s.Name, "s") {
				named++
			}
		}
		if lab.Clients.Algorithm == "" {
			for i := range lab.Balancers.Count {
				procs["lb"+strconv.Itoa(i+1)] = true
			}
		}
		faults, _, _ := faultsOf(d.Tree)
		for _, f := range faults {
			if f.Target != "" && !procs[f.Target] {
				t.Errorf("seed %d: %s aims at %s, not a process of the lab %v", seed, f.Kind, f.Target, procs)
			}
		}
	}
	if named == 0 {
		t.Error("no named server in 400 live labs")
	}
}
