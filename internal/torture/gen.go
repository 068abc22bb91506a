// Package torture draws random labs from a seed, runs each through the
// simulator with every invariant checked, and shrinks a failing lab to the
// smallest script and fleet that still fail (`lab torture`).
//
// The generator is swarm testing (Groce et al., "Swarm Testing", ISSTA
// 2012): each feature — a retry policy, breakers, health checks, shared
// load, client-side balancing, each kind of chaos — has its own coin per
// lab, so a run exercises a random subset of features together instead of
// all of them diluted, and interactions between a few features come up
// often. Everything is drawn from internal/rng, so a lab is a pure function
// of its seed.
package torture

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/rng"
)

// Drawn is one generated lab.
type Drawn struct {
	Seed     uint64
	Tree     Map
	Features []string // the swarm coins that came up, in draw order
}

// limits bound a drawn lab: its duration, its open-loop rate, its fleet,
// its users and its script. One generator draws both kinds of lab; only
// these differ.
type limits struct {
	minDuration, maxDuration time.Duration
	minRate, maxRate         float64
	maxGroups, maxCount      int // server groups, servers per group
	maxBalancers, maxUsers   int
	maxEvents                int
}

// simLimits are the simulator's, chosen so that a thousand labs with checks
// on run in well under a minute per core: a few virtual seconds, a few
// thousand requests a second, at most 18 servers to start with.
var simLimits = limits{minDuration: 3 * time.Second, maxDuration: 7 * time.Second, minRate: 50, maxRate: 8000,
	maxGroups: 3, maxCount: 6, maxBalancers: 4, maxUsers: 60, maxEvents: 14}

// liveLimits are lab torture --live's: every server and balancer is a
// process and the lab runs on the wall clock, so a lab has at most 4
// servers and 2 balancers to start with, a few hundred requests a second
// and 2 to 4 seconds.
var liveLimits = limits{minDuration: 2 * time.Second, maxDuration: 4 * time.Second, minRate: 20, maxRate: 400,
	maxGroups: 2, maxCount: 2, maxBalancers: 2, maxUsers: 20, maxEvents: 6}

// gen draws one lab.
type gen struct {
	src      *rng.Source
	lim      limits
	features []string
}

// algorithm draws a balancing algorithm the lab may use.
func (g *gen) algorithm() string { return pick(g, labfile.Algorithms) }

// coin is a swarm feature: on with probability p, recorded when on.
func (g *gen) coin(feature string, p float64) bool {
	on := g.src.Float64() < p
	if on {
		g.features = append(g.features, feature)
	}
	return on
}

func (g *gen) chance(p float64) bool          { return g.src.Float64() < p }
func (g *gen) intIn(lo, hi int) int           { return lo + g.src.Intn(hi-lo+1) }
func (g *gen) floatIn(lo, hi float64) float64 { return lo + (hi-lo)*g.src.Float64() }

// ms draws a duration in [lo, hi] milliseconds, whole milliseconds.
func (g *gen) ms(lo, hi int) time.Duration { return time.Duration(g.intIn(lo, hi)) * time.Millisecond }

// round keeps two significant digits, so printed labs stay readable.
func round(x float64) float64 {
	y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 2, 64), 64)
	return y
}

func pick[T any](g *gen, xs []T) T { return xs[g.src.Intn(len(xs))] }

// Draw generates the simulator's lab of seed.
func Draw(seed uint64) Drawn { return draw(seed, "torture", simLimits) }

// draw generates the lab of seed within lim; stream names the random
// stream, so the simulator's and the live labs of one seed differ.
func draw(seed uint64, stream string, lim limits) Drawn {
	g := &gen{src: rng.Split(seed, stream), lim: lim}
	lab := Map{{"name", fmt.Sprintf("torture-%d", seed)}, {"seed", seed}}
	tenths := func(d time.Duration) int { return int(d / (100 * time.Millisecond)) }
	duration := time.Duration(g.intIn(tenths(lim.minDuration), tenths(lim.maxDuration))) * 100 * time.Millisecond
	lab.Set("duration", duration)
	net := g.network()
	if len(net) > 0 {
		lab.Set("network", net)
	}
	work, mean := g.work()
	servers, fleet, capacity := g.servers(mean)
	clientSide := g.coin("client-side", 0.25)
	clients := g.clients(capacity, work, net.Get("hop") == time.Duration(0) && net.Get("jitter") == nil)
	bal := g.balancers(len(fleet))
	bal = append(Map{{"algorithm", g.algorithm()}}, bal...)
	if clientSide {
		g.clientSide(&clients)
	}
	lab.Set("clients", clients)
	lab.Set("balancers", bal)
	lab.Set("servers", servers)
	if events := g.script(duration, fleet, capacity, lab); len(events) > 0 {
		lab.Set("events", events)
	}
	lab = g.constrained(lab, duration, capacity, len(fleet))
	return Drawn{Seed: seed, Tree: lab, Features: g.features}
}

func (g *gen) network() Map {
	var m Map
	if g.coin("hop", 0.5) {
		m.Set("hop", g.ms(0, 5))
	}
	if g.coin("jitter", 0.3) {
		m.Set("jitter", time.Duration(g.intIn(1, 3000))*time.Microsecond)
	}
	if g.coin("connections", 0.3) { // the connection model: handshakes, keepalive, a cap per pair
		if g.coin("handshake-duration", 0.3) {
			m.Set("handshake", g.ms(0, 30))
		} else {
			m.Set("handshake", g.intIn(1, 3))
		}
		m.Set("keepalive", g.ms(0, 2000))
		if g.coin("max-conns", 0.5) {
			m.Set("max_conns", g.intIn(1, 4))
		}
		if g.coin("tls", 0.3) {
			m.Set("tls", true)
		}
	}
	return m
}

// work draws a work distribution with a mean of 0.5 to 6 ms; it returns
// the mean too.
func (g *gen) work() (Map, time.Duration) {
	mean := time.Duration(g.intIn(500, 6000)) * time.Microsecond
	switch g.src.Intn(4) {
	case 0:
		return Map{{"dist", "constant"}, {"mean", mean}}, mean
	case 1:
		return Map{{"dist", "lognormal"}, {"mean", mean}, {"cv", round(g.floatIn(0.2, 3))}}, mean
	case 2:
		fast, slow := mean/2, mean*5
		p := round(g.floatIn(0.7, 0.95))
		return Map{{"dist", "mixture"}, {"mix", List{Map{{"p", p}, {"value", fast}}, Map{{"p", round(1 - p)}, {"value", slow}}}}},
			time.Duration(p*float64(fast) + (1-p)*float64(slow))
	}
	return Map{{"mean", mean}}, mean
}

// servers draws 1 to 3 groups of 1 to 6 servers. It returns the groups,
// the servers' names and the fleet's capacity in requests per second at
// the clients' mean work (the rate is drawn against it).
func (g *gen) servers(mean time.Duration) (List, []string, float64) {
	groups := 1
	if g.coin("groups", 0.5) {
		groups = g.intIn(2, max(2, g.lim.maxGroups))
	}
	on := map[string]bool{}
	for _, f := range []string{"workers", "speed", "queue-capacity", "lifo", "drop-expired", "max-outstanding",
		"queue-timeout", "server-work", "gc", "errors", "fail", "cache", "limiter"} {
		p := 0.35
		if f == "workers" {
			p = 0.5
		}
		if f == "fail" {
			p = 0.08
		}
		on[f] = g.coin(f, p)
	}
	var out List
	var names []string
	capacity := 0.0
	for range groups {
		m := Map{}
		count := g.intIn(1, g.lim.maxCount)
		m.Set("count", count)
		workers, speed := 1, 1.0
		if on["workers"] {
			workers = g.intIn(1, 8)
			m.Set("workers", workers)
		}
		if on["speed"] && g.chance(0.7) {
			speed = round(g.floatIn(0.3, 3))
			m.Set("speed", speed)
		}
		if on["queue-capacity"] || on["lifo"] {
			q := Map{}
			if on["queue-capacity"] {
				q.Set("capacity", g.intIn(1, 40))
			}
			if on["lifo"] {
				q.Set("discipline", "lifo")
			}
			m.Set("queue", q)
		}
		if on["drop-expired"] {
			m.Set("drop_expired", true)
		}
		if on["max-outstanding"] {
			m.Set("max_outstanding", g.intIn(1, 30))
		}
		if on["queue-timeout"] {
			m.Set("queue_timeout", g.ms(5, 200))
		}
		if on["server-work"] && g.chance(0.6) {
			w, _ := g.work()
			m.Set("work", w)
		}
		if on["gc"] && g.chance(0.7) {
			every := g.ms(100, 1000)
			m.Set("gc", Map{{"every", every}, {"pause", g.ms(1, int(every/time.Millisecond)/2)}})
		}
		if on["errors"] {
			m.Set("errors", round(g.floatIn(0.01, 0.3)))
			if g.chance(0.5) {
				m.Set("error_time", g.ms(0, 20))
			}
		}
		if on["fail"] && g.chance(0.3) {
			m.Set("fail", true)
		}
		if on["cache"] {
			m.Set("cache", Map{{"size", g.intIn(1, 200)}, {"hit_factor", round(g.floatIn(0, 1))}})
		}
		if on["limiter"] {
			lo := g.intIn(1, 5)
			init := g.intIn(lo, 30)
			m.Set("limiter", Map{{"kind", pick(g, []string{"aimd", "gradient2"})}, {"min", lo}, {"initial", init}, {"max", g.intIn(init, 60)}})
		}
		if count == 1 && g.chance(0.15) {
			name := fmt.Sprintf("n%d", len(names)+1)
			m.Set("name", name)
			names = append(names, name)
		} else {
			for range count {
				names = append(names, fmt.Sprintf("s%d", len(names)+1))
			}
		}
		capacity += float64(count*workers) * speed / mean.Seconds()
		out = append(out, m)
	}
	return out, names, capacity
}

// clients draws the request source and the client policy; the open-loop
// rate is a random share of the fleet's capacity, sometimes more than it.
func (g *gen) clients(capacity float64, work Map, instant bool) Map {
	m := Map{}
	load := g.floatIn(0.1, 1.2)
	if g.coin("closed-loop", 0.25) {
		m.Set("mode", "closed")
		m.Set("users", g.intIn(1, g.lim.maxUsers))
		think := g.ms(0, 30)
		if instant && think == 0 {
			// Users that never think, on a network with no delay, whose
			// requests are refused at once, send again at the same instant
			// for ever: the simulator stops such a lab (its memory guard),
			// so it is no test of anything else.
			think = time.Millisecond
		}
		m.Set("think", think)
	} else {
		m.Set("rate", round(min(max(load*capacity, g.lim.minRate), g.lim.maxRate)))
	}
	if g.coin("clients", 0.5) {
		m.Set("count", g.intIn(1, 40))
	}
	if g.coin("zipf-activity", 0.2) {
		m.Set("activity", "zipf")
	}
	if g.coin("keys", 0.4) {
		m.Set("keys", g.intIn(1, 5000))
		m.Set("zipf", round(g.floatIn(0, 2)))
	}
	if g.coin("work-at-server", 0.15) {
		m.Set("work_at", "server")
	}
	m.Set("work", work)
	if g.coin("timeout", 0.4) {
		m.Set("timeout", g.ms(20, 1500))
	}
	if g.coin("attempt-timeout", 0.3) {
		m.Set("attempt_timeout", g.ms(5, 300))
	}
	if g.coin("retries", 0.45) {
		m.Set("retries", g.intIn(1, 4))
		b := Map{{"base", g.ms(0, 30)}}
		if g.chance(0.3) {
			b.Set("jitter", "none")
		}
		m.Set("backoff", b)
		if g.coin("budget", 0.5) {
			m.Set("budget", round(g.floatIn(0.01, 0.5)))
		}
	}
	if g.coin("client-faults", 0.2) {
		m.Set("faults", g.faults())
	}
	if g.coin("hedge", 0.3) {
		if g.chance(0.5) {
			m.Set("hedge", g.ms(1, 60).String())
		} else {
			m.Set("hedge", fmt.Sprintf("p%d", g.intIn(50, 99)))
		}
	}
	return m
}

// clientSide makes the clients balance themselves.
func (g *gen) clientSide(m *Map) {
	m.Set("algorithm", g.algorithm())
	if g.coin("client-subset", 0.5) {
		m.Set("subset", g.intIn(1, 6))
	}
	if g.coin("client-refresh", 0.5) {
		m.Set("refresh", g.ms(20, 500))
	}
	if g.coin("retry-other", 0.3) {
		m.Set("retry_other", true)
	}
	if g.coin("sticky", 0.3) {
		m.Set("sticky", g.intIn(2, 20))
		if g.coin("sticky-age", 0.3) {
			m.Set("sticky_age", g.ms(10, 2000))
		}
	}
}

// balancers draws the balancer tier: its size within the limits, then
// every other setting the lab file declares for it (labfile.Leaves), each
// from the range or words its check allows (labfile's AllowedAt, through
// value), so a setting added to the lab file is drawn with no edit here. A
// section (breaker, outlier, ...) is one swarm feature, on with every
// field drawn and enabled set; a setting of the tier itself is a feature of
// its own. Client-side labs get a tier too: their clients take the tier's
// breaker settings, and a set event may hand the balancing back to it.
func (g *gen) balancers(servers int) Map {
	m := Map{}
	if g.coin("balancers", 0.4) {
		m.Set("count", g.intIn(2, max(2, g.lim.maxBalancers)))
	}
	leaves := labfile.Leaves("balancers")
	for i := 0; i < len(leaves); {
		name, section := tierName(leaves[i].Path)
		if section == "" {
			if !drawnApart[leaves[i].Path] && g.coin(tierFeature(name), 0.25) {
				if v, ok := g.value(leaves[i]); ok {
					g.keep(&m, name, v)
				}
			}
			i++
			continue
		}
		j := i
		for j < len(leaves) && strings.HasPrefix(leaves[j].Path, "balancers."+section+".") {
			j++
		}
		if drawnApart["balancers."+section] {
			i = j
			continue
		}
		if g.coin(tierFeature(section), 0.35) {
			sec := Map{}
			for _, l := range leaves[i:j] {
				if v, ok := g.value(l); ok {
					sec.Set(strings.TrimPrefix(l.Path, "balancers."+section+"."), v)
				}
			}
			g.keep(&m, section, sec)
		}
		i = j
	}
	if sub, ok := m.Get("subset").(int); ok && sub > servers {
		m.Set("subset", max(1, sub%(servers+1)))
	}
	return m
}

// drawnApart are the tier's settings drawn elsewhere: its size (the
// limits), the algorithm, and the aperture (constrained: it needs an
// algorithm of the p2c family).
var drawnApart = map[string]bool{"balancers.count": true, "balancers.algorithm": true,
	"balancers.aperture": true, "balancers.aperture_load": true,
	// what runs the tier live (an external proxy): the simulator ignores it
	"balancers.kind": true, "balancers.command": true}

// tierName splits a balancers.* path into its name under the tier and the
// section it is in ("" for a setting of the tier itself).
func tierName(path string) (name, section string) {
	name = strings.TrimPrefix(path, "balancers.")
	if sec, _, ok := strings.Cut(name, "."); ok {
		return name, sec
	}
	return name, ""
}

// tierFeature names the swarm feature of a tier setting or section: its
// name with dashes, but for the names the summaries have always used.
func tierFeature(name string) string {
	switch name {
	case "load":
		return "shared-load"
	case "timeout", "refresh":
		return "balancer-" + name
	}
	return strings.ReplaceAll(name, "_", "-")
}

// keep sets key to v in the tier m when the lab file takes the tier with
// it. A field of v that a rule between fields refuses (max_ejection below
// base_ejection) is left out, to its default, and the rest kept.
func (g *gen) keep(m *Map, key string, v any) {
	for range 8 {
		cand := deepCopy(*m).(Map)
		cand.Set(key, v)
		_, err := labfile.Parse("draw", Map{{"balancers", cand}}.YAML())
		if err == nil {
			*m = cand
			return
		}
		sec, ok := v.(Map)
		if !ok {
			return
		}
		var le *labfile.Error
		if !errors.As(err, &le) {
			return
		}
		field := strings.TrimPrefix(le.Field, "balancers."+key+".")
		if field == le.Field || sec.Get(field) == nil {
			return
		}
		v = without(sec, field)
	}
}

// allowed is what the lab file allows at each setting, as its checks say.
var allowed = labfile.Default().AllowedAt()

// The scale of a drawn value: a range is drawn from its least value up to
// this much above it (or its most, when less), so a lab of a few seconds
// sees its timers fire and its windows fill.
const (
	intSpan   = 10
	floatSpan = 3.0
	timeSpan  = 500 * time.Millisecond
)

// value draws a value of leaf l from what the lab file allows at it: in
// its range (at the scale above), one of its words, or true for a
// boolean (a section's enabled). ok is false for a leaf with none of
// these (free text): it is left to its default.
func (g *gen) value(l labfile.Leaf) (v any, ok bool) {
	a := allowed[l.Path]
	switch r := a.Range.(type) {
	case labfile.Range[int]:
		if r.ZeroOK && g.chance(0.2) {
			return 0, true
		}
		lo := r.Min
		if r.MinOpen {
			lo++
		}
		return g.intIn(lo, max(lo, min(r.Max, lo+intSpan))), true
	case labfile.Range[float64]:
		if r.ZeroOK && g.chance(0.2) {
			return 0.0, true
		}
		hi := min(r.Max, r.Min+floatSpan)
		if x := round(g.floatIn(r.Min, hi)); r.In(x) {
			return x, true
		}
		return hi, true
	case labfile.Range[time.Duration]:
		if r.ZeroOK && g.chance(0.2) {
			return time.Duration(0), true
		}
		lo := (r.Min + time.Millisecond - 1) / time.Millisecond // whole milliseconds
		if r.MinOpen && lo*time.Millisecond == r.Min {
			lo++
		}
		hi := min(r.Max, r.Min+timeSpan) / time.Millisecond
		return g.ms(int(lo), int(max(lo, hi))), true
	}
	if len(a.Words) > 0 {
		return pick(g, a.Words), true
	}
	if l.Type.Kind() == reflect.Bool {
		return true, true
	}
	return nil, false
}

// The chaos actions, each a swarm feature of its own: every drill of the
// lab file (labfile.Drills).
var chaosKinds = labfile.Actions

// script draws the chaos: events of the kinds whose coin came up, at
// random instants, aimed at servers present at their time. Each event
// gets the fields its drill takes (Drill.Fields), each drawn by its
// field's draw (drawField).
func (g *gen) script(duration time.Duration, fleet []string, capacity float64, lab Map) List {
	var kinds []labfile.Action
	for _, k := range chaosKinds {
		if g.coin(string(k), 0.3) {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return nil
	}
	n := g.intIn(1, g.lim.maxEvents)
	at := make([]time.Duration, n)
	for i := range at {
		at[i] = time.Duration(g.src.Intn(int(duration/time.Millisecond))) * time.Millisecond
	}
	slices.Sort(at)
	closed := lab.Get("clients").(Map).Get("mode") == "closed"
	present := slices.Clone(fleet)
	added := 0
	var out List
	for _, t := range at {
		k := pick(g, kinds)
		d, _ := labfile.DrillOf(k)
		ev := Map{{"at", t}, {"action", string(k)}}
		switch {
		case k == labfile.ActionRemoveServer:
			if len(present) < 2 {
				continue
			}
			name := pick(g, present)
			present = slices.DeleteFunc(present, func(s string) bool { return s == name })
			ev.Set("target", name)
		case k == labfile.ActionAddServer:
			added++
			name := fmt.Sprintf("a%d", added)
			if g.chance(0.3) { // unnamed: s<N+k>, N the servers of the file
				name = fmt.Sprintf("s%d", len(fleet)+added)
			} else {
				ev.Set("target", name)
			}
			present = append(present, name)
		case d.Takes("rate") && closed:
			continue // the users set the pace; a rate event would be a no-op
		default:
			for _, f := range d.Fields {
				ev.Set(f, g.drawField(f, present, capacity, closed))
			}
		}
		out = append(out, ev)
	}
	return out
}

// drawField draws a value of event field f: a target among the servers
// present (or all), or a value a drill takes.
func (g *gen) drawField(f string, present []string, capacity float64, closed bool) any {
	switch f {
	case "target":
		if g.chance(0.1) {
			return "all"
		}
		return pick(g, present)
	case "speed":
		return round(g.floatIn(0.05, 2))
	case "pause":
		return g.ms(1, 300)
	case "share":
		return round(g.floatIn(0, 0.8))
	case "rate":
		return round(min(max(g.floatIn(0.05, 1.5)*capacity, g.lim.minRate), g.lim.maxRate))
	case "algorithm":
		return g.algorithm()
	case "set":
		return g.set(closed)
	}
	panic("torture: no draw for event field " + f + ": add one to drawField")
}

// set draws one or two settings a running lab can change.
func (g *gen) set(closed bool) Map {
	choices := []func() (string, any){
		func() (string, any) { return "clients.retries", g.intIn(0, 3) },
		func() (string, any) { return "servers.queue.capacity", g.intIn(0, 30) },
		func() (string, any) { return "servers.max_outstanding", g.intIn(0, 20) },
		func() (string, any) { return "servers.drop_expired", g.chance(0.5) },
		func() (string, any) { return "servers.errors", round(g.floatIn(0, 0.3)) },
		func() (string, any) { return "clients.budget", round(g.floatIn(0, 0.5)) },
		func() (string, any) { return "clients.timeout", g.ms(0, 1000) },
		func() (string, any) { return "clients.attempt_timeout", g.ms(0, 200) },
		func() (string, any) { return "balancers.timeout", g.ms(0, 200) },
	}
	choices = append(choices,
		func() (string, any) { return "clients.hedge", pick(g, []string{"", "10ms", "p90"}) },
		func() (string, any) { return "balancers.breaker.enabled", g.chance(0.5) },
		func() (string, any) { return "balancers.outlier.enabled", g.chance(0.5) },
		func() (string, any) { return "balancers.slow_start.enabled", g.chance(0.5) })
	if !closed {
		choices = append(choices, func() (string, any) {
			return "clients.rate", round(g.floatIn(g.lim.minRate, min(2000, 2*g.lim.maxRate)))
		})
	}
	m := Map{}
	for range g.intIn(1, 2) {
		k, v := pick(g, choices)()
		m.Set(k, v)
	}
	return m
}

// constrained adds the features whose validity depends on the rest of the
// lab — an aperture (the algorithm, and every algorithm a script or a
// setting switches to, must draw random choices), a load profile (a rate
// event cannot be time-boxed under it), time-boxed events (the undo before
// the end, nothing changing what the event holds while it lasts) and
// compare settings (each a valid lab): each is drawn, and kept when the
// lab stays valid. The draws happen whatever the outcome, so a lab is
// still a pure function of its seed.
func (g *gen) constrained(lab Map, duration time.Duration, capacity float64, servers int) Map {
	try := func(feature string, change func(Map)) {
		cand := deepCopy(lab).(Map)
		change(cand)
		if _, err := labfile.Parse("draw", cand.YAML()); err == nil {
			lab = cand
			if !slices.Contains(g.features, feature) {
				g.features = append(g.features, feature)
			}
		}
	}
	clientSide := lab.Get("clients").(Map).Get("algorithm") != nil
	if g.chance(0.3) {
		section := "balancers"
		if clientSide {
			section = "clients"
		}
		ap, load := g.intIn(1, max(1, servers)), 0.0
		if g.chance(0.4) {
			load = round(g.floatIn(0.5, 20))
		}
		alg := pick(g, []string{"p2c", "p2c-latency-load", "p2c-peak-ewma", "p2c-stale"})
		try("aperture", func(m Map) {
			sec := m.Get(section).(Map)
			sec.Set("algorithm", alg)
			sec.Set("aperture", ap)
			if load > 0 {
				sec.Set("aperture_load", load)
			}
			sec = without(without(sec, "subset"), "replacement") // an aperture draws from its window, not with replacement
			m.Set(section, sec)
		})
	}
	if g.chance(0.25) {
		profile := g.profile(duration, capacity, lab.Get("clients").(Map).Get("mode") == "closed")
		try("profile", func(m Map) {
			c := m.Get("clients").(Map)
			c = without(c, "rate")
			c.Set("profile", profile)
			m.Set("clients", c)
		})
	}
	if evs, ok := lab.Get("events").(List); ok && g.chance(0.4) {
		for i := range evs {
			at, _ := evs[i].(Map).Get("at").(time.Duration)
			if room := int((duration - at) / time.Millisecond); room > 2 && g.chance(0.5) {
				span := g.ms(1, room-1)
				try("timed-events", func(m Map) {
					l := m.Get("events").(List)
					e := l[i].(Map)
					e.Set("for", span)
					l[i] = e
				})
			}
		}
	}
	if g.chance(0.3) {
		for i := range g.intIn(1, 3) {
			st := Map{{"name", fmt.Sprintf("c%d", i+1)}}
			if g.chance(0.6) {
				st.Set("algorithm", g.algorithm())
			}
			if g.chance(0.5) {
				st.Set("set", g.set(lab.Get("clients").(Map).Get("mode") == "closed"))
			}
			try("compare", func(m Map) {
				c, _ := m.Get("compare").(List)
				m.Set("compare", append(c, st))
			})
		}
	}
	if g.coin("headline", 0.1) {
		lab.Set("report", Map{{"headline", pick(g, []string{"p99", "goodput", "max_queue"})}})
	}
	return lab
}

// profile draws a load profile: a rate (open loop) or a number of users
// (closed loop) that changes with time.
func (g *gen) profile(duration time.Duration, capacity float64, closed bool) Map {
	level := func() float64 {
		if closed {
			return float64(g.intIn(0, g.lim.maxUsers))
		}
		return round(min(max(g.floatIn(0.05, 1.2)*capacity, g.lim.minRate), g.lim.maxRate))
	}
	d := int(duration / time.Millisecond)
	switch g.src.Intn(4) {
	case 0:
		return Map{{"shape", "ramp"}, {"from", level()}, {"to", level()}, {"over", g.ms(1, d)}}
	case 1:
		levels := List{}
		for range g.intIn(1, 4) {
			levels = append(levels, level())
		}
		return Map{{"shape", "steps"}, {"levels", levels}, {"every", g.ms(100, d)}}
	case 2:
		mean := max(level(), 1)
		return Map{{"shape", "sine"}, {"mean", mean}, {"amplitude", round(g.floatIn(0, mean))}, {"period", g.ms(100, 2*d)}}
	}
	return Map{{"shape", "spike"}, {"base", level()}, {"peak", level()}, {"at", g.ms(0, d)}, {"for", g.ms(1, d)}}
}

// faults draws clients.faults: shares of the requests that ask the
// servers for a status or a delay.
func (g *gen) faults() List {
	var out List
	left := 1.0
	for range g.intIn(1, 3) {
		share := round(g.floatIn(0.001, min(0.3, left)))
		if share <= 0 || share > left {
			break
		}
		left -= share
		f := Map{{"share", share}}
		if g.chance(0.7) {
			f.Set("status", pick(g, []int{200, 404, 429, 500, 502, 503, 504}))
		}
		if f.Get("status") == nil || g.chance(0.3) {
			f.Set("delay", g.ms(1, 300))
		}
		out = append(out, f)
	}
	return out
}

// deepCopy copies a tree, so a change to the copy leaves the original
// alone.
func deepCopy(v any) any {
	switch t := v.(type) {
	case Map:
		c := make(Map, len(t))
		for i, f := range t {
			c[i] = Field{f.Key, deepCopy(f.Val)}
		}
		return c
	case List:
		c := make(List, len(t))
		for i, e := range t {
			c[i] = deepCopy(e)
		}
		return c
	}
	return v
}
