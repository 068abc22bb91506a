package lab

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// Hedging early against single-worker servers leaves many losers queued
// when their sibling answers; the loadgen cancels them (through the
// balancer, or straight at the server in client-side mode), the backends
// drop them unserved, and every request and attempt is still accounted for
// exactly once.
func TestHedgeLosersAreCancelled(t *testing.T) {
	for _, mode := range []string{"balancer", "client-side"} {
		t.Run(mode, func(t *testing.T) {
			ctx := ctxFor(t, 30*time.Second)
			lab := smallLab(t, "round-robin", 2)
			set := [][2]string{{"servers[0].workers", "1"}, {"clients.hedge", "10ms"}}
			if mode == "client-side" {
				set = append(set, [2]string{"clients.algorithm", "round-robin"})
			}
			for _, kv := range set {
				if err := lab.Apply(kv[0], kv[1]); err != nil {
					t.Fatal(err)
				}
			}
			checkCancelledLosers(t, ctx, lab, mode == "balancer")
		})
	}
}

func checkCancelledLosers(t *testing.T, ctx context.Context, lab *labfile.Lab, balancer bool) {
	f, err := startFleet(ctx, lab, testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.stop()
	if got := len(f.lbs) > 0; got != balancer {
		t.Fatalf("fleet has balancers: %v, want %v", got, balancer)
	}
	run, _ := runLoadgen(t, ctx, f)
	o := run.Outcomes
	if run.Requests < 200 || run.Hedges < run.Requests/4 || o.Succeeded+o.Failed+o.Rejected+o.TimedOut != run.Requests ||
		run.Succeeded != run.Requests || run.Rejected != 0 {
		t.Fatalf("loadgen: %d requests, %d hedges, %d rejected attempts, outcomes %+v; want all served, many hedged",
			run.Requests, run.Hedges, run.Rejected, o)
	}

	// Losers the cancellations missed may still run after the loadgen has
	// gone: wait until the servers are idle.
	var states []state.Backend
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		states = states[:0]
		idle := true
		for _, b := range f.backends {
			var st state.Backend
			if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
				t.Fatal(err)
			}
			states = append(states, st)
			idle = idle && st.Queued == 0 && st.Busy == 0
		}
		if idle {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the servers did not go idle after the run")
		}
	}
	var arrived, ended, cancelled uint64
	kinds := map[string]uint64{}
	for i, b := range f.backends {
		c := states[i].Counters
		arrived += c.Arrived
		ended += c.Completed + c.Errors + c.Rejected + c.Dropped + c.Lost
		for kind, n := range cancelledByKind(t, ctx, b.Ready.Admin) {
			kinds[kind] += n
			cancelled += n
		}
	}
	t.Logf("%d requests, %d attempts, %d hedges, %d wasted; servers: %d arrived, %d ended, %d cancelled %v",
		run.Requests, run.Attempts, run.Hedges, run.Wasted, arrived, ended, cancelled, kinds)
	if cancelled == 0 {
		t.Fatal("no queued loser was cancelled")
	}
	if arrived != run.Attempts || ended+cancelled != arrived {
		t.Errorf("attempts: loadgen sent %d, servers received %d, ended %d + cancelled %d", run.Attempts, arrived, ended, cancelled)
	}
	if cancelled+run.Wasted > run.Hedges {
		t.Errorf("%d cancelled + %d wasted losers for %d hedges", cancelled, run.Wasted, run.Hedges)
	}
	if balancer {
		var st state.LB
		if err := admin.Call(ctx, f.lbs[0].Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			t.Fatal(err)
		}
		if st.Picks != run.Attempts {
			t.Errorf("lb picks %d, loadgen attempts %d", st.Picks, run.Attempts)
		}
	}
}

// cancelledByKind reads lblab_backend_requests_total{outcome="cancelled"}
// from a backend's metrics, by attempt kind.
func cancelledByKind(t *testing.T, ctx context.Context, admin string) map[string]uint64 {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+admin+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]uint64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "lblab_backend_requests_total{") || !strings.Contains(line, `outcome="cancelled"`) {
			continue
		}
		_, kind, _ := strings.Cut(line, `kind="`)
		kind, _, _ = strings.Cut(kind, `"`)
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[kind] += uint64(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
