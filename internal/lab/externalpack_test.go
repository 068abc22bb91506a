package lab

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/proxies"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/testbin"
	"github.com/lblab/lblab/scenarios"
)

// The scenario pack behind a proxy (docs/external.md#scenario-pack): each
// scenario's lesson, shortened to a few seconds, through HAProxy, nginx and
// Caddy, with the compare settings the proxies run. rr-slow's and
// breaker's are TestExternalRRSlowLesson and TestExternalBreakerLesson.
// The machine these run on may be loaded: the bands below are wide, each
// with the figures measured beside it.

// packKinds are the proxies a scenario of the pack runs through: in make
// test one each, a different one per scenario, so that the pack covers
// every proxy in a third of the time (the three together take about 150 s
// of a 2-core machine); with LBLAB_PACK=all each runs through all three,
// as docs/external.md's table was measured.
func packKinds(one string) []string {
	if os.Getenv("LBLAB_PACK") == "all" {
		return []string{"haproxy", "nginx", "caddy"}
	}
	return []string{one}
}

// packKindsWith are packKinds(one) but those that lack algorithm.
func packKindsWith(one, algorithm string) []string {
	return slices.DeleteFunc(packKinds(one), func(kind string) bool {
		p, _ := proxies.ByKind(kind)
		return !slices.Contains(p.AlgorithmNames(), algorithm)
	})
}

// packLab is scenario name through kind, run for duration, with the
// compare settings named (each must be one the proxy can run).
func packLab(t *testing.T, name, kind string, duration time.Duration, settings ...string) (*labfile.Lab, []labfile.Setting) {
	t.Helper()
	lab, err := scenarios.Lab(name)
	if err != nil {
		t.Fatal(err)
	}
	lab.Captions = nil
	lab.Compare = slices.DeleteFunc(lab.Compare, func(s labfile.Setting) bool { return !slices.Contains(settings, s.Name) })
	if len(lab.Compare) != len(settings) {
		t.Fatalf("%s has %d of the settings %v", name, len(lab.Compare), settings)
	}
	// events the shortened run ends before are left out (ch-bounded's s6 at 10 s)
	lab.Events = slices.DeleteFunc(lab.Events, func(e labfile.Event) bool { return e.At >= duration })
	if err := lab.ApplyAll([][2]string{{"balancers.kind", kind}, {"duration", duration.String()}}); err != nil {
		t.Fatalf("%s: %v", kind, err)
	}
	return lab, lab.Compare
}

// rrAndLeastConns runs scenario name through kind for duration under
// round robin and least connections, and checks both accounted for.
func rrAndLeastConns(t *testing.T, name, kind string, duration time.Duration) (rr, lc *report.Run) {
	t.Helper()
	lab, settings := packLab(t, name, kind, duration, "round-robin", "least-outstanding")
	rep, err := Run(ctxFor(t, 90*time.Second), lab, settings, RunOptions{Options: testOptions(t)})
	if err != nil {
		t.Fatal(err)
	}
	rr, lc = rep.Find("round-robin"), rep.Find("least-outstanding")
	for _, run := range []*report.Run{rr, lc} {
		accounted(t, kind, run)
	}
	return rr, lc
}

// serverShare is the share of server name in run.
func serverShare(t *testing.T, run *report.Run, name string) float64 {
	t.Helper()
	for _, s := range run.Servers {
		if s.Name == name {
			return s.Share
		}
	}
	t.Fatalf("%s: no server %s", run.Name, name)
	return 0
}

// slow-server through each proxy: round robin sends "slow" (40% speed) its
// exact fifth, which it cannot finish, so its queue fills and answers 503;
// least connections sees its requests pile up, sends it well under a
// fifth, and causes fewer 503s. Every request is accounted for.
func TestExternalPackSlowServer(t *testing.T) {
	for _, kind := range packKinds("haproxy") {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			rr, lc := rrAndLeastConns(t, "slow-server", kind, 6*time.Second)
			srr, slc := serverShare(t, rr, "slow"), serverShare(t, lc, "slow")
			t.Logf("%s: slow's share %.3f under round robin (%d 503s), %.3f under least connections (%d 503s)",
				kind, srr, rr.Rejected, slc, lc.Rejected)
			// The rotation is exact whatever the machine's load (measured
			// 0.200 through each). slow gets 40/s and finishes about 27/s:
			// its 24 slots fill in about 2 s, then it sheds (measured
			// 120-130 503s in 10 s, none under least connections).
			if math.Abs(srr-0.2) > 0.01 || rr.Rejected == 0 {
				t.Errorf("%s round robin: slow's share %.3f (want 0.2), %d 503s (want some)", kind, srr, rr.Rejected)
			}
			// The scenario's claim is under 0.13 (measured 0.116-0.124);
			// 0.15 leaves room for a loaded machine's noisier latencies,
			// still well under round robin's 0.2.
			if slc > 0.15 || lc.Rejected >= rr.Rejected {
				t.Errorf("%s least connections: slow's share %.3f (want under 0.15), %d 503s (round robin %d)", kind, slc, lc.Rejected, rr.Rejected)
			}
		})
	}
}

// gc-ewma through each proxy: "paused" stops for 300 ms every 2 s; round
// robin keeps its fifth, so the requests it sends there in a pause wait
// and its p99 holds most of a pause; least connections sees paused's
// count jump, sends it less and has a far lower p99. The proxies have no
// peak EWMA (its setting is left out); least connections is the nearest.
func TestExternalPackGCEWMA(t *testing.T) {
	for _, kind := range packKinds("nginx") {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			pressure := testbin.CPUPressure()
			rr, lc := rrAndLeastConns(t, "gc-ewma", kind, 5*time.Second)
			starved := pressure()
			prr, plc := serverShare(t, rr, "paused"), serverShare(t, lc, "paused")
			t.Logf("%s: p99 round robin %.1f ms, least connections %.1f ms; paused's share %.3f and %.3f",
				kind, rr.Latency.P99, lc.Latency.P99, prr, plc)
			// Round robin: exactly a fifth, and a p99 of most of a pause
			// (measured 600-700 ms in 10 s runs: 300 ms of pause and the
			// queue it leaves).
			if math.Abs(prr-0.2) > 0.01 || rr.Latency.P99 < 200 {
				t.Errorf("%s round robin: paused's share %.3f (want 0.2), p99 %.1f ms (want over 200)", kind, prr, rr.Latency.P99)
			}
			// Least connections: the claim is a p99 under 0.6x round
			// robin's and a share under 0.2. Measured: 0.41-0.71x (its
			// p99 109-172 ms, the simulator's 122 ms: what is left is the
			// loaded machine's own stalls, which round robin's 240-315 ms
			// of pause does not hide) and 0.168-0.193 (the simulator
			// 0.173). 0.85x, and under 0.197 (round robin's is 0.200 to
			// the request), leave room for that machine.
			// A machine starved over the runs (testbin.Starved) stalls
			// both alike: the story cannot be told (measured a p99 of 279
			// against round robin's 271 ms at a pressure of 0.97).
			if lc.Latency.P99 > 0.85*rr.Latency.P99 || plc > 0.197 {
				unlessStarved(t, starved, []string{fmt.Sprintf("%s least connections: p99 %.1f ms (round robin %.1f), paused's share %.3f (want under 0.197)", kind, lc.Latency.P99, rr.Latency.P99, plc)})
			}
		})
	}
}

// retryStormLab is retry-storm made short: every server at half speed from
// 2 s to 3.5 s of 9.
func retryStormLab(t *testing.T, kind string) (*labfile.Lab, []labfile.Setting) {
	t.Helper()
	lab, settings := packLab(t, "retry-storm", kind, 9*time.Second, "retries", "retry-budget")
	lab.Events[0].At = 2 * time.Second // for 1.5 s, as in the scenario
	return lab, settings
}

// offeredLoad is the share of lab's fleet's nominal capacity
// (labfile.Lab.Capacity) its clients ask for: retry-storm's 0.7.
func offeredLoad(lab *labfile.Lab) float64 {
	return lab.Clients.Rate / (lab.FleetCapacity() * float64(len(lab.ExpandServers())))
}

// overloaded is the share of its capacity past which the attempts keep a
// fleet overloaded beyond doubt after retry-storm's slowdown.
const overloaded = 1.15

// retry-storm through each proxy, its 200 ms timeout the proxy's: before
// the slowdown nothing times out; in it attempts time out (504 from the
// proxy) and the clients retry; after it, with three retries a request,
// the fleet stays overloaded (several attempts per request, goodput stuck
// low) although its speed is back, a metastable failure; a 10% retry
// budget stops the amplification and the fleet recovers. Every request is
// accounted for. (drop-expired is refused behind a proxy: it passes the
// servers no deadline.)
//
// Through Caddy the storm is weaker, a finding of the pack (docs/external.md,
// "Caddy in a retry storm"): Caddy answers a timed-out attempt late (its 504
// for a 200 ms response_header_timeout comes after 0.6-0.8 s at the median
// and up to 3-5 s in the storm, on an idle machine too), so each client's
// retries come 3-4 times slower and the fleet gets far fewer attempts than
// through HAProxy or nginx: 1.19-2.7 attempts per request after the
// slowdown, and goodput from 0 to 1 depending on the run, against about 4
// and 0. Its claim is what Caddy does: the retries still amplify past what
// the budget lets through, and where they ask the fleet for more than it
// serves, the fleet serves clearly less than with the budget.
//
// The test measures the machine's CPU pressure over the run
// (testbin.CPUPressure): a run whose checks fail on a machine so starved
// that the emulated timing cannot hold (beyond testbin.Starved; two CPU
// hogs beside the lab stay under it) says so and is skipped, rather than
// failing at random.
func TestExternalPackRetryStorm(t *testing.T) {
	for _, kind := range packKinds("caddy") {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			ctx := ctxFor(t, 90*time.Second)
			lab, settings := retryStormLab(t, kind)
			load := offeredLoad(lab)
			pressure := testbin.CPUPressure()
			rep, err := Run(ctx, lab, settings, RunOptions{Options: testOptions(t), Series: true})
			if err != nil {
				t.Fatal(err)
			}
			starved := pressure()
			retries, budget := rep.Find("retries"), rep.Find("retry-budget")
			for _, run := range []*report.Run{retries, budget} {
				accounted(t, kind, run)
			}
			window := func(run *report.Run, from, to float64) report.Window {
				w, err := run.Window(from, to)
				if err != nil {
					t.Fatal(err)
				}
				return w
			}
			// before: from 0.5 s, once the proxy has its first connections
			// (Caddy dials one per attempt in flight at the start, and its
			// first answers come late: up to 73 timeouts of 1,387 in the
			// first half second beside two CPU hogs, none after it)
			pre, in, post := window(retries, 0.5, 2), window(retries, 2, 3.5), window(retries, 5, 9)
			bpre, bpost := window(budget, 0.5, 2), window(budget, 6.5, 9)
			t.Logf("%s: retries: before %d timeouts of %d, goodput %.3f; in the slowdown %d timeouts, %d retries; after %.2f attempts per request, goodput %.3f",
				kind, pre.Timeouts, pre.Offered, pre.Goodput(), in.Timeouts, in.Retries, post.AttemptsPerRequest(), post.Goodput())
			t.Logf("%s: retry-budget: before goodput %.3f; %.3f attempts per request, after %.2f, goodput %.3f; CPU pressure over the run %.2f",
				kind, bpre.Goodput(), budget.AttemptsPerRequest, bpost.AttemptsPerRequest(), bpost.Goodput(), starved)
			var failed []string
			fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
			// Before: 70% load, healthy in both settings (measured goodput
			// 0.994-1, 0-32 timeouts of 1,387: the claim is under 1%, and a
			// loaded machine's stall of 200 ms makes a burst of them; 5%).
			// Through Caddy only goodput: in 1 of 8 runs beside two CPU
			// hogs it timed out 646 of 1,042 first attempts before the
			// slowdown, all served on retry (goodput 0.985), none in the
			// other 7 (docs/external.md, "Caddy in a retry storm").
			for _, w := range []report.Window{pre, bpre} {
				if w.Goodput() < 0.95 || kind != "caddy" && w.Timeouts*20 > w.Offered {
					fail("%s before the slowdown: goodput %.3f, %d timeouts of %d requests (want >= 0.95 and under 5%%)", kind, w.Goodput(), w.Timeouts, w.Offered)
				}
			}
			// During: at 140% load the proxy's 200 ms timeout fires.
			if in.Timeouts == 0 || in.Retries == 0 {
				fail("%s in the slowdown: %d timeouts, %d retries (want both)", kind, in.Timeouts, in.Retries)
			}
			// The budget: the claim is <= 1.15 attempts per request
			// (measured 1.02-1.05) and every bin healthy from 5 s after
			// the slowdown. The backlog of the slowdown takes about 2 s to
			// clear at 70% load (goodput 0.84 from 1.5 s to 3.5 s after
			// it), so from 3 s after it to the end, >= 0.9.
			if budget.AttemptsPerRequest > 1.15 || bpost.Goodput() < 0.9 {
				fail("%s retry-budget: %.3f attempts per request, goodput %.3f after the slowdown: want the amplification stopped (<= 1.15, >= 0.9)", kind, budget.AttemptsPerRequest, bpost.Goodput())
			}
			// After: the claim is >= 3 attempts per request and goodput
			// under 10% (measured 3.9-4.3 through HAProxy and nginx,
			// goodput 0); 2 and 0.3 still mean a fleet working mostly on
			// retries. Through Caddy (above) the retries come as late as
			// its 504s, later the busier the machine: 1.19-3.2 attempts
			// per request (1.19-1.55 at a CPU pressure of 0.88-0.94). So
			// they must amplify past what the budget lets through on the
			// same machine (its 1.00-1.12), by a tenth at least; and
			// serve clearly less than with the budget where the attempts
			// overloaded the fleet. It is asked for 70% of its capacity,
			// so they pass it only from 1.43 a request; below, nothing
			// holds the fleet down (1.36 a request, 95%: goodput 1.000,
			// as with the budget). From 15% over its capacity (1.64 a
			// request) the storm holds: goodput 0.15-0.56 at 1.70-2.23.
			if kind == "caddy" {
				asked := post.AttemptsPerRequest() * load
				switch {
				case post.AttemptsPerRequest() < bpost.AttemptsPerRequest()+0.1:
					fail("%s after the slowdown: %.2f attempts per request (goodput %.3f), the budget's %.2f: want the retries amplifying past the budget (by 0.1 at least)", kind, post.AttemptsPerRequest(), post.Goodput(), bpost.AttemptsPerRequest())
				case asked >= overloaded && post.Goodput() > bpost.Goodput()-0.1:
					fail("%s after the slowdown: %.2f attempts per request, %.0f%% of the fleet's capacity, yet goodput %.3f (the budget's %.3f): want less served than with the budget", kind, post.AttemptsPerRequest(), 100*asked, post.Goodput(), bpost.Goodput())
				case asked < overloaded:
					t.Logf("%s after the slowdown: %.2f attempts per request, %.0f%% of the fleet's capacity, under %.0f%%: no storm to hold the fleet down, goodput not compared", kind, post.AttemptsPerRequest(), 100*asked, 100*overloaded)
				}
			} else if post.AttemptsPerRequest() < 2 || post.Goodput() > 0.3 {
				fail("%s after the slowdown: %.2f attempts per request, goodput %.3f: want the storm to go on (>= 2, under 0.3)", kind, post.AttemptsPerRequest(), post.Goodput())
			}
			limit := testbin.Starved
			if kind == "caddy" {
				// Through Caddy the budget's run stalls on a busy machine:
				// goodput 0.003-0.75 after the slowdown at about 1.05
				// attempts per request in 17 of 28 runs beside two CPU
				// hogs, all at a CPU pressure of 0.92 or more
				// (bench/results/2026-12-03_flake-rounds.md), and 0.757 at
				// 0.94 in a make test beside other work: Caddy's own
				// threads short of a CPU, by every sign (issue 38; not yet
				// measured). Its story is told on a machine under 0.9.
				limit = 0.9
			}
			unlessStarvedAt(t, starved, limit, failed)
		})
	}
}

// unlessStarved fails t with the checks that failed, or skips it when the
// machine was starved over the run (testbin.CPUPressure beyond
// testbin.Starved): the emulated timing did not hold, so the story cannot
// be told either way.
func unlessStarved(t *testing.T, starved float64, failed []string) {
	t.Helper()
	unlessStarvedAt(t, starved, testbin.Starved, failed)
}

// unlessStarvedAt is unlessStarved with the pressure at which the machine
// counts as starved.
func unlessStarvedAt(t *testing.T, starved, limit float64, failed []string) {
	t.Helper()
	switch {
	case len(failed) > 0 && starved >= limit:
		t.Skipf("the machine was starved (some task waited for a CPU %.0f%% of the run, over %.0f%%): the emulated timing did not hold, so the story cannot be told:\n%s",
			100*starved, 100*limit, strings.Join(failed, "\n"))
	case len(failed) > 0:
		t.Error(strings.Join(failed, "\n"))
	}
}

// mixed-fleet through each proxy that has weights: s1-s3 run at double
// speed. Round robin sends each server its sixth, so the fast half gets
// half the requests; weighted round robin writes the speeds as the
// servers' weights (256 and 128), and the fast half gets two thirds, as
// lb's and the simulator's weighted round robin give it. Every request is
// accounted for.
func TestExternalPackMixedFleetWeights(t *testing.T) {
	for _, kind := range packKindsWith("haproxy", "weighted-round-robin") { // Caddy 2.6 has no weights
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			lab, settings := packLab(t, "mixed-fleet", kind, 2*time.Second, "round-robin", "weighted-round-robin")
			rep, err := Run(ctxFor(t, 90*time.Second), lab, settings, RunOptions{Options: testOptions(t)})
			if err != nil {
				t.Fatal(err)
			}
			fast := func(run *report.Run) float64 {
				accounted(t, kind, run)
				return serverShare(t, run, "s1") + serverShare(t, run, "s2") + serverShare(t, run, "s3")
			}
			rr, wrr := fast(rep.Find("round-robin")), fast(rep.Find("weighted-round-robin"))
			t.Logf("%s: the fast half's share %.3f under round robin, %.3f under weighted round robin", kind, rr, wrr)
			// Both rotations are exact over a cycle (6 picks, and 9 with
			// weights 2:1), whatever the machine's load: 0.02 is the
			// retries and the requests cut at the end.
			if math.Abs(rr-0.5) > 0.02 {
				t.Errorf("%s round robin: the fast half's share %.3f, want 0.5", kind, rr)
			}
			if math.Abs(wrr-2.0/3) > 0.02 {
				t.Errorf("%s weighted round robin: the fast half's share %.3f, want 2/3 (the speeds as weights)", kind, wrr)
			}
		})
	}
}

// ch-bounded through HAProxy, the one proxy with bounded loads: ring
// hashing sends each key to one server, so the server owning the hottest
// key (a fifth of the requests, Zipf 1.1 over 1,000 keys) carries far more
// than a fifth and its queue makes the tail; hash-balance-factor 125
// (epsilon 0.25) spills the excess to the next servers on the ring, so no
// server holds much over a fifth and the p99 falls. Every request is
// accounted for.
func TestExternalPackBoundedLoads(t *testing.T) {
	for _, kind := range packKindsWith("haproxy", "ring-hash-bounded") {
		t.Run(kind, func(t *testing.T) {
			proxyTool(t, kind)
			lab, settings := packLab(t, "ch-bounded", kind, 3*time.Second, "ring-hash", "ring-hash-bounded")
			rep, err := Run(ctxFor(t, 90*time.Second), lab, settings, RunOptions{Options: testOptions(t)})
			if err != nil {
				t.Fatal(err)
			}
			top := func(run *report.Run) float64 {
				accounted(t, kind, run)
				m := 0.0
				for _, s := range run.Servers {
					m = max(m, s.Share)
				}
				return m
			}
			rh, rhb := rep.Find("ring-hash"), rep.Find("ring-hash-bounded")
			trh, trhb := top(rh), top(rhb)
			t.Logf("%s: the busiest server's share %.3f under ring hashing (p99 %.1f ms), %.3f with bounded loads (p99 %.1f ms)",
				kind, trh, rh.Latency.P99, trhb, rhb.Latency.P99)
			// Measured through HAProxy: 0.449 and p99 795 ms under ring
			// hashing (lab sim: 0.390, 338 ms, on a ring of its own), 0.275
			// and 95 ms bounded (lab sim: 0.257, 91 ms; the hot server's
			// warm cache answers faster, so its share is a little over the
			// 1.25 fifths it may hold at once). Whoever owns the hottest key
			// carries over a third under ring hashing on any ring (the key
			// alone is 18% of the requests).
			if trh < 0.33 || trhb > 0.31 || trhb > 0.8*trh {
				t.Errorf("%s: the busiest server's share %.3f under ring hashing (want over 0.33), %.3f bounded (want under 0.31)", kind, trh, trhb)
			}
			// The hot server's queue, rather than the p99 it makes: beside
			// two CPU hogs the machine's own stalls put a p99 of 306 ms on
			// the bounded run against 528 ms (over half), while the queues
			// it is made of are the emulated servers' own.
			q, qb := rh.Fullest().MaxQueue, rhb.Fullest().MaxQueue
			t.Logf("%s: the longest queue %d under ring hashing, %d bounded", kind, q, qb)
			if 2*qb > q {
				t.Errorf("%s: the longest queue %d bounded, %d under ring hashing (p99 %.1f and %.1f ms): want the bound to take the hot server's queue away (under half)", kind, qb, q, rhb.Latency.P99, rh.Latency.P99)
			}
		})
	}
}
