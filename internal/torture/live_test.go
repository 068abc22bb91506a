package torture

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

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

// stoppedBalancer is the reproduction in small: a balancer frozen
// (SIGSTOP) for 3 s under load, while requests are in flight on its
// connections, with no timeout anywhere to end a request whose answer is
// lost.
func stoppedBalancer(seed uint64) Map {
	return Map{{"name", "stopped-lb"}, {"seed", seed}, {"duration", 5 * time.Second},
		{"clients", Map{{"rate", 300.0}, {"work", Map{{"mean", 4 * time.Millisecond}}}}},
		{"servers", List{Map{{"count", 3}, {"workers", 2}}}},
		{faultsKey, List{Map{{"at", 500 * time.Millisecond}, {"fault", "starve"}, {"for", 4 * time.Second}}, Map{{"at", time.Second}, {"fault", "stop"}, {"target", "lb1"}, {"for", 2 * time.Second}}}}}
}

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
