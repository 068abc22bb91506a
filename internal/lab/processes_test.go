package lab

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"go.uber.org/zap"
)

// --max-processes bounds every process a live run starts: a backend per
// server (with those its script adds), an lb per balancer (or the external
// proxy; none when clients balance themselves) and the loadgen.
func TestProcessCapCountsEveryProcess(t *testing.T) {
	lab := smallLab(t, "p2c", 10) // 3 servers, 1 lb, the loadgen
	lab.Events = []labfile.Event{{At: time.Second, Action: "add-server", Target: "s4"}}
	err := CheckFleet(lab, 5)
	if err == nil || !strings.Contains(err.Error(), "would start 6 processes (4 servers (1 of them added by add-server), 1 lb (balancers.count), 1 loadgen)") ||
		!strings.Contains(err.Error(), "at most 5; --max-processes raises it") {
		t.Fatalf("3 servers, an add-server event, an lb and the loadgen under --max-processes 5: %v", err)
	}
	if err := CheckFleet(lab, 6); err != nil {
		t.Fatalf("under --max-processes 6: %v", err)
	}

	clientSide := smallLab(t, "p2c", 10)
	if err := clientSide.Apply("clients.algorithm", "p2c"); err != nil {
		t.Fatal(err)
	}
	if n := CountProcesses(clientSide); n.Total() != 4 || n.Balancers != 0 {
		t.Errorf("clients balancing themselves over 3 servers: %+v, want 3 servers and the loadgen", n)
	}
	proxied := smallLab(t, "round-robin", 10)
	if err := proxied.Apply("balancers.kind", "haproxy"); err != nil {
		t.Fatal(err)
	}
	if n := CountProcesses(proxied); n.Total() != 5 || n.String() != "3 servers, 1 HAProxy, 1 loadgen" {
		t.Errorf("3 servers behind HAProxy: %+v (%s), want the proxy counted once", n, n)
	}
}

// A lab of 1,000 balancers started 316 lb processes (7 GB) in 5 s before
// anyone counted them: lab run and lab up now refuse it before starting
// a process (the launcher is never called).
func TestThousandBalancersRefusedBeforeAnyProcess(t *testing.T) {
	lab := smallLab(t, "p2c", 10)
	if err := lab.Apply("balancers.count", "1000"); err != nil {
		t.Fatal(err)
	}
	var launched atomic.Int32
	opts := Options{Launch: func(role string, args []string) *exec.Cmd {
		launched.Add(1)
		return exec.Command("false")
	}, Logs: &strings.Builder{}, Log: zap.NewNop()}
	_, err := Run(context.Background(), lab, []labfile.Setting{{Name: "p2c"}}, RunOptions{Options: opts})
	var fe *FleetError
	if !errors.As(err, &fe) || fe.Processes.Balancers != 1000 || !strings.Contains(err.Error(), "would start 1004 processes (3 servers, 1000 lbs (balancers.count), 1 loadgen)") {
		t.Errorf("lab run of 1000 balancers: %v, want it refused naming 1000 lbs", err)
	}
	err = Up(context.Background(), lab, UpOptions{Options: opts, Listen: "127.0.0.1:0"})
	if !errors.As(err, &fe) || !strings.Contains(err.Error(), "--max-processes raises it") {
		t.Errorf("lab up of 1000 balancers: %v, want it refused naming --max-processes", err)
	}
	if n := launched.Load(); n != 0 {
		t.Errorf("%d processes were started", n)
	}
}

// An add-server drill past --max-processes is refused (400), counting the
// lab's own add-server events and the drills before it.
func TestAddServerStopsAtTheProcessCap(t *testing.T) {
	addr := startUp(t, smallLab(t, "p2c", 3600), func(o *UpOptions) { o.MaxProcesses = 6 }) // 3 servers, an lb, the loadgen
	if code, body := send(t, "POST", addr, "/api/chaos", "", `{"action":"add-server","target":"s4"}`, nil); code != 200 {
		t.Fatalf("the 6th process: %d %s", code, body)
	}
	code, body := send(t, "POST", addr, "/api/chaos", "", `{"action":"add-server","target":"s5"}`, nil)
	if code != 400 || !strings.Contains(body, "add-server: e2e would start 7 processes (5 servers (2 of them added by add-server), 1 lb (balancers.count), 1 loadgen)") ||
		!strings.Contains(body, "at most 6; --max-processes raises it") {
		t.Fatalf("add-server past --max-processes: %d %s", code, body)
	}
}
