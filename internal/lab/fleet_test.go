package lab

import (
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"
)

// A backend that fails to start must not leave the others running: every
// backend that did start is recorded, and stopped with the fleet.
func TestFailedStartStopsTheBackendsThatStarted(t *testing.T) {
	opts := testOptions(t)
	var mu sync.Mutex
	var cmds []*exec.Cmd
	launch := opts.Launch
	opts.Launch = func(role string, args []string) *exec.Cmd {
		cmd := launch(role, args)
		if i := slices.Index(args, "--name"); i >= 0 && args[i+1] == "s1" {
			cmd = exec.Command("false") // s1 dies before it is ready
		}
		mu.Lock()
		cmds = append(cmds, cmd)
		mu.Unlock()
		return cmd
	}
	t.Cleanup(func() { // whatever the test's verdict, nothing outlives it
		for _, c := range cmds {
			if c.Process != nil {
				_ = c.Process.Kill()
			}
		}
	})
	f, err := startFleet(ctxFor(t, 30*time.Second), smallLab(t, "p2c", 1), opts)
	if err == nil {
		f.stop()
		t.Fatal("a fleet whose s1 cannot start started")
	}
	if len(cmds) != 3 {
		t.Fatalf("%d processes launched, want the 3 backends", len(cmds))
	}
	for _, c := range cmds {
		if c.Process != nil && alive(c.Process.Pid) && c.ProcessState == nil {
			t.Errorf("%v is still running after the failed start", c.Args)
		}
	}
}
