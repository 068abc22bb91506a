// Package archtest enforces the import rules of docs/architecture.md and
// keeps the wall clock, global randomness, goroutines and the operating
// system out of the clock-free packages (the policy code that runs both live
// and in the simulator). The checks are type-checked (go/packages), so an
// aliased or dot import, or time.Now taken as a value, cannot slip past, and
// a rule that names a package that no longer exists fails instead of passing
// silently. It also keeps build outputs out of the tree (tree_test.go) and
// the algorithm lists in step (names_test.go).
package archtest

import (
	"slices"
	"sync"
	"testing"
)

// clockFree is the policy code: it runs live and in the simulator, on
// whichever clock its driver hands it, so it must not read one itself.
var clockFree = []string{
	"./internal/core/...",
	"./internal/policy/...",
	"./internal/client/...",
	"./internal/assemble/...",
	"./internal/workload/...",
	"./internal/sim/...",
	"./internal/stats/...",
	"./internal/rng/...",
	"./internal/clock/...",
}

// codeRules is what the code of the clock-free packages must not contain,
// checked in every non-test .go file. deps: true extends a rule to every
// module package the clock-free ones import (today internal/labfile,
// internal/report, internal/report/verdict, internal/observe,
// internal/slab, internal/assert and internal/suggest), since their code
// runs inside a simulation too. A lab file is read from disk by
// internal/labfile/labyaml, which none of them imports; the report's
// pictures and export files are in internal/report/output, which only the
// command lines import.
var codeRules = []codeRule{
	{
		name: "wall clock", in: clockFree, deps: true,
		objects: []string{"time.Now", "time.Since", "time.Until", "time.Sleep", "time.After", "time.AfterFunc",
			"time.Tick", "time.NewTimer", "time.NewTicker", "time.Timer", "time.Ticker",
			"./internal/clock.Wall", "./internal/clock.NewWall"},
		why: "a core is handed its instants by its driver (virtual in the simulator, clock.Wall in the shells); reading or waiting on the wall clock itself would make a run depend on the machine",
	},
	{
		name: "global randomness", in: clockFree, deps: true,
		imports: []string{"math/rand/...", "crypto/rand"},
		why:     "randomness comes from seeded internal/rng streams, so a simulation reproduces exactly from its seed",
	},
	{
		name: "goroutine", in: clockFree, deps: true, goStmt: true,
		why: "the simulator runs every core on one goroutine in event order; a goroutine would run in the Go scheduler's order instead",
	},
	{
		name: "concurrency or the OS", in: clockFree, deps: true,
		imports: []string{"sync/...", "os/...", "net/...", "syscall", "context", "unsafe", "github.com/valyala/fasthttp/...", "gonum.org/v1/..."},
		why:     "cores are single-threaded state machines; locks, files, sockets, signals and deadlines belong to the shells (context deadlines run on wall-clock timers, and unsafe could reach the runtime's clock behind these rules); nor do they link gonum (its plots open files; the t quantile of the seeds' intervals is stats/confidence's own)",
	},
}

// wallExemptions is the one wall-clock implementation: clock.Wall, which only
// the shells construct and hand to the cores as a clock.Clock. The exemption
// names the two functions, not the package, so the rest of internal/clock
// (Instant arithmetic, Manual) stays under the rules; an exemption that no
// longer matches anything fails the test.
var wallExemptions = []exemption{
	{pkg: "./internal/clock", fn: "NewWall", obj: "time.Now", why: "a wall clock's epoch is the wall time it was made"},
	{pkg: "./internal/clock", fn: "(*Wall).Now", obj: "time.Since", why: "a wall clock reads the monotonic time since its epoch"},
}

// importRules are the import directions. Each holds through any chain of
// imports; cmd/* may import anything.
var importRules = []importRule{
	{
		from: []string{"./internal/clock/..."}, deny: []string{"./...", "github.com/valyala/fasthttp/..."},
		why: "clock is the leaf every core imports",
	},
	{
		from: []string{"./internal/rng/..."}, deny: []string{"./..."},
		why: "rng is a leaf: seeded streams and distributions only",
	},
	{
		from: []string{"./internal/stats/..."}, deny: []string{"./internal/core/...", "./internal/sim/...", "./internal/policy/..."},
		why: "stats is the measuring layer under the cores",
	},
	{
		from: []string{"./internal/core/..."},
		deny: []string{"./internal/sim/...", "./internal/policy/...", "./internal/shell/...", "./internal/labfile/...",
			"net/...", "github.com/valyala/fasthttp/...", "github.com/prometheus/client_golang/..."},
		why: "a core is one mechanism, written once for both drivers, knowing nothing of settings files, the network or metrics",
	},
	{
		from: []string{"./internal/core/..."}, deny: []string{"./internal/core/..."},
		allow: []edge{
			{from: "./internal/core/balance", to: "./internal/core/load", why: "the pickers read the per-server load figures (load.Stat, load.Table)"},
			{from: "./internal/core/server", to: "./internal/core/limit", why: "a server admits work through its concurrency limit (limit.Limit)"},
			{from: "./internal/core/server", to: "./internal/core/load", why: "a server makes the one load report (load.Report) about itself"},
		},
		why: "cores are composed by internal/policy, not by each other, except for the edges listed",
	},
	{
		from: []string{"./internal/policy/..."},
		deny: []string{"./internal/sim/...", "./internal/shell/...", "./internal/labfile/...", "net/...", "github.com/valyala/fasthttp/..."},
		why:  "policy composes the cores for both drivers",
	},
	{
		from: []string{"./internal/client/..."},
		deny: []string{"./internal/sim/...", "./internal/shell/...", "net/...", "github.com/valyala/fasthttp/..."},
		why:  "the client runtime is written once for both drivers; each drives it through its Transport (it takes its settings typed, from internal/assemble)",
	},
	{
		from: []string{"./internal/client/...", "./internal/report"},
		deny: []string{"./internal/labfile/...", "github.com/goccy/go-yaml/..."},
		why: "the client runtime and the report it fills (the recorder, the report's types, tables and JSON) link no lab-file parser and no YAML: " +
			"what reads a lab to judge a report (the recovery verdicts on its script) is internal/report/verdict, and the headline names are the report's own (report.Headlines, which labfile's report.headline takes)",
	},
	{
		from: []string{"./internal/sim/...", "./internal/assemble/...", "./internal/client/...", "./internal/labfile"},
		deny: []string{"github.com/goccy/..."},
		why: "the simulator, the runtime and the lab model (labfile's schema, defaults, checks and drills) link no YAML parser: " +
			"internal/labfile/labyaml reads and writes lab files as YAML, and the others are handed the parsed labfile.Lab",
	},
	{
		from: []string{"./internal/workload/..."},
		deny: []string{"./internal/sim/...", "./internal/shell/...", "./internal/core/server", "net/..."},
		why:  "workload generates arrivals for both drivers",
	},
	{
		from: []string{"./internal/labfile/..."}, deny: []string{"./internal/sim/...", "./internal/shell/...", "net/..."},
		why: "labfile parses settings; it runs nothing",
	},
	{
		from: []string{"./internal/labfile/..."}, deny: []string{"./internal/proxies/..."},
		why: "labfile parses and checks lab files and knows no proxy: internal/proxies hands it the kinds and their refusals (labfile.UseTiers)",
	},
	{
		from: []string{"./internal/proxies/..."},
		deny: []string{"./internal/lab/...", "./internal/shell/...", "./internal/sim/...", "net/...", "os/exec", "text/template"},
		why: "what the proxies are is linked by every program that reads lab files (the daemons, the page's wasm module, for labfile.UseTiers): " +
			"it writes their configurations as text and runs nothing; internal/lab starts them and renders kind: command's templates",
	},
	{
		from: []string{"./internal/assemble/..."},
		deny: []string{"./internal/sim/...", "./internal/shell/...", "net/...", "github.com/valyala/fasthttp/..."},
		why:  "assemble builds the policy objects for both drivers",
	},
	{
		from: []string{"./internal/sim/..."}, deny: []string{"./internal/shell/...", "net/...", "github.com/valyala/fasthttp/..."},
		why: "the simulator drives the policy code on virtual time, without the live shells",
	},
	{
		from: []string{"./internal/shell/..."}, deny: []string{"./internal/sim/..."},
		why: "the shells drive the policy code on the wall clock, without the simulator",
	},
	{
		from: []string{"./internal/shell/lb", "./internal/shell/backend", "./internal/shell/loadgen", "./internal/shell/conns"},
		deny: []string{"./internal/shell/lb", "./internal/shell/backend", "./internal/shell/loadgen"},
		why:  "each shell is its own process; they share only the HTTP contract of internal/shell/wire, the JSON of their answers in internal/shell/state and the live connections of internal/shell/conns",
	},
	{
		from: []string{"./internal/lab/..."}, deny: []string{"./internal/sim/..."},
		why: "lab drives the live processes; cmd/lab is where the simulator is wired in",
	},
	{
		from: []string{"./internal/lab/proc", "./internal/lab/admin"},
		deny: []string{"./internal/lab/attach", "./internal/lab/control", "./internal/lab/gather", "./internal/lab/dash"},
		why:  "a child process and the calls to its admin API know no controller, no reading of the fleet and no dashboard: internal/lab's run and fleet start them, and the others are handed them",
	},
	{
		from: []string{"./internal/lab/gather"}, deny: []string{"./internal/lab/control", "./internal/lab/attach"},
		why: "gather reads the processes into readings and figures, whoever serves them: the controller is handed the readings (control.Run)",
	},
	{
		from: []string{"./internal/lab/control"}, deny: []string{"./internal/lab/gather", "./internal/lab/attach"},
		why: "the controller sees a run only as a control.Run (its readings, its processes, its drills): internal/lab's run and lab dashboard's attach implement it",
	},
	{
		from: []string{"./internal/lab/dash"}, deny: []string{"./internal/lab/proc", "./internal/lab/admin", "./internal/lab/control", "./internal/lab/gather", "./internal/lab/attach"},
		why: "the snapshot is both clocks' (lab watch and the page's wasm module build it too): it knows no live process nor how they are read",
	},
	{
		from: []string{"./internal/lab/dash", "./internal/shell/state"},
		deny: []string{"./internal/shell/lb", "./internal/shell/backend", "./internal/shell/loadgen", "./internal/shell/wire",
			"./internal/metrics", "github.com/valyala/fasthttp/...", "github.com/prometheus/client_golang/...", "go.uber.org/zap/..."},
		why: "the dashboard's snapshot and the processes' answers are what the page's wasm module links (make site, TestPageModuleLinksNoProcess): no process, no fasthttp, Prometheus or zap",
	},
}

// knownImportViolations and knownCodeViolations are violations the code
// has today and is being refactored away from: each is logged, not failed,
// and an entry that no longer occurs fails (delete it). Import entries read
// "import direction: a -> b -> c", code entries "file: rule: code" (no line,
// so edits elsewhere in the file keep the entry), as the tests print them.
// Empty them as the code is fixed; never add to them.
var (
	knownImportViolations = []string{}
	knownCodeViolations   = []string{}
)

// lblab is the module under test, loaded once for all the tests.
var lblab = sync.OnceValue(func() *tree { return loadTree("../..", scopeOf(codeRules)) })

// scopeOf returns the packages rules hold for (loadTree adds what they
// import from the module).
func scopeOf(rules []codeRule) []string {
	var scope []string
	for _, r := range rules {
		scope = append(scope, r.in...)
	}
	return scope
}

// TestTreeLoadsAndRulesMatch fails when the module does not load or
// type-check, or when a rule names a package, directory or object that does
// not exist (a rename would otherwise make the rule pass without checking
// anything).
func TestTreeLoadsAndRulesMatch(t *testing.T) {
	t.Parallel()
	tr := lblab()
	for _, e := range tr.errs {
		t.Error(e)
	}
	for _, e := range ruleErrors(tr, codeRules, wallExemptions, importRules) {
		t.Error(e)
	}
}

func TestImportDirections(t *testing.T) {
	t.Parallel()
	tr := lblab()
	if len(tr.errs) > 0 {
		t.Fatalf("the module did not load (see TestTreeLoadsAndRulesMatch): %s", tr.errs[0])
	}
	judge(t, tr.checkImports(importRules), knownImportViolations)
}

func TestClockFreeCode(t *testing.T) {
	t.Parallel()
	tr := lblab()
	if len(tr.errs) > 0 {
		t.Fatalf("the module did not load (see TestTreeLoadsAndRulesMatch): %s", tr.errs[0])
	}
	found, used := tr.checkCode(codeRules, wallExemptions)
	for _, e := range wallExemptions {
		if !used[e] {
			t.Errorf("exemption of %s in %s %s matches nothing: remove it", e.obj, e.pkg, e.fn)
		}
	}
	judge(t, found, knownCodeViolations)
}

// ruleErrors returns what is wrong with the rule tables against tr: every
// pattern must name something (each is checked once, named by the first
// rule that uses it), every object must exist.
func ruleErrors(tr *tree, code []codeRule, exempt []exemption, imports []importRule) []string {
	var errs []string
	checked := map[string]bool{}
	check := func(what string, patterns ...string) {
		for _, p := range patterns {
			if !checked[p] {
				checked[p] = true
				errs = append(errs, tr.checkPatterns(what, []string{p})...)
			}
		}
	}
	for _, r := range code {
		check("code rule "+r.name, r.in...)
		check("code rule "+r.name, r.imports...)
	}
	errs = append(errs, tr.checkObjects(code)...)
	for _, e := range exempt {
		check("exemption of "+e.obj+" in "+e.fn, e.pkg)
	}
	for _, r := range imports {
		what := "import rule (" + r.why + ")"
		check(what, r.from...)
		check(what, r.deny...)
		for _, e := range r.allow {
			check(what, e.from, e.to)
		}
	}
	return errs
}

// judge fails on every violation not in known, logs the known ones, and
// fails on every known entry that no longer occurs.
func judge(t *testing.T, found []violation, known []string) {
	t.Helper()
	seen := map[string]bool{}
	for _, v := range found {
		seen[v.key()] = true
		if slices.Contains(known, v.key()) {
			t.Logf("known violation, to fix: %s", v)
			continue
		}
		t.Errorf("%s\n\tin %s: %s", v, v.pkg, v.why)
	}
	for _, k := range known {
		if !seen[k] {
			t.Errorf("known violation %q no longer occurs: remove it from the list", k)
		}
	}
}
