package lab

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/testbin"
)

// The end-to-end tests build the lab binary once and start real backend,
// lb and loadgen processes on 127.0.0.1 through it. Every test is bounded in
// time and stops every process it starts.

var labBin string

func TestMain(m *testing.M) {
	// The token files of the tests' controllers go to a directory of their
	// own, not the user's.
	dir, err := os.MkdirTemp("", "lblab-lab-test-")
	if err == nil {
		os.Setenv("XDG_RUNTIME_DIR", dir)
	}
	code := testbin.Run(m, "github.com/lblab/lblab/cmd/lab", &labBin)
	if err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func testOptions(t *testing.T) Options {
	return Options{
		Launch: func(role string, args []string) *exec.Cmd {
			return exec.Command(labBin, append([]string{role}, args...)...)
		},
		Logs: io.Discard, Log: zap.NewNop(), Dir: t.TempDir(),
	}
}

// smallLab is 3 single-worker servers at about 40% load.
func smallLab(t *testing.T, algorithm string, seconds int) *labfile.Lab {
	t.Helper()
	lab := labfile.Default()
	lab.Name = "e2e"
	for _, kv := range [][2]string{{"servers[0].count", "3"}, {"servers[0].workers", "2"},
		{"clients.rate", "150"}, {"clients.work.mean", "8ms"}, {"balancers.algorithm", algorithm},
		{"duration", (time.Duration(seconds) * time.Second).String()}, {"network.hop", "2ms"}} {
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return lab
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// alive reports whether a process still exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Every request is accounted for exactly once across the loadgen's, the
// balancer's and the backends' counters, and every process is gone after.
func TestAccountingAcrossProcesses(t *testing.T) {
	ctx := ctxFor(t, 60*time.Second)
	lab := smallLab(t, "p2c", 3)
	f, err := startFleet(ctx, lab, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	run, lg := runLoadgen(t, ctx, f)
	o := run.Outcomes
	if run.Requests < 300 || o.Succeeded+o.Failed+o.Rejected+o.TimedOut != run.Requests {
		t.Fatalf("loadgen: %d requests, outcomes %+v", run.Requests, o)
	}
	var lbState state.LB
	if err := admin.Call(ctx, f.lbs[0].Ready.Admin, "GET", "/admin/state", nil, &lbState); err != nil {
		t.Fatal(err)
	}
	var arrived, ended uint64
	for _, b := range f.backends {
		var st state.Backend
		if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			t.Fatal(err)
		}
		c := st.Counters
		arrived += c.Arrived
		ended += c.Completed + c.Errors + c.Rejected + c.Dropped + c.Lost
	}
	if lbState.Picks != run.Attempts || arrived != run.Attempts || ended != arrived {
		t.Errorf("attempts: loadgen %d, lb picks %d, backends received %d and ended %d", run.Attempts, lbState.Picks, arrived, ended)
	}
	pids := []int{lg.Ready.PID}
	for _, p := range f.all() {
		pids = append(pids, p.Ready.PID)
	}
	f.stop()
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("process %d outlived the fleet", pid)
		}
	}
}

// Slowing one backend to quarter speed moves p2c's traffic away from it
// (below half an even share) while round robin keeps sending its share.
func TestSlowBackendP2CVersusRoundRobin(t *testing.T) {
	ctx := ctxFor(t, 90*time.Second)
	lab := smallLab(t, "p2c", 4)
	for _, kv := range [][2]string{{"servers[0].workers", "1"}, {"clients.rate", "250"}} { // 67% load
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	lab.Events = []labfile.Event{{At: 0, Action: "slow", Target: "s1", Speed: 0.25}}
	settings := []labfile.Setting{{Name: "p2c", Algorithm: "p2c"}, {Name: "round-robin", Algorithm: "round-robin"}}
	rep, err := Run(ctx, lab, settings, RunOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	share := func(run string) float64 { return rep.Find(run).Servers[0].Share }
	if s := share("p2c"); s >= 1.0/6 {
		t.Errorf("p2c sent %.3f to the slowed server, want below half an even share (%.3f)", s, 1.0/6)
	}
	if s := share("round-robin"); s < 0.3 || s > 0.37 {
		t.Errorf("round robin sent %.3f to the slowed server, want its even share 1/3", s)
	}
	if rep.Mode != "live" || rep.Find("p2c").Log[0].Text != "slow s1 speed=0.25" {
		t.Errorf("mode %q, log %+v", rep.Mode, rep.Find("p2c").Log)
	}
}

// Killing a backend mid-run gives errors (502s), and the balancer keeps
// serving the rest.
func TestKillMidRun(t *testing.T) {
	ctx := ctxFor(t, 60*time.Second)
	lab := smallLab(t, "round-robin", 4)
	lab.Events = []labfile.Event{{At: time.Second, Action: "kill", Target: "s2"}}
	rep, err := Run(ctx, lab, []labfile.Setting{{Name: "rr"}}, RunOptions{Options: testOptions(t), Series: true})
	if err != nil {
		t.Fatal(err)
	}
	run := rep.Runs[0]
	if run.Errors == 0 {
		t.Fatal("killing a backend under round robin gave no errors")
	}
	var late, lateOK uint64
	for _, b := range run.Series {
		if b.T >= 2 {
			late += b.Offered
			lateOK += b.Succeeded
		}
	}
	if late == 0 || float64(lateOK)/float64(late) < 0.5 {
		t.Errorf("after the kill the balancer should keep serving the others: %d of %d", lateOK, late)
	}
}

// hey against the balancer completes with only 200s.
func TestHeyOnlyOKs(t *testing.T) {
	home, _ := os.UserHomeDir()
	hey := testbin.Tool(t, "hey", "go install github.com/rakyll/hey@v0.1.5", filepath.Join(home, "go", "bin", "hey"))
	ctx := ctxFor(t, 60*time.Second)
	f, err := startFleet(ctx, smallLab(t, "p2c", 5), testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	out, err := exec.CommandContext(ctx, hey, "-z", "2s", "-q", "50", "-c", "4", "http://"+f.lbs[0].Ready.Addr+"/hey").CombinedOutput()
	if err != nil {
		t.Fatalf("hey: %v\n%s", err, out)
	}
	text := string(out)
	i := strings.Index(text, "Status code distribution:")
	if i < 0 || !strings.Contains(text[i:], "[200]") {
		t.Fatalf("no status distribution:\n%s", text)
	}
	for _, line := range strings.Split(strings.TrimSpace(text[i:]), "\n")[1:] {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[200]") {
			t.Errorf("hey saw a non-200: %s", line)
		}
	}
}

// The controller of lab up: a bad drill gets 400 with a JSON reason and
// changes nothing; a good one is applied and logged.
func TestControllerChaos(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	lab := smallLab(t, "p2c", 3600)
	done := make(chan error, 1)
	upCtx, stopUp := context.WithCancel(ctx)
	go func() { done <- Up(upCtx, lab, UpOptions{Options: testOptions(t), Listen: "127.0.0.1:0"}) }()
	defer func() { stopUp(); <-done }()
	addr := waitController(t, ctx)
	resp, err := http.Post("http://"+addr+"/api/chaos", "application/json", strings.NewReader(`{"action":"slow","target":"s1","speed":-2}`))
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if resp.StatusCode != 400 || !strings.Contains(body["error"].(string), "speed") {
		t.Fatalf("bad drill: %d %v", resp.StatusCode, body)
	}
	// A target the lab does not have: named with the servers there are now,
	// not "at 0s" (the drill's place in the probe script).
	ev, _ := labfile.ParseDrill([]string{"kill", "s9"})
	if _, err := control.SendDrill(ctx, addr, ev); err == nil || strings.Contains(err.Error(), "at 0s") ||
		!strings.Contains(err.Error(), `no server named "s9"; servers now: s1, s2, s3, or all`) {
		t.Fatalf("kill s9: %v, want the servers now", err)
	}
	ev, _ = labfile.ParseDrill([]string{"slow", "s1", "speed=0.5"})
	if _, err := control.SendDrill(ctx, addr, ev); err != nil {
		t.Fatal(err)
	}
	var st control.State
	if err := admin.Call(ctx, addr, "GET", "/api/state", nil, &st); err != nil {
		t.Fatal(err)
	}
	var s1 state.Backend
	json.Unmarshal(st.Servers[0], &s1)
	if s1.Speed != 0.5 || len(st.Log) != 1 || st.Log[0].Text != "chaos: slow s1 speed=0.5" {
		t.Fatalf("after the drill: speed %v, log %+v", s1.Speed, st.Log)
	}
}

// controllerAddr is set by Up in tests so they can find a :0 controller.
func waitController(t *testing.T, ctx context.Context) string {
	t.Helper()
	for ctx.Err() == nil {
		if a, _ := lastControllerAddr.Load().(string); a != "" { // "": a test reset it
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the controller never came up")
	return ""
}

// A balancer port in use is reported with the process's own reason and exit
// status 2 (lab then exits 2), and nothing is left running.
func TestPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	opts := testOptions(t)
	opts.LBAddr = ln.Addr().String()
	ctx := ctxFor(t, 30*time.Second)
	_, err = startFleet(ctx, smallLab(t, "p2c", 3), opts)
	var se *proc.StartError
	if !errors.As(err, &se) || se.ExitCode() != 2 || !strings.Contains(se.Error(), "address already in use") {
		t.Fatalf("got %v, want a proc.StartError with exit status 2 naming the port in use", err)
	}
}

// runLoadgen runs the loadgen against fleet f as lab run does (its --json
// report) and returns its run and its (finished) process.
func runLoadgen(t *testing.T, ctx context.Context, f *fleet) (*report.Run, *proc.Proc) {
	t.Helper()
	args := append([]string{"--lab", f.labPath, "--admin", "127.0.0.1:0", "--json"}, f.loadgenArgs()...)
	args = append(args, f.tls.clientArgs()...)
	lg, err := proc.Start(ctx, f.opts.Launch, "loadgen", "loadgen", args, io.Discard, zap.NewNop())
	if err != nil {
		t.Fatal(err)
	}
	if err := lg.Wait(ctx); err != nil {
		t.Fatalf("loadgen: %v", err)
	}
	run, _, err := parseLoadgenReport(lg.Output())
	if err != nil {
		t.Fatal(err)
	}
	return run, lg
}
