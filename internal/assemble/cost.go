package assemble

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
)

// The cost estimate of a whole lab: every number of a lab file has its own
// bound, but their products do not (10,000 servers x a cache of 1,000,000
// entries, 10,000 servers x 10,000 ring-hash vnodes, 1,000,000 clients x a
// maglev table each). Cost multiplies them out, before anything runs, into
// the memory the lab's objects may take and the CPU time building and
// simulating them takes; CheckCost refuses a lab over its budget, naming the
// products. The per-item sizes and speeds are measured approximations: the
// estimate is meant to be right within a small factor, which is what a
// budget needs.
const (
	cacheEntryBytes = 32   // a cached key: key, two links, two table positions (the table is at most half full)
	queueSlotBytes  = 64   // a waiting place, allocated up front for a bounded queue
	ringPointBytes  = 16   // a ring-hash point: hash and server
	maglevSlotBytes = 4    // a maglev table slot
	pickerBytes     = 512  // a balancer's own state
	memberBytes     = 208  // a balancer's figures for one of its servers (load, breaker, outlier, its place in the picker)
	serverBytes     = 3840 // an emulated server (its core, queue, counters) and what the simulator keeps of it (measured: 10,000 servers, 37 MiB)

	eventCost = 100 * time.Nanosecond // a simulator event (about 11 million a second on one core)
	sortCost  = 11 * time.Nanosecond  // a step of sorting or filling a ring or a maglev table (measured: 1e7 ring points in 2.5 s)
	// scanCost is one member visited by a pick of an algorithm that scans
	// them all (balance.Caps.Scans), at the dearest of them,
	// least-response-time, whose visit decays a latency average (measured:
	// 3e9 visits, 10,000 servers x 300,000 requests, in 105 s)
	scanCost = 35 * time.Nanosecond
	// serverCost is a simulated server's setup and what each server adds
	// to a run beyond its events: a large fleet's events miss the caches
	// more (measured: BenchmarkEstimateCPU, round robin at 2,000 requests
	// a second on 50 servers against 2,000, about 14 us a server more)
	serverCost = 10 * time.Microsecond
	// memberCost is a balancer's setup of one of its servers (its load,
	// breaker, outlier and picker entries), and the heap it adds (measured:
	// round robin in 20 clients against one balancer, 2,000 servers)
	memberCost = time.Microsecond
	// eventsPerAttempt: client -> balancer -> server -> balancer -> client,
	// the server's own wake-up and a timer.
	eventsPerAttempt = 7
)

// EstimateSlack is how far a run may exceed its estimate: the torture
// checks every drawn lab fires at most this many times the simulator events
// its estimate counts (plus EstimateFloor), and the simulator's guard stops
// a run whose work passes this many times the CPU budget (MaxWork).
const (
	EstimateSlack = 3
	EstimateFloor = 5000
)

// Work is what a simulator run has done, in events: its events and the
// servers its scanning picks visited (balance.Caps.Scans), each visit
// weighed as scanCost is to eventCost.
func Work(events, visits uint64) float64 {
	return Cost{Events: float64(events), Visits: float64(visits)}.Work()
}

// MaxWork is the most Work a run under budget b may do before the
// simulator's guard stops it (sim.Options.MaxWork): EstimateSlack times
// the events b's CPU pays for, so a lab its estimate let through and that
// costs far more than estimated stops within that many times the budget.
func MaxWork(b Budget) float64 {
	return EstimateSlack * float64(b.CPU) / float64(eventCost)
}

// DefaultBudget is what a lab may cost unless --max-cost raises it: far
// above every built-in scenario and every lab the torture generator draws,
// far below what takes a machine.
var DefaultBudget = Budget{Memory: 1 << 30, CPU: 2 * time.Minute}

// MaxCostFlag names the command-line flag that scales the budget.
const MaxCostFlag = "max-cost"

// Budget is what a lab may cost: bytes of memory and CPU time of one core.
type Budget struct {
	Memory float64
	CPU    time.Duration
	// Raise is how the one refused raises the budget N times, as
	// CheckCost's message ends ("" means "--max-cost N", the command
	// line's flag).
	Raise string
}

// Times is DefaultBudget times factor, the rule of --max-cost and of the
// page's max_cost: a factor that is not a finite number over 0 (0, -1,
// NaN, inf) is refused (the caller names its flag or field in front of the
// message). Any finite factor is taken: a budget past what can be counted
// is the most that can (Scaled).
func Times(factor float64) (Budget, error) {
	if !(factor > 0) || math.IsInf(factor, 1) {
		return Budget{}, fmt.Errorf("must be a finite number over 0 (the factor the cost budget is raised by), got %g", factor)
	}
	return DefaultBudget.Scaled(factor), nil
}

// Scaled is the budget times factor. It saturates: a CPU budget past the
// longest time.Duration (about 292 years) is that duration, a memory
// budget past the largest float64 that float, never a wrapped negative.
func (b Budget) Scaled(factor float64) Budget {
	return Budget{Memory: min(b.Memory*factor, math.MaxFloat64), CPU: duration(float64(b.CPU) * factor), Raise: b.Raise}
}

// duration is ns nanoseconds as a time.Duration, saturated at the longest
// one (a NaN or a negative count is 0): a product of a lab's bounds, a
// year-long lab of 100,000 closed-loop users, can pass what an int64
// holds, and converting such a float is undefined (it came out negative,
// and the estimate let the lab through).
func duration(ns float64) time.Duration {
	switch {
	case !(ns > 0):
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// addCPU is a + b, saturated as duration is (both at least 0).
func addCPU(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Term is one product of the estimate: what multiplies to what.
type Term struct {
	What   string        // "servers[0]: 10000 servers x 1000000 cache entries (cache.size ...)"
	Memory float64       // bytes
	CPU    time.Duration // of one core
	events float64       // the simulator's events it counts (eventTerm's)
	visits float64       // the servers scanning picks visit it counts
}

// Cost is the estimate of a lab: its terms and their sums (memory: the
// largest run's, since the runs of a compare come one after another; CPU:
// all runs').
type Cost struct {
	Terms  []Term
	Memory float64
	CPU    time.Duration
	// Events is the simulator's events the estimate counts, over the runs
	// (0 live): the torture checks every lab's against what it fired.
	Events float64
	// Visits is the servers the runs' scanning picks visit
	// (balance.Caps.Scans), as the estimate counts them.
	Visits float64
}

// Work is the simulator work the estimate counts (Work of its events and
// visits): what the torture checks a run's against, and what the work
// guard weighs.
func (c Cost) Work() float64 { return c.Events + c.Visits*float64(scanCost)/float64(eventCost) }

// Estimate is the cost of running lab with each of settings in turn (none:
// the lab as it is): simulated when sim (the simulator's events count), live
// otherwise (the processes pace themselves, so only what they build counts).
func Estimate(lab *labfile.Lab, settings []labfile.Setting, sim bool) Cost {
	return EstimateKept(lab, settings, Kept{Sim: sim})
}

// EstimateKept is Estimate of runs that keep k: a simulator's runs count
// what they hold as they go (heldTerms) beside what they build.
func EstimateKept(lab *labfile.Lab, settings []labfile.Setting, k Kept) Cost {
	runs, names := []*labfile.Lab{lab}, []string{""}
	if len(settings) > 0 {
		runs, names = nil, nil
	}
	for _, s := range settings {
		if l, err := lab.WithSetting(s); err == nil { // a setting that does not apply is refused elsewhere
			runs, names = append(runs, l), append(names, s.Name)
		}
	}
	var c Cost
	for i, run := range runs {
		terms := runCost(run, k)
		var mem float64
		for _, t := range terms {
			if len(runs) > 1 {
				t.What = "setting " + names[i] + ": " + t.What
			}
			mem += t.Memory
			c.CPU = addCPU(c.CPU, t.CPU)
			c.Events += t.events
			c.Visits += t.visits
			c.Terms = append(c.Terms, t)
		}
		c.Memory = max(c.Memory, mem)
	}
	return c
}

func runCost(lab *labfile.Lab, k Kept) []Term { return costOf(lab, k, true) }

// costOf is runCost; with script, the table and the scans are those of
// the costliest algorithm the lab or its script sets (an algorithm event,
// a set of balancers.vnodes), over the servers its add-server events may
// add; without, the lab's as it is (the simulator's look at the lab its
// script has changed so far, Built).
func costOf(lab *labfile.Lab, k Kept, script bool) []Term {
	var terms []Term
	add := func(t Term) {
		if t.Memory > 0 || t.CPU > 0 {
			terms = append(terms, t)
		}
	}
	servers := 0
	for i, g := range lab.Servers {
		n := float64(g.Count)
		servers += g.Count
		where := fmt.Sprintf("servers[%d]", i)
		add(Term{What: fmt.Sprintf("%s: %d servers", where, g.Count), Memory: n * serverBytes, CPU: simOnly(k, n*float64(serverCost))})
		if size := g.Cache.Size; size > 0 {
			entries := min(size, lab.Clients.Keys) // a cache holds no more keys than there are
			add(Term{What: fmt.Sprintf("%s: %d servers x %d cache entries (the smaller of cache.size %d and clients.keys %d)",
				where, g.Count, entries, size, lab.Clients.Keys), Memory: n * float64(entries) * cacheEntryBytes})
		}
		if q := g.Queue.Capacity; q > 0 {
			add(Term{What: fmt.Sprintf("%s: %d servers x %d queue places (queue.capacity, allocated up front)", where, g.Count, q),
				Memory: n * float64(q) * queueSlotBytes})
		}
	}
	states, added := []*labfile.Lab{lab}, 0
	if script {
		scripted, seen := lab.Clone(), map[string]bool{keyOf(lab): true}
		for _, e := range lab.Events {
			if e.Action == labfile.ActionAddServer {
				added++
				continue
			}
			scripted.Record(e)
			if key := keyOf(scripted); !seen[key] {
				seen[key] = true
				states = append(states, scripted.Clone())
			}
		}
		if added > 0 {
			add(Term{What: fmt.Sprintf("%d servers the script's add-server events add", added), Memory: float64(added) * serverBytes})
		}
	}
	pickers, who := lab.Balancers.Count, "balancers.count"
	if ClientSide(lab) {
		pickers, who = lab.Clients.Count, "clients.count: client-side, one per client"
	}
	servers += added
	p, s := float64(pickers), float64(servers)
	add(Term{What: fmt.Sprintf("%d balancers (%s) x %d servers", pickers, who, servers), Memory: p * (pickerBytes + s*memberBytes), CPU: simOnly(k, p*s*float64(memberCost))})
	var table, scans Term
	for i, st := range states {
		algorithm := st.Balancers.Algorithm
		if ClientSide(st) {
			algorithm = st.Clients.Algorithm
		}
		by := ""
		if i > 0 {
			by = fmt.Sprintf(" (the script sets %s)", algorithm)
		}
		caps := balance.CapsOf(algorithm)
		if caps.Keyed { // the table each balancer builds (balance.Table)
			cfg := BalancerConfig(st, 0).Algorithm
			t := float64(balance.Table(algorithm, cfg, servers))
			what, bytes := fmt.Sprintf("%d balancers (%s) x %d servers x %d balancers.vnodes = %s ring points%s", pickers, who, servers, st.Balancers.VNodes, count(p*t), by), ringPointBytes
			if algorithm == "maglev" {
				what, bytes = fmt.Sprintf("%d balancers (%s) x a maglev table of %s slots%s", pickers, who, count(t), by), maglevSlotBytes
			}
			if m := p * t * float64(bytes); m > table.Memory {
				table = Term{What: what, Memory: m, CPU: duration(p * t * math.Log2(t+2) * float64(sortCost))}
			}
		}
		members := s
		if ClientSide(st) && st.Clients.Subset > 0 {
			members = min(s, float64(st.Clients.Subset))
		} else if !ClientSide(st) && st.Balancers.Subset > 0 {
			members = min(s, float64(st.Balancers.Subset))
		}
		if k.Sim && caps.Scans { // every pick visits each member of the balancer
			if members > scans.visits {
				scans = Term{What: algorithm + by, visits: members}
			}
		}
		if k.Sim && Localized(st) { // and the locality layer adds up each zone's members first
			visits, what := members, "balancers.locality.policy "+string(st.Balancers.Locality.Policy)+by
			if caps.Scans {
				visits, what = 2*members, algorithm+" under "+what
			}
			if visits > scans.visits {
				scans = Term{What: what, visits: visits}
			}
		}
		if k.Sim && caps.Probes && !ClientSide(st) { // every pick reads its pool of answers, and its quantile
			if members := min(s, float64(st.Balancers.Prequal.PoolSize)); members > scans.visits {
				scans = Term{What: algorithm + by + "'s pool of answers", visits: members}
			}
		}
	}
	add(table)
	if k.Sim {
		events, attempts, what, probes := eventTerm(lab, p, s)
		add(events)
		for _, t := range heldTerms(lab, k, attempts, probes, s, p) {
			add(t)
		}
		if scans.visits > 0 {
			members := scans.visits
			add(Term{What: fmt.Sprintf("%s: %s attempts picked by %s, which visits %s servers a pick", what, count(attempts), scans.What, count(members)),
				CPU: duration(attempts * members * float64(scanCost)), visits: attempts * members})
		}
	}
	return terms
}

// simOnly is ns of CPU as a duration for a simulated run, and nothing for
// a live one, whose processes pace themselves (the CPU budget is the
// simulator's).
func simOnly(k Kept, ns float64) time.Duration {
	if !k.Sim {
		return 0
	}
	return duration(ns)
}

// keyOf is what of lab decides its table and its scans: its algorithm,
// its vnodes and its subsets.
func keyOf(lab *labfile.Lab) string {
	return fmt.Sprintf("%s/%s/%d/%d/%d", lab.Balancers.Algorithm, lab.Clients.Algorithm, lab.Balancers.VNodes, lab.Balancers.Subset, lab.Clients.Subset)
}

// eventTerm is the simulator's work: requests x attempts x events each,
// and the health checks (Term.events); with the attempts it counts and how.
func eventTerm(lab *labfile.Lab, pickers, servers float64) (Term, float64, string, float64) {
	c := lab.Clients
	secs := lab.Duration.Seconds()
	// the highest load and retries the lab reaches: a load profile's peak,
	// and every level its script sets (a rate event, a set of clients.rate,
	// users or retries), each as labfile.Lab.Record carries it out
	rate, users, retries := c.Rate, float64(c.Users), c.Retries
	shaped := ""
	if p := Profile(lab); p != nil { // the rate in open loop, the users in closed loop
		if c.Mode == labfile.ClosedLoop && p.Max() > users || c.Mode != labfile.ClosedLoop && p.Max() > rate {
			shaped = " (clients.profile's peak)"
		}
		if c.Mode == labfile.ClosedLoop {
			users = max(users, p.Max())
		} else {
			rate = max(rate, p.Max())
		}
	}
	probing := func(l *labfile.Lab) float64 { // the probes a pick sends (balance.Caps.Probes)
		if balance.CapsOf(l.Balancers.Algorithm).Probes && !ClientSide(l) {
			return l.Balancers.Prequal.ProbeRate
		}
		return 0
	}
	probes := probing(lab)
	scripted := lab.Clone()
	for _, e := range lab.Events {
		scripted.Record(e)
		sc := scripted.Clients
		if sc.Rate > rate || float64(sc.Users) > users {
			shaped = " (the script's highest)"
		}
		rate, users, retries = max(rate, sc.Rate), max(users, float64(sc.Users)), max(retries, sc.Retries)
		probes = max(probes, probing(scripted))
	}
	var requests float64
	var what string
	if c.Mode == labfile.ClosedLoop {
		cycle := (c.Think + c.Work.Mean + 4*lab.Network.Hop).Seconds()
		if failsFast(lab) { // an answer without work (an error, a rejection at once) comes back after the hops
			cycle = (c.Think + 2*lab.Network.Hop).Seconds()
		}
		if partitions(lab) { // an attempt across a cut link fails at the client, with no hop
			cycle = c.Think.Seconds()
		}
		cycle = max(cycle, 1e-4)
		requests = users * secs / cycle
		what = fmt.Sprintf("clients.users %s%s x duration %v / (think + work + hops) %v", count(users), shaped, lab.Duration, time.Duration(cycle*1e9))
	} else {
		requests = rate * secs
		what = fmt.Sprintf("clients.rate %s/s%s x duration %v", count(rate), shaped, lab.Duration)
	}
	attempts := float64(1 + retries)
	events := requests * attempts * eventsPerAttempt
	picked := fmt.Sprintf("%s x %d attempts", what, 1+retries)
	what = fmt.Sprintf("%s x %d attempts x %d events = %s simulated events", what, 1+retries, eventsPerAttempt, count(events))
	if probes > 0 { // each probe is two events: its way there, its answer's way back
		p := requests * attempts * probes * 2
		events += p
		what += fmt.Sprintf(", and attempts x balancers.prequal.probe_rate %s x 2 = %s probe events", count(probes), count(p))
	}
	if Announces(lab) { // a server falls idle at most once a reply: one announcement event each, the whole run
		events += requests * attempts
		what += fmt.Sprintf(", and at most one idle announcement an attempt (balancers.algorithm jiq) = %s events", count(requests*attempts))
	}
	if h := lab.Balancers.Health; h.Enabled && h.Interval > 0 {
		checks := pickers * servers * secs / h.Interval.Seconds() * 2
		events += checks
		what += fmt.Sprintf(", and balancers x servers x duration / health.interval x 2 = %s health-check events", count(checks))
	}
	return Term{What: what, CPU: duration(events * float64(eventCost)), events: events}, requests * attempts, picked, probes
}

// partitions reports whether the links between the lab's zones may be
// cut: network.partition, or a partition drill or set of it in the script.
func partitions(lab *labfile.Lab) bool {
	if !lab.Zoned() {
		return false
	}
	if lab.Network.Partition {
		return true
	}
	for _, e := range lab.Events {
		if _, set := e.Set["network.partition"]; e.Action == labfile.ActionPartition || set {
			return true
		}
	}
	return false
}

// failsFast reports whether a request of the lab may be answered without
// its work: a fast error, a rejection at once (a cap, a full queue, a
// limit, an open breaker, no server left), a fault a request asks for. A
// closed loop of such a lab can go round as fast as its hops.
func failsFast(lab *labfile.Lab) bool {
	b := lab.Balancers
	if len(lab.Clients.Faults) > 0 || b.Breaker.Enabled || b.Health.Enabled || b.Outlier.Enabled || len(lab.Events) > 0 {
		return true
	}
	for _, g := range lab.Servers {
		if g.Errors > 0 || g.Fail || g.MaxOutstanding > 0 || g.Queue.Capacity > 0 || g.Limiter.Kind != "" || g.QueueTimeout > 0 || g.DropExpired {
			return true
		}
	}
	return false
}

// CheckCost returns nil, or an error naming the lab's largest products when
// its estimate (see Estimate) is over budget b.
func CheckCost(lab *labfile.Lab, settings []labfile.Setting, sim bool, b Budget) error {
	return CheckCostKept(lab, settings, Kept{Sim: sim}, b)
}

// roughly rounds an estimated duration to 3 significant digits or so: to
// the second from 10 s, the millisecond from 10 ms, else the microsecond
// (an estimate of 390 ms said "0s" when rounded to the second).
func roughly(d time.Duration) time.Duration {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second)
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// CheckCostKept is CheckCost of runs that keep k (EstimateKept).
func CheckCostKept(lab *labfile.Lab, settings []labfile.Setting, k Kept, b Budget) error {
	c := EstimateKept(lab, settings, k)
	var over []string
	if c.Memory > b.Memory {
		over = append(over, fmt.Sprintf("about %s of memory, over the budget of %s", Bytes(c.Memory), Bytes(b.Memory)))
	}
	if c.CPU > b.CPU {
		over = append(over, fmt.Sprintf("about %v of CPU, over the budget of %v", roughly(c.CPU), b.CPU))
	}
	if len(over) == 0 {
		return nil
	}
	terms := append([]Term(nil), c.Terms...)
	sort.SliceStable(terms, func(i, j int) bool { return share(terms[i], b) > share(terms[j], b) })
	var lines []string
	for _, t := range terms[:min(3, len(terms))] {
		line := "  " + t.What + ":"
		if t.Memory > 0 {
			line += " " + Bytes(t.Memory)
		}
		if t.CPU > 0 {
			line += fmt.Sprintf(" %v of CPU", t.CPU.Round(time.Millisecond))
		}
		lines = append(lines, line)
	}
	raise := b.Raise
	if raise == "" {
		raise = "--" + MaxCostFlag + " N"
	}
	return fmt.Errorf("the lab %q would take %s; its largest costs:\n%s\nmake them smaller, or raise the budget to N times %s of memory and %v of CPU with %s",
		lab.Name, strings.Join(over, "; and "), strings.Join(lines, "\n"), Bytes(DefaultBudget.Memory), DefaultBudget.CPU, raise)
}

// CheckDrillCost refuses a drill that would make lab cost more than b:
// the lab as the drill changes its settings (labfile.Lab.Record, the drill
// table's record: set servers.cache.size=1000000 on a large fleet) is
// checked as CheckCost checks the same lab given with settings, sim as
// there. A drill that changes no setting leaves lab as it was admitted,
// and is not checked. lab must be the caller's copy: the drill is
// recorded in it.
func CheckDrillCost(lab *labfile.Lab, settings []labfile.Setting, ev labfile.Event, sim bool, b Budget) error {
	return CheckDrillCostKept(lab, settings, ev, Kept{Sim: sim}, b)
}

// CheckDrillCostKept is CheckDrillCost of runs that keep k (EstimateKept).
func CheckDrillCostKept(lab *labfile.Lab, settings []labfile.Setting, ev labfile.Event, k Kept, b Budget) error {
	if d, ok := labfile.DrillOf(ev.Action); !ok || !d.ChangesSettings() {
		return nil
	}
	lab.Record(ev)
	return CheckCostKept(lab, settings, k, b)
}

// share is how much of budget b a term takes (the larger of its two shares).
func share(t Term, b Budget) float64 {
	return max(t.Memory/b.Memory, float64(t.CPU)/float64(b.CPU))
}

// Bytes writes a number of bytes the way the messages do: 1.5 GiB.
func Bytes(n float64) string {
	for _, u := range []struct {
		unit string
		size float64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return fmt.Sprintf("%.3g %s", n/u.size, u.unit)
		}
	}
	return fmt.Sprintf("%.0f B", n)
}

func count(n float64) string {
	if n < 1e6 {
		return fmt.Sprintf("%.0f", n)
	}
	return fmt.Sprintf("%.3g", n)
}
