package sim

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/scenarios"
)

// Each built-in scenario's documented outcome, asserted with margins. The
// runs are seeded, so they are exact; the margins keep the assertions about
// the behaviour rather than about one seed's numbers.

func TestScenarioRRSlow(t *testing.T) {
	rep := compareScenario(t, "rr-slow")
	rr := runOf(t, rep, "round-robin")
	for _, name := range []string{"least-outstanding", "p2c"} {
		r := runOf(t, rep, name)
		if r.Latency.P99*5 > rr.Latency.P99 {
			t.Errorf("%s p99 %.1f ms is not 5x below round robin's %.1f ms", name, r.Latency.P99, rr.Latency.P99)
		}
		if s := share(t, r, "s2"); s > 0.15 {
			t.Errorf("%s still sends %.1f%% to the slow server", name, 100*s)
		}
	}
	if s := share(t, rr, "s2"); math.Abs(s-0.2) > 0.005 {
		t.Errorf("round robin sent %.3f to s2, want an even 0.2", s)
	}
}

func TestScenarioHerd(t *testing.T) {
	rep := compareScenario(t, "herd")
	lo, p2c := runOf(t, rep, "least-outstanding"), runOf(t, rep, "p2c")
	random, local := runOf(t, rep, "random"), runOf(t, rep, "least-outstanding-local")
	if lo.Latency.P99 <= 2*p2c.Latency.P99 {
		t.Errorf("stale least-outstanding p99 %.1f ms should be well above p2c's %.1f ms", lo.Latency.P99, p2c.Latency.P99)
	}
	if random.Latency.P99 >= p2c.Latency.P99 {
		t.Errorf("random p99 %.1f ms should beat p2c's %.1f ms on 500 ms-old counts", random.Latency.P99, p2c.Latency.P99)
	}
	if local.Latency.P99*3 > lo.Latency.P99 {
		t.Errorf("fresh local counts should fix least-outstanding: %.1f ms vs %.1f ms", local.Latency.P99, lo.Latency.P99)
	}
}

func TestScenarioGCEWMA(t *testing.T) {
	rep := compareScenario(t, "gc-ewma")
	rr := runOf(t, rep, "round-robin")
	for _, name := range []string{"least-outstanding", "p2c-peak-ewma"} {
		if r := runOf(t, rep, name); r.Latency.P99 > 0.6*rr.Latency.P99 {
			t.Errorf("%s p99 %.1f ms should dodge the pauses (round robin %.1f ms)", name, r.Latency.P99, rr.Latency.P99)
		}
	}
	if s := share(t, runOf(t, rep, "p2c-peak-ewma"), "paused"); s > 0.17 {
		t.Errorf("peak EWMA sent %.3f to the pausing server, want well under 0.2", s)
	}
}

func TestScenarioCHBounded(t *testing.T) {
	// Check mode also asserts, at every bounded pick, that no server goes
	// over ceil((1+eps)(in flight+1)/n) (see checkPick).
	rep := compareScenario(t, "ch-bounded")
	ring, bounded, p2c := runOf(t, rep, "ring-hash"), runOf(t, rep, "ring-hash-bounded"), runOf(t, rep, "p2c")
	if bounded.Latency.P99 >= ring.Latency.P99 {
		t.Errorf("bounded loads p99 %.1f ms should beat ring hash's %.1f ms", bounded.Latency.P99, ring.Latency.P99)
	}
	if h, r := meanHitRatio(bounded), meanHitRatio(ring); h < 0.85*r {
		t.Errorf("bounded loads kept %.2f hit ratio, want most of ring hash's %.2f", h, r)
	}
	if h, r := meanHitRatio(p2c), meanHitRatio(ring); h > r-0.1 {
		t.Errorf("p2c should cool the caches: %.2f vs ring hash %.2f", h, r)
	}
	for _, r := range []string{"ring-hash", "ring-hash-bounded", "maglev"} {
		k := runOf(t, rep, r).KeysMoved
		if k == nil || k.From != 5 || k.To != 6 {
			t.Fatalf("%s: keys moved not reported for 5 -> 6: %+v", r, k)
		}
		if math.Abs(k.Share-1.0/6) > 0.03 {
			t.Errorf("%s moved %.3f of keys, want 1/6 +- 0.03", r, k.Share)
		}
		if k.ModNShare < 0.7 {
			t.Errorf("%s: hash mod N would move %.3f, want most keys", r, k.ModNShare)
		}
	}
}

func TestScenarioRetryStorm(t *testing.T) {
	rep := compareScenario(t, "retry-storm")
	retries, budget := runOf(t, rep, "retries"), runOf(t, rep, "retry-budget")
	// The slowdown is 5 s - 6.5 s; look well after it ends.
	if g := goodputBetween(retries, 15, 30); g > 0.3 {
		t.Errorf("without a budget goodput after the slowdown is %.2f, want it stuck low (metastable)", g)
	}
	if g := goodputBetween(budget, 15, 30); g < 0.95 {
		t.Errorf("with a budget goodput after the slowdown is %.2f, want recovered", g)
	}
	if retries.AttemptsPerRequest < 2.5 || budget.AttemptsPerRequest > 1.15 {
		t.Errorf("attempts per request: retries %.2f (want amplified), budget %.2f (want ~1.1)",
			retries.AttemptsPerRequest, budget.AttemptsPerRequest)
	}
	both := runOf(t, rep, "budget-drop-expired")
	if goodputBetween(both, 6.5, 9) <= goodputBetween(budget, 6.5, 9) {
		t.Errorf("dropping expired work should clear the backlog sooner than the budget alone")
	}
}

func TestScenarioBreaker(t *testing.T) {
	rep := compareScenario(t, "breaker")
	off, on := runOf(t, rep, "no-breaker"), runOf(t, rep, "breaker")
	if s := share(t, off, "s2"); s < 0.24 {
		t.Errorf("without a breaker the failing server should sinkhole traffic, got share %.3f", s)
	}
	if on.Errors*10 > off.Errors {
		t.Errorf("breaker errors %d should be far below %d", on.Errors, off.Errors)
	}
	var log []string
	for _, l := range on.Log {
		if strings.HasPrefix(l.Text, "breaker s2: ") {
			log = append(log, strings.TrimPrefix(l.Text, "breaker s2: "))
		}
	}
	want := []string{"closed -> open", "open -> half-open", "half-open -> open"}
	for i, w := range want {
		if i >= len(log) || log[i] != w {
			t.Fatalf("breaker transitions %v, want to start with %v", log, want)
		}
	}
	if last := log[len(log)-1]; last != "half-open -> closed" {
		t.Errorf("breaker should close once s2 recovers, last transition %q", last)
	}
}

func TestScenarioHedging(t *testing.T) {
	rep := compareScenario(t, "hedging")
	none, p95, early := runOf(t, rep, "no-hedge"), runOf(t, rep, "hedge-p95"), runOf(t, rep, "hedge-1ms")
	if p95.Latency.P99 > 0.85*none.Latency.P99 {
		t.Errorf("hedging at p95: p99 %.1f ms, want well below %.1f ms", p95.Latency.P99, none.Latency.P99)
	}
	if p95.AttemptsPerRequest >= 1.10 {
		t.Errorf("hedging at p95 costs %.3f attempts per request, want under 1.10", p95.AttemptsPerRequest)
	}
	if early.AttemptsPerRequest < 1.8 {
		t.Errorf("hedging too early should about double the attempts, got %.3f", early.AttemptsPerRequest)
	}
}

func TestScenarioAdaptive(t *testing.T) {
	rep := compareScenario(t, "adaptive")
	none := runOf(t, rep, "no-limit")
	for _, name := range []string{"aimd", "gradient2"} {
		r := runOf(t, rep, name)
		if r.Latency.P99*5 > none.Latency.P99 {
			t.Errorf("%s p99 %.1f ms should be far below no limit's %.1f ms", name, r.Latency.P99, none.Latency.P99)
		}
		if r.Rejected == 0 || r.Goodput < 0.7 {
			t.Errorf("%s should reject the excess at once and keep most: %d rejected, goodput %.2f", name, r.Rejected, r.Goodput)
		}
	}
}

func TestScenarioShedding(t *testing.T) {
	rep := compareScenario(t, "shedding")
	if g := runOf(t, rep, "unbounded-fifo").Goodput; g > 0.1 {
		t.Errorf("unbounded FIFO goodput %.2f, want near zero", g)
	}
	for _, name := range []string{"bounded-fifo", "bounded-lifo", "lifo-drop-expired"} {
		if g := runOf(t, rep, name).Goodput; g < 0.6 {
			t.Errorf("%s goodput %.2f, want most of the capacity (~0.71)", name, g)
		}
	}
	if a, b := runOf(t, rep, "fifo-drop-expired").Wasted, runOf(t, rep, "unbounded-fifo").Wasted; a >= b {
		t.Errorf("dropping expired requests should waste less work: %d vs %d", a, b)
	}
}

func TestScenarioSlowServer(t *testing.T) {
	rep := compareScenario(t, "slow-server")
	rr := runOf(t, rep, "round-robin")
	for _, name := range []string{"least-outstanding", "p2c", "p2c-peak-ewma", "weighted-round-robin", "least-response-time"} {
		r := runOf(t, rep, name)
		if s := share(t, r, "slow"); s > 0.13 {
			t.Errorf("%s sent %.3f to the slow server", name, s)
		}
		if r.Rejected >= rr.Rejected {
			t.Errorf("%s caused %d 503s, round robin %d", name, r.Rejected, rr.Rejected)
		}
	}
	// A full scan of latency x (outstanding + 1) does best of all, as in the
	// simulator this project grows from; comparing two random servers on the
	// same cost does worse.
	lrt := runOf(t, rep, "least-response-time")
	for _, r := range rep.Runs {
		if r.Name != lrt.Name && r.Latency.P99 <= lrt.Latency.P99 {
			t.Errorf("%s p99 %.1f ms is not above least-response-time's %.1f ms", r.Name, r.Latency.P99, lrt.Latency.P99)
		}
	}
	if a, b := share(t, lrt, "slow"), share(t, runOf(t, rep, "p2c-latency-load"), "slow"); a >= b {
		t.Errorf("least-response-time sends %.3f to the slow server, p2c-latency-load %.3f", a, b)
	}
}

func TestScenarioMixedFleet(t *testing.T) {
	rep := compareScenario(t, "mixed-fleet")
	fast := func(name string) float64 {
		r := runOf(t, rep, name)
		return share(t, r, "s1") + share(t, r, "s2") + share(t, r, "s3")
	}
	if f := fast("round-robin"); math.Abs(f-0.5) > 0.01 {
		t.Errorf("round robin sends %.3f to the fast half, want 0.5", f)
	}
	if f := fast("weighted-round-robin"); math.Abs(f-2.0/3) > 0.01 {
		t.Errorf("weighted round robin sends %.3f to the fast half, want 2/3", f)
	}
	for _, name := range []string{"least-outstanding", "p2c", "p2c-peak-ewma"} {
		if f := fast(name); f < 0.55 {
			t.Errorf("%s sends %.3f to the fast half, want it to find them (> 0.55)", name, f)
		}
	}
}

func TestScenarioClientSide(t *testing.T) {
	rep := compareScenario(t, "client-side")
	random, stale, lb := runOf(t, rep, "client-random"), runOf(t, rep, "client-p2c-stale"), runOf(t, rep, "balancers-p2c")
	if stale.Latency.P99 >= 0.8*random.Latency.P99 {
		t.Errorf("p2c-stale p99 %.1f ms should beat random's %.1f ms", stale.Latency.P99, random.Latency.P99)
	}
	if lb.Latency.P99 >= stale.Latency.P99 {
		t.Errorf("two balancers with fresh counts p99 %.1f ms should beat 100 stale clients' %.1f ms", lb.Latency.P99, stale.Latency.P99)
	}
	// Aperture against random subsets of the same size: every server gets
	// the same number of clients (29 = 25 + 4 at the window edges) and
	// nearly the same load; random subsets give 16 to 32 clients and spread
	// the load several times wider.
	for _, pair := range [][2]string{{"client-p2c", "client-p2c-aperture"}, {"client-p2c-stale", "client-p2c-stale-aperture"}} {
		sub, ap := runOf(t, rep, pair[0]), runOf(t, rep, pair[1])
		lo, hi := peerRange(ap)
		if lo < 28 || hi > 29 {
			t.Errorf("%s: %d to %d clients per server, want 29 each (28 where an edge sliver got no pick)", ap.Name, lo, hi)
		}
		if lo, hi := peerRange(sub); hi-lo < 8 {
			t.Errorf("%s: random subsets gave %d to %d clients per server, want a wide spread", sub.Name, lo, hi)
		}
		if a, s := shareSpread(ap), shareSpread(sub); a > 0.03 || a*2 > s {
			t.Errorf("load spread (coefficient of variation of the shares): aperture %.3f, random subsets %.3f", a, s)
		}
	}
	if p, q := runOf(t, rep, "client-p2c-aperture").Latency.P99, runOf(t, rep, "client-p2c").Latency.P99; p >= q {
		t.Errorf("p2c on an aperture p99 %.1f ms should beat p2c on random subsets %.1f ms", p, q)
	}
	for _, s := range lb.Servers {
		if s.Peers != 2 {
			t.Errorf("balancers-p2c: %s talks to %d balancers, want 2", s.Name, s.Peers)
		}
	}
}

// peerRange is the least and most balancers (or clients) a server of r
// talked to.
func peerRange(r *report.Run) (lo, hi int) {
	lo = math.MaxInt
	for _, s := range r.Servers {
		lo, hi = min(lo, s.Peers), max(hi, s.Peers)
	}
	return lo, hi
}

// shareSpread is the coefficient of variation of the servers' shares.
func shareSpread(r *report.Run) float64 {
	var sum, sq float64
	for _, s := range r.Servers {
		sum += s.Share
	}
	mean := sum / float64(len(r.Servers))
	for _, s := range r.Servers {
		sq += (s.Share - mean) * (s.Share - mean)
	}
	return math.Sqrt(sq/float64(len(r.Servers))) / mean
}

// gray-failure: a server that answers slowly but correctly. Breakers never
// open; outlier ejection takes it out within a second or two of the
// slowdown; p2c-peak-ewma routes around it on its own.
func TestScenarioGrayFailure(t *testing.T) {
	rep := compareScenario(t, "gray-failure")
	rr, br, out := runOf(t, rep, "round-robin"), runOf(t, rep, "breaker"), runOf(t, rep, "outlier")
	peak, both := runOf(t, rep, "p2c-peak-ewma"), runOf(t, rep, "p2c-peak-ewma+outlier")
	for _, l := range br.Log {
		if strings.HasPrefix(l.Text, "breaker ") {
			t.Errorf("a breaker moved on a server that never failed: %s", l.Text)
		}
	}
	if br.Latency.P99 != rr.Latency.P99 || br.Errors != 0 {
		t.Errorf("breakers should change nothing: p99 %.1f vs %.1f ms, %d errors", br.Latency.P99, rr.Latency.P99, br.Errors)
	}
	for _, r := range []*report.Run{out, both} {
		first := ""
		for _, l := range r.Log {
			if strings.HasPrefix(l.Text, "outlier ") && first == "" {
				first = l.Text
				if l.T < 4 || l.T > 6 {
					t.Errorf("%s: first ejection at %.2f s, want within 2 s of the slowdown at 4 s", r.Name, l.T)
				}
			}
		}
		if !strings.HasPrefix(first, "outlier gray: ejected for 5s (latency ") {
			t.Errorf("%s: first outlier event %q, want gray ejected on latency", r.Name, first)
		}
		if !strings.Contains(fmt.Sprint(r.Log), "outlier gray: ejected for 10s") {
			t.Errorf("%s: gray, still slow when it came back, should be ejected again for twice as long: %v", r.Name, r.Log)
		}
	}
	if out.Latency.P99*5 > rr.Latency.P99 || share(t, out, "gray") > 0.1 {
		t.Errorf("outlier ejection: p99 %.1f ms (round robin %.1f ms), gray's share %.3f", out.Latency.P99, rr.Latency.P99, share(t, out, "gray"))
	}
	if peak.Latency.P99*5 > rr.Latency.P99 || share(t, peak, "gray") > 0.1 {
		t.Errorf("p2c-peak-ewma alone: p99 %.1f ms (round robin %.1f ms), gray's share %.3f", peak.Latency.P99, rr.Latency.P99, share(t, peak, "gray"))
	}
	if share(t, both, "gray") >= share(t, peak, "gray") {
		t.Errorf("ejection on top of p2c-peak-ewma should send gray less: %.3f vs %.3f", share(t, both, "gray"), share(t, peak, "gray"))
	}
}

// slow-start: s5 restarts with a cold cache at 9 s. Weighted round robin
// floods it (its queue grows for seconds and the tail with it); with slow
// start its queue stays short. p2c protects it partly on its own.
func TestScenarioSlowStart(t *testing.T) {
	rep := compareScenario(t, "slow-start")
	wrr, wrrSS := runOf(t, rep, "weighted-round-robin"), runOf(t, rep, "wrr+slow-start")
	p2c, p2cSS := runOf(t, rep, "p2c"), runOf(t, rep, "p2c+slow-start")
	if !strings.Contains(fmt.Sprint(wrr.Log), "health: s5 back in rotation") {
		t.Fatalf("s5 never came back: %v", wrr.Log)
	}
	peak := func(r *report.Run) int { // s5's most requests queued or in service in the 5 s after the restart
		most := 0
		for _, b := range r.Series {
			if b.T >= 9 && b.T < 14 {
				most = max(most, b.InServer[4])
			}
		}
		return most
	}
	if peak(wrr) < 50 || peak(wrrSS) > 10 {
		t.Errorf("s5's queue after the restart: %d without slow start (want a flood, >= 50), %d with (want <= 10)", peak(wrr), peak(wrrSS))
	}
	if wrrSS.Latency.P99*1.5 > wrr.Latency.P99 {
		t.Errorf("slow start p99 %.1f ms should be well below weighted round robin's %.1f ms", wrrSS.Latency.P99, wrr.Latency.P99)
	}
	if peak(p2cSS) >= peak(p2c) || peak(p2c) > 20 {
		t.Errorf("p2c keeps s5's queue at %d by itself, %d with slow start", peak(p2c), peak(p2cSS))
	}
	if share(t, wrrSS, "s5") >= share(t, wrr, "s5") {
		t.Errorf("s5's share with slow start %.3f should be below %.3f", share(t, wrrSS, "s5"), share(t, wrr, "s5"))
	}
}

func TestScenarioBallsBins(t *testing.T) {
	rep := compareScenario(t, "balls-bins")
	fullest := func(name string) (max, mean float64) {
		r := runOf(t, rep, name)
		for _, s := range r.Servers {
			max = math.Max(max, float64(s.Sent))
			mean += float64(s.Sent)
		}
		return max, mean / float64(len(r.Servers))
	}
	if max, mean := fullest("one-choice"); max < mean+20 {
		t.Errorf("one choice: fullest bin %.0f, want at least 20 over the average %.1f", max, mean)
	}
	if max, mean := fullest("two-choices"); max > mean+3 {
		t.Errorf("two choices: fullest bin %.0f, want within 3 of the average %.1f", max, mean)
	}
	max2, _ := fullest("two-choices")
	if max3, _ := fullest("three-choices"); max3 > max2 {
		t.Errorf("three choices %.0f should not be worse than two %.0f", max3, max2)
	}
}

func TestScenarioPlayground(t *testing.T) {
	rep := compareScenario(t, "playground")
	if r := rep.Runs[0]; r.Goodput < 0.999 || r.Requests < 3800 {
		t.Errorf("playground: %d requests, goodput %.4f", r.Requests, r.Goodput)
	}
}

// The narrations hold beyond the lab's own seed: every scenario on seeds
// 2 and 3 (without the invariant checks, which the seeded tests above run),
// every claim but those that hold on some seeds only. retry-storm runs on
// more: its claim that nothing storms before the trigger is what a lab on
// the edge of collapse fails on a few seeds only.
func TestScenarioClaimsOnMoreSeeds(t *testing.T) {
	for _, name := range scenarios.Names() {
		seeds := []uint64{2, 3}
		if name == "retry-storm" {
			seeds = []uint64{2, 3, 4, 5, 6}
		}
		for _, seed := range seeds {
			lab := loadScenario(t, name)
			lab.Seed = seed
			rep, err := Compare(lab, allSettings(lab), Options{Series: true})
			if err != nil {
				t.Fatalf("%s seed %d: %v", name, seed, err)
			}
			assertClaims(t, name, rep, true)
		}
	}
}

// Bounded loads keep their bound while a breaker holds a server out (issue
// 12): s1 turns slow and failing, so its breaker opens while it still holds
// many requests. The capacity used to count s1 and its requests, which let
// the others fill far beyond ceil((1+eps)(T+1)/m) of the servers that can
// take requests (and the walk then fell back to the ring owner over even
// that). Check mode asserts the bound at every pick.
func TestBoundedLoadsWithAServerOut(t *testing.T) {
	lab, err := labfile.Parse("bounded.yaml", []byte(`
duration: 6s
clients: {rate: 300}
balancers:
  algorithm: ring-hash-bounded
  breaker: {enabled: true}
servers:
  - {count: 3, workers: 2}
events:
  - {at: 1s, action: slow, target: s1, speed: 0.05}
  - {at: 1s, action: errors, target: s1, share: 0.6}
`))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(res.Run.Log), "breaker s1: closed -> open") {
		t.Fatalf("s1's breaker never opened: %v", res.Run.Log)
	}
}

// Every built-in scenario runs under the invariant checks somewhere in this
// package's tests: a compareScenario call (which turns Check on) or the list
// of TestInvariantsAllScenarios. A new scenario without one fails here.
func TestEveryScenarioRunsChecked(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	checked := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if id, ok := x.Fun.(*ast.Ident); ok && id.Name == "compareScenario" && len(x.Args) > 1 {
					if lit, ok := x.Args[1].(*ast.BasicLit); ok {
						checked[strings.Trim(lit.Value, `"`)] = true
					}
				}
			case *ast.FuncDecl:
				if x.Name.Name == "TestInvariantsAllScenarios" {
					ast.Inspect(x, func(n ast.Node) bool {
						if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							checked[strings.Trim(lit.Value, `"`)] = true
						}
						return true
					})
				}
			}
			return true
		})
	}
	for _, name := range scenarios.Names() {
		if !checked[name] {
			t.Errorf("scenario %s never runs with the invariant checks on", name)
		}
	}
}

// handshakes: a client that keeps its subset of 5 meets its servers often
// enough to keep its connections warm; one that picks from all 20 pays a
// handshake on about two requests in three, which makes the best-balanced
// choice lose to the subset; sticking to a pick for 10 requests saves
// handshakes but balances on older news; two balancers with warm
// connections spare the clients their handshakes and, once handshakes are
// dear (TLS), beat the cold clients.
func TestScenarioHandshakes(t *testing.T) {
	rep := compareScenario(t, "handshakes")
	sub, all, free := runOf(t, rep, "subset-5"), runOf(t, rep, "all-20"), runOf(t, rep, "all-20-free")
	sticky, lb, ap := runOf(t, rep, "all-20-sticky"), runOf(t, rep, "balancers-2"), runOf(t, rep, "aperture-5")
	subTLS, allTLS, lbTLS := runOf(t, rep, "subset-5-tls"), runOf(t, rep, "all-20-tls"), runOf(t, rep, "balancers-2-tls")
	for _, r := range rep.Runs {
		if r.Goodput != 1 || (r.Connections == nil) != (r.Name == "all-20-free") {
			t.Fatalf("%s: connections %+v, goodput %v", r.Name, r.Connections, r.Goodput)
		}
	}
	if s, a := sub.Connections.PerRequest, all.Connections.PerRequest; a < 2*s || a < 0.5 {
		t.Errorf("handshakes per request: subset of 5 %.3f, all 20 %.3f; want all 20 to pay over half its requests and twice the subset's", s, a)
	}
	// An aperture of 5 meets as few servers as a random subset of 5 (about
	// its handshakes) and spreads the load like all 20 (not like the subset).
	if a, s := ap.Connections.PerRequest, sub.Connections.PerRequest; a > 1.25*s {
		t.Errorf("handshakes per request: aperture of 5 %.3f, want about the subset's %.3f", a, s)
	}
	if a, s, f := shareSpread(ap), shareSpread(sub), shareSpread(all); a*2 > s || a > 1.25*f {
		t.Errorf("load spread (cv of the shares): aperture %.3f, subset %.3f, all 20 %.3f; want the aperture's under half the subset's and about all 20's", a, s, f)
	}
	if c, s := float64(lb.Connections.ByClients)/float64(lb.Requests), sub.Connections.PerRequest; c > s/2 {
		t.Errorf("behind two balancers the clients open %.3f connections per request, want under half the subset's %.3f", c, s)
	}
	if s, a := sticky.Connections.PerRequest, all.Connections.PerRequest; s > a/3 {
		t.Errorf("sticky 10 pays %.3f handshakes per request, want under a third of a fresh pick per request (%.3f)", s, a)
	}
	if sticky.Latency.P999 <= all.Latency.P999 {
		t.Errorf("sticky 10 p99.9 %.1f ms should lose to a fresh pick per request (%.1f ms): it balances on older news", sticky.Latency.P999, all.Latency.P999)
	}
	// The subset beats picking from all 20, with and without TLS; all 20
	// would beat both were handshakes free.
	for _, pair := range [][2]*report.Run{{sub, all}, {subTLS, allTLS}} {
		s, a := pair[0].Latency, pair[1].Latency
		if s.P50 >= a.P50 || s.Mean >= a.Mean || s.P99 >= a.P99 {
			t.Errorf("%s (p50 %.1f, mean %.1f, p99 %.1f ms) should beat %s (%.1f, %.1f, %.1f)", pair[0].Name, s.P50, s.Mean, s.P99,
				pair[1].Name, a.P50, a.Mean, a.P99)
		}
	}
	if f, s := free.Latency, sub.Latency; f.P50 >= s.P50 || f.P99 >= s.P99 || all.Latency.P50-f.P50 < 5 {
		t.Errorf("all 20 without handshakes (p50 %.1f, p99 %.1f ms) should beat the subset (%.1f, %.1f) and all 20 with them (p50 %.1f)",
			f.P50, f.P99, s.P50, s.P99, all.Latency.P50)
	}
	// Two balancers with warm connections beat cold clients in the tail,
	// and with TLS everywhere.
	if lb.Latency.P99 >= all.Latency.P99 {
		t.Errorf("p99: two balancers %.1f ms should beat 100 cold clients picking from all 20 (%.1f ms)", lb.Latency.P99, all.Latency.P99)
	}
	if l, a := lbTLS.Latency, allTLS.Latency; l.P50 >= a.P50 || l.Mean >= a.Mean || l.P99 >= a.P99 {
		t.Errorf("with TLS, two balancers (p50 %.1f, mean %.1f, p99 %.1f ms) should beat cold clients (%.1f, %.1f, %.1f)",
			l.P50, l.Mean, l.P99, a.P50, a.Mean, a.P99)
	}
	for _, name := range []string{"subset-5", "all-20", "balancers-2"} {
		tcp, tls := runOf(t, rep, name).Connections, runOf(t, rep, name+"-tls").Connections
		if ratio := (tls.HandshakeMs / float64(tls.Handshakes)) / (tcp.HandshakeMs / float64(tcp.Handshakes)); math.Abs(ratio-2) > 0.01 {
			t.Errorf("%s: a TLS handshake costs %.2f times a TCP one, want 2", name, ratio)
		}
	}
	for _, s := range all.Servers {
		if s.Connections == 0 {
			t.Errorf("all-20: no connection opened to %s", s.Name)
		}
	}
}
