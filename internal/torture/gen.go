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
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
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

// clientAlgorithms are those clients that balance themselves may use: all
// but those that probe the servers and those the servers announce
// themselves idle to, which only the balancer tier does (balance.Caps).
var clientAlgorithms = balance.With(func(c balance.Caps) bool { return !c.Probes && !c.Idle })

// clientAlgorithm draws an algorithm for clients that balance themselves.
func (g *gen) clientAlgorithm() string { return pick(g, clientAlgorithms) }

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
	instant := net.Get("hop") == time.Duration(0) && (net.Get("jitter") == nil || net.Get("jitter") == time.Duration(0))
	clients := g.clients(capacity, work, instant, clientSide, len(fleet))
	bal := g.balancers(len(fleet))
	bal = append(Map{{"algorithm", g.algorithm()}}, bal...)
	lab.Set("clients", clients)
	lab.Set("balancers", bal)
	lab.Set("servers", servers)
	// Zones come from a stream of their own, so the rest of a seed's lab
	// is drawn as it was before zones were; before the script, whose zone
	// drills aim at them.
	z := &gen{src: rng.Split(seed, stream+"/zones"), lim: lim}
	if zoned := z.zones(deepCopy(lab).(Map)); zoned != nil {
		lab = zoned
	}
	if events := g.script(duration, fleet, capacity, lab); len(events) > 0 {
		lab.Set("events", events)
	}
	lab = g.constrained(lab, duration, capacity, len(fleet))
	return Drawn{Seed: seed, Tree: lab, Features: append(g.features, z.features...)}
}

// zones, on a coin, declares 2 or 3 zones (in one region, or two) and
// places every server group, the client ids and the balancers in them:
// each group one zone, the clients and the balancers a list of at most one
// entry per member (network.cross_zone and cross_region are drawn with the
// network's other settings).
//
// It returns lab with its zones, or nil (no zones) when the coin did not
// come up or the lab is not valid with them (a compare setting that
// shrinks the tier below its list of zones).
func (g *gen) zones(lab Map) Map {
	if !g.coin("zones", 0.3) {
		return nil
	}
	n := g.intIn(2, 3)
	regions := g.chance(0.5)
	var zones List
	var names []string
	for i := range n {
		name := string(rune('a' + i))
		z := Map{{"name", name}}
		if regions {
			z.Set("region", fmt.Sprintf("r%d", i%2+1))
		}
		zones = append(zones, z)
		names = append(names, name)
	}
	places := func(count int) List {
		out := make(List, g.intIn(1, max(1, min(count, 4))))
		for i := range out {
			out[i] = pick(g, names)
		}
		return out
	}
	groups := lab.Get("servers").(List)
	for i, grp := range groups {
		m := grp.(Map)
		m.Set("zone", pick(g, names))
		groups[i] = m
	}
	count := func(section, key string, def int) int {
		if sec, ok := lab.Get(section).(Map); ok {
			if c, ok := sec.Get(key).(int); ok {
				return c
			}
		}
		return def
	}
	clients, bals := lab.Get("clients").(Map), lab.Get("balancers").(Map)
	clients.Set("zones", places(count("clients", "count", 20)))
	if clients.Get("mode") == "closed" && clients.Get("think") == time.Duration(0) {
		// a partition fails an attempt at once, with no hop: users that
		// never think would send again at the same instant for ever (the
		// simulator's memory guard stops such a lab; see clients())
		clients.Set("think", time.Millisecond)
	}
	bals.Set("zones", places(count("balancers", "count", 1)))
	if k, _ := bals.Get("kind").(string); (k == "" || k == "lb") && g.coin("locality", 0.6) {
		// the locality layer over the algorithm, with its settings drawn
		// around their defaults
		loc := Map{{"policy", string(pick(g, balance.Localities[1:]))}}
		if g.chance(0.5) {
			loc.Set("min_cluster_size", g.intIn(1, 8))
			loc.Set("overprovisioning", pick(g, []float64{1, 1.4, 2}))
			loc.Set("threshold", pick(g, []float64{0.5, 2, 4, 16}))
		}
		bals.Set("locality", loc)
	}
	lab.Set("clients", clients)
	lab.Set("balancers", bals)
	lab.Set("zones", zones)
	if _, err := labyaml.Parse("draw", lab.YAML()); err != nil {
		return nil
	}
	return lab
}

// network draws the network: each of its settings the lab file declares
// (but the handshake) on a coin of its own, from the range it allows, and
// the handshake, round trips (the range its check allows) or, on a coin, a
// duration (of a hop's scale).
func (g *gen) network() Map {
	var m Map
	g.drawSection(&m, "network")
	if g.coin("handshake", 0.3) {
		if g.coin("handshake-duration", 0.3) {
			m.Set("handshake", g.draw("network.hop"))
		} else {
			m.Set("handshake", max(1, g.draw("network.handshake").(int)))
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

// servers draws 1 to 3 groups of 1 to 6 servers, each group with the
// settings whose coins came up (the settings of a server the lab file
// declares, but its count, name and work: a coin per setting or section
// for the lab, then each group takes each of them or not). It returns the
// groups, the servers' names and the fleet's capacity in requests per
// second at the clients' mean work (the rate is drawn against it).
func (g *gen) servers(mean time.Duration) (List, []string, float64) {
	groups := 1
	if g.coin("groups", 0.5) {
		groups = g.intIn(2, max(2, g.lim.maxGroups))
	}
	on, kept := g.on("servers"), map[string]bool{}
	work := g.coin("server-work", 0.35)
	var out List
	var names []string
	capacity := 0.0
	for range groups {
		count := g.intIn(1, g.lim.maxCount)
		m := Map{{"count", count}}
		var parts []part
		for _, p := range on {
			if g.chance(0.7) {
				parts = append(parts, p)
			}
		}
		g.fill(&m, "servers", parts, func(m Map) Map { return Map{{"servers", List{m}}} }, kept)
		if work && g.chance(0.6) {
			w, _ := g.work()
			m.Set("work", w)
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
		workers, speed := 1, 1.0
		if w, ok := m.Get("workers").(int); ok {
			workers = w
		}
		if s, ok := m.Get("speed").(float64); ok {
			speed = s
		}
		capacity += float64(count*workers) * speed / mean.Seconds()
		out = append(out, m)
	}
	g.unused("servers", on, kept)
	return out, names, capacity
}

// clients draws the request source and the client policy: open or closed
// loop (the open-loop rate a random share of the fleet's capacity,
// sometimes more than it; the users within the limits), the work, the
// faults and the hedge, and, when the clients balance themselves, their
// algorithm; then every other setting the lab file declares for them, each
// on a coin of its own, from the range or words it allows, kept when the
// lab file takes it (sticky needs an algorithm, ...).
func (g *gen) clients(capacity float64, work Map, instant bool, clientSide bool, servers int) Map {
	m := Map{}
	load := g.floatIn(0.1, 1.2)
	if g.coin("closed-loop", 0.25) {
		m.Set("mode", "closed")
		m.Set("users", g.intIn(1, g.lim.maxUsers))
		think := g.draw("clients.think").(time.Duration)
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
	m.Set("work", work)
	if g.coin("client-faults", 0.2) {
		m.Set("faults", g.faults())
	}
	if g.coin("hedge", 0.3) {
		if g.chance(0.5) {
			m.Set("hedge", g.draw("clients.hedge").(time.Duration).String())
		} else {
			m.Set("hedge", fmt.Sprintf("p%d", g.intIn(50, 99)))
		}
	}
	if clientSide {
		m.Set("algorithm", g.clientAlgorithm())
	}
	g.drawSection(&m, "clients")
	if sub, ok := m.Get("subset").(int); ok && sub > servers {
		m.Set("subset", max(1, sub%(servers+1)))
	}
	return m
}

// balancers draws the balancer tier: its size within the limits, then
// every other setting the lab file declares for it (labfile.Leaves), each
// from the range or words its check allows (on and fill), so a setting
// added to the lab file is drawn with no edit here. A section (breaker,
// outlier, ...) is one swarm feature, on with every field drawn and
// enabled set; a setting of the tier itself is a feature of its own.
// Client-side labs get a tier too: their clients take the tier's breaker
// settings, and a set event may hand the balancing back to it.
func (g *gen) balancers(servers int) Map {
	m := Map{}
	if g.coin("balancers", 0.4) {
		m.Set("count", g.intIn(2, max(2, g.lim.maxBalancers)))
	}
	g.drawSection(&m, "balancers")
	if sub, ok := m.Get("subset").(int); ok && sub > servers {
		m.Set("subset", max(1, sub%(servers+1)))
	}
	return m
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
	clientSide := lab.Get("clients").(Map).Get("algorithm") != nil // an algorithm event changes the clients'
	present := slices.Clone(fleet)
	var zones []string // a zone drill's targets (none: it is not drawn)
	if zs, ok := lab.Get("zones").(List); ok {
		for _, z := range zs {
			zones = append(zones, z.(Map).Get("name").(string))
		}
	}
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
		case d.NeedsZones && len(zones) == 0:
			continue // a zone drill needs a zone, a link two
		case d.Zone:
			for _, f := range d.Fields {
				ev.Set(f, g.drawField(f, present, capacity, closed, clientSide))
			}
			ev.Set("target", pick(g, zones))
		default:
			for _, f := range d.Fields {
				ev.Set(f, g.drawField(f, present, capacity, closed, clientSide))
			}
			// a setting the lab does not take with the rest of it (sticky
			// without an algorithm, a gc period below its pause) is drawn again
			tries := 1
			for ; d.Takes("set") && tries <= 4 && !validWith(lab, append(slices.Clone(out), ev)); tries++ {
				ev.Set("set", g.set(closed))
			}
			if tries > 4 {
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

// validWith reports whether the lab file takes lab with events as its
// script.
func validWith(lab Map, events List) bool {
	cand := deepCopy(lab).(Map)
	cand.Set("events", events)
	_, err := labyaml.Parse("draw", cand.YAML())
	return err == nil
}

// drawField draws a value of event field f: a target among the servers
// present (or all), or a value a drill takes (an algorithm the clients may
// use when they balance themselves).
func (g *gen) drawField(f string, present []string, capacity float64, closed, clientSide bool) any {
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
	case "hop": // a link's, degraded or healed
		return g.ms(1, 60)
	case "share":
		return round(g.floatIn(0, 0.8))
	case "rate":
		return round(min(max(g.floatIn(0.05, 1.5)*capacity, g.lim.minRate), g.lim.maxRate))
	case "algorithm":
		if clientSide {
			return g.clientAlgorithm()
		}
		return g.algorithm()
	case "set":
		return g.set(closed)
	}
	panic("torture: no draw for event field " + f + ": add one to drawField")
}

// set draws one or two settings a running lab can change: any the
// generator draws from the declaration (on and fill) in the network, the
// clients, the servers and the balancer tier, from the range or words the lab file
// allows (a boolean either way), the hedge, or in open loop the rate.
// script and constrained keep the ones the lab stays valid with.
func (g *gen) set(closed bool) Map {
	m := Map{}
	choices := len(settable) + 1 // the hedge
	if !closed {
		choices++ // the rate
	}
	for range g.intIn(1, 2) {
		switch c := g.src.Intn(choices); {
		case c < len(settable):
			l := settable[c]
			v, _ := g.value(l)
			if l.Type.Kind() == reflect.Bool {
				v = g.chance(0.5)
			}
			m.Set(l.Path, v)
		case c == len(settable):
			m.Set("clients.hedge", pick(g, []string{"", g.draw("clients.hedge").(time.Duration).String(), fmt.Sprintf("p%d", g.intIn(50, 99))}))
		default:
			m.Set("clients.rate", round(g.floatIn(g.lim.minRate, min(2000, 2*g.lim.maxRate))))
		}
	}
	return m
}

// settable are the leaves set draws from: every one a set event takes
// (none the lab file holds fixed for a run, labfile.FixedAtRunTime).
var settable = func() []labfile.Leaf {
	var out []labfile.Leaf
	for _, s := range []string{"network", "clients", "servers", "balancers"} { // network: the hops (the rest is fixed for a run)
		for _, p := range sections[s] {
			for _, l := range p.leaves {
				if _, ok := allowed[l.Path]; (ok || l.Type.Kind() == reflect.Bool) && labfile.FixedAtRunTime(l.Path) == "" {
					out = append(out, l)
				}
			}
		}
	}
	return out
}()

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
		if _, err := labyaml.Parse("draw", cand.YAML()); err == nil {
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
		alg := pick(g, balance.ApertureAlgorithms) // the algorithms with an aperture (balance.Caps)
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
