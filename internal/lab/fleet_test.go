package lab

import (
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/scenarios"
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

// The lab file written for the processes holds the setting they run, and
// parses: a compare list valid on the lab as written can be invalid on top
// of one of its settings (client-side's aperture arms once the clients no
// longer balance themselves), and the processes refused the file.
func TestWrittenLabParsesWithASettingApplied(t *testing.T) {
	for _, c := range []struct{ scenario, setting string }{{"client-side", "balancers-p2c"}, {"handshakes", "balancers-2-tls"}} {
		lab, err := scenarios.Lab(c.scenario)
		if err != nil {
			t.Fatal(err)
		}
		var s labfile.Setting
		for _, x := range lab.Compare {
			if x.Name == c.setting {
				s = x
			}
		}
		applied, err := lab.WithSetting(s)
		if err != nil {
			t.Fatal(err)
		}
		f := &fleet{dir: t.TempDir()}
		path, err := f.writeLab(applied, "lab.yaml")
		if err != nil {
			t.Fatal(err)
		}
		back, err := labyaml.Load(path)
		if err != nil {
			t.Fatalf("%s with %s: the processes cannot read their lab: %v", c.scenario, c.setting, err)
		}
		if back.Clients.Algorithm != applied.Clients.Algorithm || back.Network != applied.Network {
			t.Fatalf("%s with %s: the written lab lost the setting", c.scenario, c.setting)
		}
	}
}
