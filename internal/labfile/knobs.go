package labfile

import (
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/retry"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/report"
)

// labKnobs is the lab's settings table: each setting once, with its path,
// its default (the core's constant where the core declares one) and what
// its check allows, in the order validation reports them. Filling defaults
// (applyDefaults) and validating (validateCore) both walk it, and what reads
// settings generically (the lb's settings API, the torture generator, the
// docs check) reads the schema's leaves (Leaves) and what the checks allow
// (AllowedAt) from there. So a setting is its field in schema.go and its
// line here (and a range in Bounds if it takes a kind of value of its own).
// A rule between fields is a rule line, checked where it stands.
//
// The table is built from the lab it fills or checks: a range that depends
// on another setting (clients.rate: open or closed loop) is the one of
// this lab, and the servers' lines are made for the groups the lab has
// when they are walked (each).
func labKnobs(l *Lab) []knob {
	ks := []knob{
		text("name", &l.Name, MaxNameLen, false),
		text("description", &l.Description, MaxTextLen, true),
		text("narration", &l.Narration, MaxTextLen, true),
		fixed("seed", &l.Seed, 1),
		ranged("duration", &l.Duration, 20*time.Second, Bounds.Duration),
	}
	ks = append(ks, zoneKnobs(l)...)
	ks = append(ks, networkKnobs(&l.Network, l.Zoned)...)
	ks = append(ks, clientKnobs(&l.Clients)...)
	ks = append(ks, balancerKnobs(&l.Balancers)...)
	ks = append(ks, serverKnobs(l)...)
	return append(ks,
		rule(func(r *reporter) { validateTier(l, r) }), // tiers.go: the balancer tier's kind, and what the tier it names cannot run (internal/proxies)
		words("report.headline", &l.Report.Headline, report.HeadlineP99, report.Headlines...),
	)
}

// networkKnobs are the network's settings: the hops (within a zone, and
// between zones when zoned says the lab has them) and the connection
// model.
func networkKnobs(n *Network, zoned func() bool) []knob {
	const p = "network."
	zoneless := func() bool { return !zoned() }
	return []knob{
		ranged(p+"hop", &n.Hop, 5*time.Millisecond, Bounds.Network).typical(0, 5*time.Millisecond),
		ranged(p+"jitter", &n.Jitter, 0, Bounds.Network).typical(0, 3*time.Millisecond),
		ranged(p+"cross_zone.hop", &n.CrossZone.Hop, 10*time.Millisecond, Bounds.Network).typical(0, 15*time.Millisecond).filledUnless(zoneless),
		ranged(p+"cross_zone.jitter", &n.CrossZone.Jitter, 0, Bounds.Network).typical(0, 3*time.Millisecond),
		ranged(p+"cross_region.hop", &n.CrossRegion.Hop, 40*time.Millisecond, Bounds.Network).typical(0, 60*time.Millisecond).filledUnless(zoneless),
		ranged(p+"cross_region.jitter", &n.CrossRegion.Jitter, 0, Bounds.Network).typical(0, 5*time.Millisecond),
		rule(func(r *reporter) { // a number of round trips or a duration (handshake.go)
			r.allow(p+"handshake", Allowed{Range: Bounds.Rounds, Typical: Range[int]{Min: 1, Max: 3}}) // or a duration in Bounds.Network
			h := n.Handshake
			if !Bounds.Rounds.In(h.Rounds) {
				r.add(p+"handshake", "round trips: %s", Bounds.Rounds.msg(h.Rounds))
			}
			if !Bounds.Network.In(h.Fixed) {
				r.add(p+"handshake", "a handshake duration: %s", Bounds.Network.msg(h.Fixed))
			}
		}),
		ranged(p+"keepalive", &n.Keepalive, conn.DefaultKeepalive, Bounds.Keepalive).typical(0, 2*time.Second),
		ranged(p+"max_conns", &n.MaxConns, 0, Bounds.MaxConns),
	}
}

// clientKnobs are the request source's settings and the client policy's.
func clientKnobs(c *Clients) []knob {
	const p = "clients."
	rate := Bounds.ArrivalRate // open loop: a rate of arrivals; closed loop: a cap, 0 = none
	if c.Mode == ClosedLoop {
		rate = Bounds.Rate
	}
	ks := []knob{
		words(p+"mode", &c.Mode, OpenLoop, OpenLoop, ClosedLoop),
		ranged(p+"rate", &c.Rate, 100, rate),
		ranged(p+"users", &c.Users, 10, Bounds.Users),
		ranged(p+"think", &c.Think, 100*time.Millisecond, Bounds.Timeout).typical(0, 30*time.Millisecond),
		ranged(p+"count", &c.Count, 20, Bounds.Clients).typical(1, 40),
		words(p+"activity", &c.Activity, EvenActivity, EvenActivity, ZipfActivity),
		words(p+"work_at", &c.WorkAt, WorkAtClient, WorkAtClient, WorkAtServer),
		ranged(p+"keys", &c.Keys, 1000, Bounds.Keys).typical(1, 5000),
		ranged(p+"zipf", &c.Zipf, 1.1, Bounds.Zipf).typical(0, 2),
	}
	ks = append(ks, distKnobs(p+"work", &c.Work)...)
	return append(ks,
		ranged(p+"timeout", &c.Timeout, 0, Bounds.Timeout),
		ranged(p+"attempt_timeout", &c.AttemptTimeout, 0, Bounds.Timeout),
		ranged(p+"retries", &c.Retries, 0, Bounds.Retries).typical(1, 4),
		ranged(p+"backoff.base", &c.Backoff.Base, retry.DefaultBase, Bounds.Timeout).typical(0, 30*time.Millisecond),
		words(p+"backoff.jitter", &c.Backoff.Jitter, FullJitter, FullJitter, NoJitter),
		ranged(p+"budget", &c.Budget, 0, Bounds.Budget).typical(0.01, 0.5),
		checked(p+"hedge", &c.Hedge, checkHedge, Allowed{Range: Bounds.Work, // or a percentile pNN
			Typical: Range[time.Duration]{Min: time.Millisecond, Max: 60 * time.Millisecond}}),
		words(p+"algorithm", &c.Algorithm, "", Algorithms...).orNone(),
		rule(func(r *reporter) {
			switch caps := balance.CapsOf(c.Algorithm); {
			case caps.Probes:
				r.add(p+"algorithm", "%s probes the servers from the balancer tier, and clients that balance themselves send no probes: give it as balancers.algorithm", Quote(c.Algorithm))
			case caps.Idle:
				r.add(p+"algorithm", "%s keeps an idle queue the servers announce themselves to, and they announce to the balancer tier, not to clients that balance themselves: give it as balancers.algorithm", Quote(c.Algorithm))
			}
		}),
		ranged(p+"subset", &c.Subset, 0, Bounds.Subset),
		rule(func(r *reporter) {
			if c.Aperture != 0 && c.Algorithm == "" {
				r.add(p+"aperture", "is for clients that balance themselves: set clients.algorithm too (got aperture %d)", c.Aperture)
			} else {
				validateAperture("clients", c.Algorithm, c.Aperture, c.Subset, c.ApertureLoad, r)
			}
		}),
		ranged(p+"refresh", &c.Refresh, 0, Bounds.Refresh),
		rule(func(r *reporter) { validateProfile(c, r) }), // profile.go: each shape its keys
		rule(func(r *reporter) { validateFaults(c.Faults, r) }),
		ranged(p+"sticky", &c.Sticky, 0, Bounds.Sticky).typical(2, 20).unless(func(r *reporter) bool {
			if c.Sticky == 0 || c.Algorithm != "" {
				return false
			}
			r.add(p+"sticky", "is for clients that balance themselves: set clients.algorithm too (behind balancers each client always sends to the same balancer); got sticky %d", c.Sticky)
			return true
		}),
		rule(func(r *reporter) {
			if c.RetryOther && c.Algorithm == "" {
				r.add(p+"retry_other", "is for clients that balance themselves: set clients.algorithm too")
			}
		}),
		ranged(p+"sticky_age", &c.StickyAge, 0, Bounds.Timeout).unless(func(r *reporter) bool {
			if c.StickyAge == 0 || c.Sticky != 0 {
				return false
			}
			r.add(p+"sticky_age", "ends the runs of clients.sticky: set clients.sticky too (got sticky_age %v)", c.StickyAge)
			return true
		}),
	)
}

// distKnobs are a work distribution's settings at path: exponential
// (mixture when mix parts are given), mean 10ms (not for a mixture), cv 1.
func distKnobs(path string, w *Dist) []knob {
	kind := "exponential"
	if len(w.Mix) > 0 {
		kind = "mixture"
	}
	mixture := func() bool { return w.Kind == "mixture" }
	notFor := func(r *reporter) bool { return mixture() } // a mixture's parts have their own values
	return []knob{
		words(path+".dist", &w.Kind, kind, "constant", "exponential", "lognormal", "mixture"),
		rule(func(r *reporter) {
			if !mixture() {
				if len(w.Mix) > 0 {
					r.add(path+".mix", "mix is used only with dist: mixture (dist is %q)", w.Kind)
				}
				return
			}
			if len(w.Mix) == 0 {
				r.add(path+".mix", "a mixture needs at least one part (- {p: 0.7, value: 4ms})")
			}
			if len(w.Mix) > maxMixParts {
				r.add(path+".mix", "a mixture has at most %d parts, got %d", maxMixParts, len(w.Mix))
			}
			for i, m := range w.Mix {
				p := IndexPath(path+".mix", i)
				if !Bounds.MixShare.In(m.P) {
					r.add(p+".p", "%s (shares are normalised to sum to 1)", Bounds.MixShare.msg(m.P))
				}
				check(r, p+".value", Bounds.Work, m.Value)
			}
		}),
		ranged(path+".mean", &w.Mean, 10*time.Millisecond, Bounds.Work).unless(notFor).filledUnless(mixture),
		ranged(path+".cv", &w.CV, 1, Bounds.CV).unless(notFor),
	}
}

// serverKnobs are the servers' settings, group by group: the groups (one
// of 5 servers when the file has none), each group's size, name and
// server, and the fleet's size.
func serverKnobs(l *Lab) []knob {
	return []knob{
		filler(func(d defaulter) {
			if len(l.Servers) == 0 && d.absent("servers") {
				l.Servers = []ServerGroup{{Count: 5}}
			}
		}),
		rule(func(r *reporter) {
			if len(l.Servers) == 0 {
				r.add("servers", "needs at least one server group (- count: 5)")
			}
		}),
		each(func() []knob {
			var ks []knob
			seen := map[string]string{} // name -> path of its group
			for i := range l.Servers {
				p, g := IndexPath("servers", i), &l.Servers[i]
				ks = append(ks, ranged(p+".count", &g.Count, 1, Bounds.Servers),
					rule(func(r *reporter) { validateName(p, g, seen, r) }),
					fillGroupZone(l, p, g), groupZone(l, p, g))
				ks = append(ks, groupKnobs(p, &g.Server)...)
			}
			return ks
		}),
		rule(func(r *reporter) {
			total := 0
			for _, g := range l.Servers {
				total += min(max(g.Count, 0), maxServers+1)
			}
			if total > maxServers {
				r.add("servers", "the groups hold %d servers in all; allowed 1..%d", total, maxServers)
			}
		}),
	}
}

// groupKnobs are one server's settings at path p (servers[i]).
func groupKnobs(p string, s *Server) []knob {
	lim := &s.Limiter
	return []knob{
		ranged(p+".workers", &s.Workers, 1, Bounds.Workers).typical(1, 8),
		ranged(p+".queue.capacity", &s.Queue.Capacity, 0, Bounds.QueueCapacity).typical(1, 40),
		words(p+".queue.discipline", &s.Queue.Discipline, FIFO, FIFO, LIFO),
		ranged(p+".max_outstanding", &s.MaxOutstanding, 0, Bounds.Outstanding).typical(1, 30),
		ranged(p+".queue_timeout", &s.QueueTimeout, 0, Bounds.Timeout).typical(5*time.Millisecond, 200*time.Millisecond),
		ranged(p+".speed", &s.Speed, server.DefaultSpeed, Bounds.Speed).typical(0.3, 3),
		each(func() []knob { // its own work distribution, if it has one
			if s.Work == nil {
				return nil
			}
			return distKnobs(p+".work", s.Work)
		}),
		ranged(p+".gc.every", &s.GC.Every, 0, Bounds.Every).typical(100*time.Millisecond, time.Second),
		ranged(p+".gc.pause", &s.GC.Pause, 0, Bounds.Every).typical(time.Millisecond, 500*time.Millisecond),
		rule(func(r *reporter) {
			if s.GC.Every > 0 && !(s.GC.Pause > 0 && s.GC.Pause < s.GC.Every) {
				r.add(p+".gc.pause", "with gc.every %v the pause must be > 0 and < every, got %v", s.GC.Every, s.GC.Pause)
			}
		}),
		ranged(p+".errors", &s.Errors, 0, Bounds.Share).typical(0.01, 0.3),
		ranged(p+".error_time", &s.ErrorTime, server.DefaultErrorTime, Bounds.Timeout).typical(0, 20*time.Millisecond),
		ranged(p+".cache.size", &s.Cache.Size, 0, Bounds.CacheSize).typical(1, 200),
		ranged(p+".cache.hit_factor", &s.Cache.HitFactor, server.DefaultHitFactor, Bounds.Share),
		words(p+".limiter.kind", &lim.Kind, "", limit.Kinds...).orNone(),
		// 1 <= min <= initial <= max, checked by the rule after max
		ranged(p+".limiter.initial", &lim.Initial, limit.DefaultInitial, Bounds.Limit).typical(1, 30).unless(byRule),
		ranged(p+".limiter.min", &lim.Min, limit.DefaultMin, Bounds.Limit).typical(1, 5).unless(byRule),
		ranged(p+".limiter.max", &lim.Max, limit.DefaultMax, Bounds.Limit).typical(1, 60),
		rule(func(r *reporter) {
			bad := ""
			switch {
			case !Bounds.Limit.In(lim.Max): // reported by its range
			case lim.Min < 1:
				bad = ".min"
			case lim.Initial < lim.Min:
				bad = ".initial"
			case lim.Max < lim.Initial:
				bad = ".max"
			}
			if bad != "" {
				r.add(p+".limiter"+bad, "needs 1 <= min <= initial <= max, got min %d, initial %d, max %d", lim.Min, lim.Initial, lim.Max)
			}
		}),
	}
}

// balancerKnobs are the balancer tier's settings.
func balancerKnobs(b *Balancers) []knob {
	const p = "balancers."
	o, s, h := &b.Outlier, &b.SlowStart, &b.Health
	return []knob{
		ranged(p+"count", &b.Count, 1, Bounds.Balancers),
		words(p+"algorithm", &b.Algorithm, "p2c", Algorithms...),
		words(p+"load", &b.Load, LocalLoad, LocalLoad, SharedLoad),
		ranged(p+"refresh", &b.Refresh, 500*time.Millisecond, Bounds.Period),
		ranged(p+"timeout", &b.Timeout, 0, Bounds.Timeout),
		ranged(p+"subset", &b.Subset, 0, Bounds.Subset),
		ranged(p+"choices", &b.Choices, balance.DefaultChoices, Bounds.Choices),
		words(p+"hash_on", &b.HashOn, HashKey, HashKey, HashClient),
		ranged(p+"vnodes", &b.VNodes, balance.DefaultVNodes, Bounds.VNodes),
		ranged(p+"epsilon", &b.Epsilon, balance.DefaultEpsilon, Bounds.Epsilon),
		ranged(p+"decay", &b.Decay, load.DefaultDecay, Bounds.Decay),
		ranged(p+"failure_penalty", &b.FailurePenalty, 0, Bounds.Timeout),
		ranged(p+"default_rtt", &b.DefaultRTT, 0, Bounds.Timeout),

		ranged(p+"orca.blackout_period", &b.ORCA.Blackout, balance.DefaultORCABlackout, Bounds.Timeout),
		ranged(p+"orca.weight_expiration_period", &b.ORCA.Expiration, balance.DefaultORCAExpiration, Bounds.Ejection),
		ranged(p+"orca.weight_update_period", &b.ORCA.Update, balance.DefaultORCAUpdate, Bounds.WeightUpdate),
		ranged(p+"orca.error_utilization_penalty", &b.ORCA.ErrorPenalty, balance.DefaultORCAErrorPenalty, Bounds.ErrorPenalty),

		ranged(p+"prequal.probe_rate", &b.Prequal.ProbeRate, balance.DefaultProbeRate, Bounds.ProbeRate),
		ranged(p+"prequal.pool_size", &b.Prequal.PoolSize, balance.DefaultPoolSize, Bounds.PoolSize),
		ranged(p+"prequal.max_age", &b.Prequal.MaxAge, balance.DefaultMaxAge, Bounds.Ejection).typical(50*time.Millisecond, 2*time.Second),
		ranged(p+"prequal.q_rif", &b.Prequal.QRIF, balance.DefaultQRIF, Bounds.Share),
		ranged(p+"prequal.reuse_delta", &b.Prequal.ReuseDelta, balance.DefaultReuseDelta, Bounds.ReuseDelta),

		words(p+"jiq.join", &b.JIQ.Join, balance.DefaultJoin, balance.JoinRules...),
		ranged(p+"jiq.choices", &b.JIQ.Choices, balance.DefaultJIQChoices, Bounds.JoinChoices),

		words(p+"locality.policy", &b.Locality.Policy, balance.LocalityNone, balance.Localities...),
		ranged(p+"locality.min_cluster_size", &b.Locality.MinClusterSize, balance.DefaultMinClusterSize, Bounds.ClusterSize),
		ranged(p+"locality.overprovisioning", &b.Locality.Overprovisioning, balance.DefaultOverprovisioning, Bounds.Overprovisioning),
		ranged(p+"locality.threshold", &b.Locality.Threshold, balance.DefaultRingThreshold, Bounds.RingThreshold),

		ranged(p+"breaker.window", &b.Breaker.Window, 20, Bounds.Window),
		ranged(p+"breaker.threshold", &b.Breaker.Threshold, 0.5, Bounds.Threshold),
		ranged(p+"breaker.open", &b.Breaker.Open, time.Second, Bounds.Pause),
		ranged(p+"breaker.probes", &b.Breaker.Probes, 3, Bounds.Probes),

		// aperture and aperture_load (default 0): checked with the clients' (validateAperture)
		rule(func(r *reporter) { validateAperture("balancers", b.Algorithm, b.Aperture, b.Subset, b.ApertureLoad, r) }),
		rule(func(r *reporter) {
			if b.Replacement && b.Aperture > 0 {
				r.add(p+"replacement", "draws from the whole fleet: it does not go with balancers.aperture (%d)", b.Aperture)
			}
		}),

		ranged(p+"outlier.consecutive_failures", &o.ConsecutiveFailures, 5, Bounds.ConsecutiveFailures),
		ranged(p+"outlier.interval", &o.Interval, time.Second, Bounds.OutlierInterval),
		ranged(p+"outlier.base_ejection", &o.BaseEjection, 5*time.Second, Bounds.Ejection),
		ranged(p+"outlier.max_ejection", &o.MaxEjection, time.Minute, Bounds.Ejection).unless(func(r *reporter) bool {
			if o.MaxEjection >= o.BaseEjection {
				return false
			}
			r.add(p+"outlier.max_ejection", "must be at least base_ejection (%v), got %v", o.BaseEjection, o.MaxEjection)
			return true
		}),
		ranged(p+"outlier.max_ejection_share", &o.MaxEjectionShare, 0.2, Bounds.EjectionShare),
		ranged(p+"outlier.success_rate_k", &o.SuccessRateK, 1.9, Bounds.OutlierK),
		ranged(p+"outlier.latency_k", &o.LatencyK, 1.9, Bounds.OutlierK),
		ranged(p+"outlier.min_requests", &o.MinRequests, 10, Bounds.MinRequests),

		ranged(p+"slow_start.window", &s.Window, 10*time.Second, Bounds.RampWindow),
		ranged(p+"slow_start.floor", &s.Floor, 0.1, Bounds.RampFloor),
		ranged(p+"slow_start.aggression", &s.Aggression, 1, Bounds.Aggression),

		ranged(p+"health.interval", &h.Interval, time.Second, Bounds.Period),
		ranged(p+"health.fails", &h.Fails, 2, Bounds.Checks),
		ranged(p+"health.passes", &h.Passes, 2, Bounds.Checks),
	}
}

// knob is one line of a settings table: it fills its default and checks
// its value.
type knob interface {
	fill(d defaulter)
	check(r *reporter)
}

// rangedKnob is a number or a duration with a default and a range.
type rangedKnob[T int | float64 | time.Duration] struct {
	path string
	p    *T
	def  T
	in   Range[T]
	// typ, when not zero, is the part of the range a lab of a few seconds
	// typically takes (Allowed.Typical): what the torture generator draws.
	typ Range[T]
	// before, when not nil, checks a rule between fields first; when it
	// returns true, the range is not checked (one error for the field, or
	// none when the rule knows the range does not apply).
	before func(r *reporter) bool
	// skipFill, when not nil, leaves the default out when it returns true.
	skipFill func() bool
}

func ranged[T int | float64 | time.Duration](path string, p *T, def T, in Range[T]) rangedKnob[T] {
	return rangedKnob[T]{path: path, p: p, def: def, in: in}
}

// unless puts a rule between fields before the range check.
func (k rangedKnob[T]) unless(rule func(r *reporter) bool) rangedKnob[T] {
	k.before = rule
	return k
}

// typical declares the values a short lab typically takes, within the
// range.
func (k rangedKnob[T]) typical(lo, hi T) rangedKnob[T] {
	k.typ = Range[T]{Min: lo, Max: hi}
	return k
}

// filledUnless leaves the default out while skip is true.
func (k rangedKnob[T]) filledUnless(skip func() bool) rangedKnob[T] {
	k.skipFill = skip
	return k
}

// byRule, as a knob's unless, leaves its check to a rule that follows.
func byRule(*reporter) bool { return true }

func (k rangedKnob[T]) fill(d defaulter) {
	if k.skipFill == nil || !k.skipFill() {
		def(d, k.p, k.path, k.def)
	}
}

func (k rangedKnob[T]) check(r *reporter) {
	a := Allowed{Range: k.in}
	if k.typ != (Range[T]{}) {
		a.Typical = k.typ
	}
	r.allow(k.path, a)
	if k.before != nil && k.before(r) {
		return
	}
	if !k.in.In(*k.p) {
		r.add(k.path, "%s", k.in.msg(*k.p))
	}
}

// wordKnob is a setting that takes one of a few words.
type wordKnob[T ~string] struct {
	path  string
	p     *T
	def   T
	words []T
	none  bool // "" is allowed too (off)
}

func words[T ~string](path string, p *T, def T, allowed ...T) wordKnob[T] {
	return wordKnob[T]{path: path, p: p, def: def, words: allowed}
}

// orNone allows "" too: the setting is off.
func (k wordKnob[T]) orNone() wordKnob[T] {
	k.none = true
	return k
}

func (k wordKnob[T]) fill(d defaulter) { def(d, k.p, k.path, k.def) }

func (k wordKnob[T]) check(r *reporter) {
	if k.none && *k.p == "" {
		r.allow(k.path, Allowed{Words: names(k.words)})
		return
	}
	oneOfEnum(r, k.path, *k.p, k.words...)
}

// textKnob is free text: at most max bytes of printable text (of several
// lines where lines is true; CheckPrintable), or what ok says of it.
type textKnob struct {
	path  string
	p     *string
	max   int
	lines bool
	ok    func(string) string // what is wrong with the text, or ""
	in    *Allowed            // with ok: what it allows, when a range says it
}

func text(path string, p *string, max int, lines bool) textKnob {
	return textKnob{path: path, p: p, max: max, lines: lines}
}

// checked is a text setting of its own forms (a hedge: 50ms or p95),
// with what a range of them allows.
func checked(path string, p *string, ok func(string) string, in Allowed) textKnob {
	return textKnob{path: path, p: p, ok: ok, in: &in}
}

func (textKnob) fill(defaulter) {}

func (k textKnob) check(r *reporter) {
	if k.in != nil {
		r.allow(k.path, *k.in)
	}
	if k.ok != nil {
		if msg := k.ok(*k.p); msg != "" {
			r.add(k.path, "%s", msg)
		}
		return
	}
	checkText(r, k.path, *k.p, k.max, k.lines)
}

// fixedKnob is a setting with a default and no check (every value is
// allowed: the seed).
type fixedKnob[T comparable] struct {
	path string
	p    *T
	def  T
}

func fixed[T comparable](path string, p *T, def T) fixedKnob[T] { return fixedKnob[T]{path, p, def} }

func (k fixedKnob[T]) fill(d defaulter) { def(d, k.p, k.path, k.def) }
func (fixedKnob[T]) check(*reporter)    {}

// rule is a check of several fields at its place in the table.
type rule func(r *reporter)

func (rule) fill(defaulter)      {}
func (f rule) check(r *reporter) { f(r) }

// filler is a default of several fields at its place in the table (the
// fleet of a lab without servers).
type filler func(d defaulter)

func (f filler) fill(d defaulter) { f(d) }
func (filler) check(*reporter)    {}

// each is a part of the table made when it is walked, from the lab as it
// is then: the lines of the server groups the defaults above it made.
type each func() []knob

func (f each) fill(d defaulter) {
	for _, k := range f() {
		k.fill(d)
	}
}

func (f each) check(r *reporter) {
	for _, k := range f() {
		k.check(r)
	}
}
