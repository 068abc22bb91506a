package proc

import (
	"slices"
	"testing"
	"time"
)

// A process that keeps dying soon after its start is started again after
// 1 s, 2 s, 4 s ... and given up on after its fifth quick death; one that
// ran for a minute starts the count again.
func TestNextRestartPacing(t *testing.T) {
	p := &Proc{start: time.Now()}
	deaths := 0
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second} {
		var wait time.Duration
		var again bool
		deaths, wait, again = p.NextRestart(deaths)
		if !again || wait != want || deaths != i+1 {
			t.Fatalf("death %d: %d, %v, %v; want %d, %v, true", i+1, deaths, wait, again, i+1, want)
		}
	}
	if n, _, again := p.NextRestart(deaths); again || n != 6 {
		t.Errorf("the sixth quick death: %d, restarted %v; want given up", n, again)
	}
	p.start = time.Now().Add(-2 * time.Minute)
	if n, wait, again := p.NextRestart(deaths); !again || n != 1 || wait != time.Second {
		t.Errorf("a death after a minute of running: %d, %v, %v; want a first restart after 1s", n, wait, again)
	}
}

// A restarted process is given the addresses it had bound, not port 0.
func TestRestartArgs(t *testing.T) {
	p := &Proc{args: []string{"--lab", "l.yaml", "--addr", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--name", "s1"}}
	p.Ready.Addr, p.Ready.Admin = "127.0.0.1:4001", "127.0.0.1:4002"
	want := []string{"--lab", "l.yaml", "--addr", "127.0.0.1:4001", "--admin", "127.0.0.1:4002", "--name", "s1"}
	if got := p.RestartArgs(); !slices.Equal(got, want) {
		t.Errorf("RestartArgs: %v, want %v", got, want)
	}
	if p.args[3] != "127.0.0.1:0" {
		t.Errorf("RestartArgs changed the arguments as started: %v", p.args)
	}
	// a backend answering the agent check keeps its agent port, which the
	// proxy's configuration names
	p = &Proc{args: []string{"--addr", "127.0.0.1:0", "--agent", "127.0.0.1:0", "--agent-scale", "300"}}
	p.Ready.Addr, p.Ready.Agent = "127.0.0.1:4001", "127.0.0.1:4003"
	want = []string{"--addr", "127.0.0.1:4001", "--agent", "127.0.0.1:4003", "--agent-scale", "300"}
	if got := p.RestartArgs(); !slices.Equal(got, want) {
		t.Errorf("RestartArgs with an agent: %v, want %v", got, want)
	}
}
