package labfile

import (
	"fmt"

	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/conn"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/slowstart"
)

// Limits of the ranges Validate enforces.
const (
	maxServers   = 10000
	maxBalancers = 1000
	maxRate      = 1e6
	maxHop       = 10 * time.Second
	maxKeepalive = time.Minute // the backends close connections idle for 2 minutes
	maxConns     = 10000
	maxSticky    = 1000000
)

// Algorithms are the balancing algorithms a lab may name (balancers.algorithm,
// clients.algorithm, compare settings and algorithm events): the core's
// registry, balance.Names.
var Algorithms = balance.Names

// Validate checks every range and cross-field rule of the lab, its compare
// settings and its script. Each problem names the field and the allowed
// values or range. The error is an *Error, or Errors when there are several.
// Positions are known only when the lab comes from Parse (which validates
// itself); Validate on a lab built or changed in code reports fields only.
func (l *Lab) Validate() error {
	r := &reporter{}
	validateLab(l, r)
	return r.errs.result()
}

func validateLab(l *Lab, r *reporter) {
	validateCore(l, r)
	validateScript(l, r)
}

// validateCore checks the knobs: everything but compare and events.
func validateCore(l *Lab, r *reporter) {
	r.durMin("duration", l.Duration, 0, true)
	r.durMin("network.hop", l.Network.Hop, 0, false)
	if l.Network.Hop >= maxHop {
		r.add("network.hop", "must be less than %v, got %v", maxHop, l.Network.Hop)
	}
	r.durMin("network.jitter", l.Network.Jitter, 0, false)
	validateConnections(&l.Network, r)
	validateClients(&l.Clients, r)
	validateBalancers(&l.Balancers, r)
	validateServers(l.Servers, r)
	r.oneOf("report.headline", string(l.Report.Headline), headlineNames()...)
}

func validateClients(c *Clients, r *reporter) {
	oneOfEnum(r, "clients.mode", c.Mode, OpenLoop, ClosedLoop)
	if c.Mode == ClosedLoop {
		r.floatIn("clients.rate", c.Rate, 0, maxRate, false)
	} else {
		r.floatIn("clients.rate", c.Rate, 0, maxRate, true)
	}
	r.intIn("clients.users", c.Users, 1, 100000)
	r.durMin("clients.think", c.Think, 0, false)
	r.intIn("clients.count", c.Count, 1, 1000000)
	oneOfEnum(r, "clients.activity", c.Activity, EvenActivity, ZipfActivity)
	oneOfEnum(r, "clients.work_at", c.WorkAt, WorkAtClient, WorkAtServer)
	r.intIn("clients.keys", c.Keys, 1, 1000000)
	r.floatIn("clients.zipf", c.Zipf, 0, 5, false)
	validateDist("clients.work", &c.Work, r)
	r.durMin("clients.timeout", c.Timeout, 0, false)
	r.durMin("clients.attempt_timeout", c.AttemptTimeout, 0, false)
	r.intIn("clients.retries", c.Retries, 0, 10)
	r.durMin("clients.backoff.base", c.Backoff.Base, 0, false)
	oneOfEnum(r, "clients.backoff.jitter", c.Backoff.Jitter, FullJitter, NoJitter)
	r.floatIn("clients.budget", c.Budget, 0, 1, false)
	if msg := checkHedge(c.Hedge); msg != "" {
		r.add("clients.hedge", "%s", msg)
	}
	if c.Algorithm != "" {
		r.oneOf("clients.algorithm", c.Algorithm, Algorithms...)
	}
	r.intMin("clients.subset", c.Subset, 0)
	if c.Aperture != 0 && c.Algorithm == "" {
		r.add("clients.aperture", "is for clients that balance themselves: set clients.algorithm too (got aperture %d)", c.Aperture)
	} else {
		validateAperture("clients", c.Algorithm, c.Aperture, c.Subset, r)
	}
	r.durMin("clients.refresh", c.Refresh, 0, false)
	if c.Sticky != 0 && c.Algorithm == "" {
		r.add("clients.sticky", "is for clients that balance themselves: set clients.algorithm too (behind balancers each client always sends to the same balancer); got sticky %d", c.Sticky)
	} else {
		r.intIn("clients.sticky", c.Sticky, 0, maxSticky)
	}
}

// validateConnections checks the connection model's settings (network.*).
func validateConnections(n *Network, r *reporter) {
	h := n.Handshake
	if h.Rounds < 0 || h.Rounds > conn.MaxRounds {
		r.add("network.handshake", "round trips must be between 0 and %d, got %d", conn.MaxRounds, h.Rounds)
	}
	if h.Fixed < 0 || h.Fixed >= maxHop {
		r.add("network.handshake", "a handshake duration must be in [0, %v), got %v", maxHop, h.Fixed)
	}
	if n.Keepalive < 0 || n.Keepalive > maxKeepalive {
		r.add("network.keepalive", "must be in [0, %v] (0 = a new connection per request), got %v", maxKeepalive, n.Keepalive)
	}
	r.intIn("network.max_conns", n.MaxConns, 0, maxConns)
}

// validateAperture checks section.aperture: in range, with an algorithm
// that draws random choices, and not together with a random subset.
func validateAperture(section, algorithm string, aperture, subset int, r *reporter) {
	p := section + ".aperture"
	switch {
	case aperture < 0 || aperture > balance.MaxAperture:
		r.intIn(p, aperture, 0, balance.MaxAperture)
	case aperture == 0:
	case !balance.SupportsAperture(algorithm):
		r.add(p, "works with the algorithms that draw random choices (%s); %s.algorithm is %s",
			strings.Join(balance.ApertureAlgorithms, ", "), section, quote(algorithm))
	case subset > 0:
		r.add(p, "and %s.subset are two ways to choose a balancer's servers: set one of them (subset is %d)", section, subset)
	}
}

// checkHedge returns what is wrong with a hedge setting, or "".
func checkHedge(h string) string {
	const want = `must be "" (off), a positive duration like 50ms, or a percentile pNN with 0 < NN < 100 like p95`
	if h == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(h, "p"); ok {
		nn, err := strconv.ParseFloat(rest, 64)
		if err != nil || !(nn > 0 && nn < 100) {
			return fmt.Sprintf("%s; got %s", want, quote(h))
		}
		return ""
	}
	d, err := time.ParseDuration(h)
	if err != nil || d <= 0 {
		return fmt.Sprintf("%s; got %s", want, quote(h))
	}
	return ""
}

// validateDist checks a work distribution at path.
func validateDist(path string, w *Dist, r *reporter) {
	r.oneOf(path+".dist", w.Kind, "constant", "exponential", "lognormal", "mixture")
	if w.Kind == "mixture" {
		if len(w.Mix) == 0 {
			r.add(path+".mix", "a mixture needs at least one part (- {p: 0.7, value: 4ms})")
		}
		for i, m := range w.Mix {
			p := indexPath(path+".mix", i)
			if !(m.P > 0) {
				r.add(p+".p", "must be > 0 (shares are normalised to sum to 1), got %g", m.P)
			}
			r.durMin(p+".value", m.Value, 0, true)
		}
		return
	}
	if len(w.Mix) > 0 {
		r.add(path+".mix", "mix is used only with dist: mixture (dist is %q)", w.Kind)
	}
	r.durMin(path+".mean", w.Mean, 0, true)
	if !(w.CV >= 0 && w.CV <= 100) {
		r.add(path+".cv", "must be in [0, 100], got %g", w.CV)
	}
}

func validateBalancers(b *Balancers, r *reporter) {
	r.intIn("balancers.count", b.Count, 1, maxBalancers)
	r.oneOf("balancers.algorithm", b.Algorithm, Algorithms...)
	oneOfEnum(r, "balancers.load", b.Load, LocalLoad, SharedLoad)
	r.durMin("balancers.refresh", b.Refresh, 0, false)
	r.durMin("balancers.timeout", b.Timeout, 0, false)
	r.intMin("balancers.subset", b.Subset, 0)
	r.intIn("balancers.choices", b.Choices, 1, 3)
	oneOfEnum(r, "balancers.hash_on", b.HashOn, HashKey, HashClient)
	r.intIn("balancers.vnodes", b.VNodes, 1, 10000)
	r.floatIn("balancers.epsilon", b.Epsilon, 0, 10, true)
	r.durMin("balancers.decay", b.Decay, 0, true)
	r.intIn("balancers.breaker.window", b.Breaker.Window, breaker.MinWindow, breaker.MaxWindow)
	r.floatIn("balancers.breaker.threshold", b.Breaker.Threshold, 0, 1, true)
	r.durMin("balancers.breaker.open", b.Breaker.Open, 0, true)
	r.intIn("balancers.breaker.probes", b.Breaker.Probes, 1, 100)
	validateAperture("balancers", b.Algorithm, b.Aperture, b.Subset, r)
	validateOutlier(&b.Outlier, r)
	validateSlowStart(&b.SlowStart, r)
	r.durMin("balancers.health.interval", b.Health.Interval, 0, true)
	r.intMin("balancers.health.fails", b.Health.Fails, 1)
	r.intMin("balancers.health.passes", b.Health.Passes, 1)
}

// validateOutlier checks balancers.outlier against the bounds of package
// outlier (whether or not it is enabled, like the breaker).
func validateOutlier(o *Outlier, r *reporter) {
	const p = "balancers.outlier."
	r.intIn(p+"consecutive_failures", o.ConsecutiveFailures, 0, outlier.MaxConsecutive)
	r.durMin(p+"interval", o.Interval, outlier.MinInterval, false)
	r.durMin(p+"base_ejection", o.BaseEjection, 0, true)
	if o.MaxEjection < o.BaseEjection {
		r.add(p+"max_ejection", "must be at least base_ejection (%v), got %v", o.BaseEjection, o.MaxEjection)
	}
	r.floatIn(p+"max_ejection_share", o.MaxEjectionShare, 0, 1, true)
	r.floatIn(p+"success_rate_k", o.SuccessRateK, 0, outlier.MaxK, false)
	r.floatIn(p+"latency_k", o.LatencyK, 0, outlier.MaxK, false)
	r.intIn(p+"min_requests", o.MinRequests, 1, outlier.MaxMinRequests)
}

// validateSlowStart checks balancers.slow_start against the bounds of
// package slowstart.
func validateSlowStart(s *SlowStart, r *reporter) {
	const p = "balancers.slow_start."
	r.durMin(p+"window", s.Window, 0, true)
	r.floatIn(p+"floor", s.Floor, 0, 1, true)
	if !(s.Aggression >= slowstart.MinAggression && s.Aggression <= slowstart.MaxAggression) {
		r.add(p+"aggression", "must be in [%s, %s] (1 = linear), got %s",
			num(slowstart.MinAggression), num(slowstart.MaxAggression), num(s.Aggression))
	}
}

func validateServers(groups []ServerGroup, r *reporter) {
	if len(groups) == 0 {
		r.add("servers", "needs at least one server group (- count: 5)")
		return
	}
	total := 0
	seen := map[string]string{} // name -> path of its group
	for i := range groups {
		p := indexPath("servers", i)
		g := &groups[i]
		r.intIn(p+".count", g.Count, 1, maxServers)
		total += min(max(g.Count, 0), maxServers+1)
		validateName(p, g, seen, r)
		validateServer(p, &g.Server, r)
	}
	if total > maxServers {
		r.add("servers", "the groups hold %d servers in all; allowed 1..%d", total, maxServers)
	}
}

// validateName checks a group's optional name: only for a group of one,
// unique, and not shaped like the generated names s1, s2, ...
func validateName(p string, g *ServerGroup, seen map[string]string, r *reporter) {
	if g.Name == "" {
		return
	}
	if g.Count != 1 {
		r.add(p+".name", "a name is only for a group of one server (count is %d); larger groups are named s1, s2, ...", g.Count)
		return
	}
	if msg := checkServerName(g.Name); msg != "" {
		r.add(p+".name", "%s", msg)
		return
	}
	if isGeneratedName(g.Name) {
		r.add(p+".name", "names s1, s2, ... are reserved for unnamed servers; got %q", g.Name)
		return
	}
	if other, dup := seen[g.Name]; dup {
		r.add(p+".name", "name %q is already used by %s", g.Name, other)
		return
	}
	seen[g.Name] = p
}

// checkServerName returns what is wrong with a server name, or "".
func checkServerName(name string) string {
	if name == "all" {
		return `"all" is reserved (an event target meaning every server)`
	}
	if len(name) > 64 {
		return fmt.Sprintf("a name is at most 64 characters, got %d", len(name))
	}
	for i, c := range name {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || i > 0 && strings.ContainsRune("_.-", c)
		if !ok {
			return fmt.Sprintf("a name is letters, digits and _ . - (starting with a letter or digit); got %s", quote(name))
		}
	}
	return ""
}

// isGeneratedName reports whether name has the form s<digits>.
func isGeneratedName(name string) bool {
	digits, ok := strings.CutPrefix(name, "s")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func validateServer(p string, s *Server, r *reporter) {
	r.intIn(p+".workers", s.Workers, 1, 10000)
	r.intMin(p+".queue.capacity", s.Queue.Capacity, 0)
	oneOfEnum(r, p+".queue.discipline", s.Queue.Discipline, FIFO, LIFO)
	r.intMin(p+".max_outstanding", s.MaxOutstanding, 0)
	r.durMin(p+".queue_timeout", s.QueueTimeout, 0, false)
	r.floatIn(p+".speed", s.Speed, 0, 100, true)
	if s.Work != nil {
		validateDist(p+".work", s.Work, r)
	}
	r.durMin(p+".gc.every", s.GC.Every, 0, false)
	r.durMin(p+".gc.pause", s.GC.Pause, 0, false)
	if s.GC.Every > 0 && !(s.GC.Pause > 0 && s.GC.Pause < s.GC.Every) {
		r.add(p+".gc.pause", "with gc.every %v the pause must be > 0 and < every, got %v", s.GC.Every, s.GC.Pause)
	}
	r.floatIn(p+".errors", s.Errors, 0, 1, false)
	r.durMin(p+".error_time", s.ErrorTime, 0, false)
	r.intMin(p+".cache.size", s.Cache.Size, 0)
	r.floatIn(p+".cache.hit_factor", s.Cache.HitFactor, 0, 1, false)
	validateLimiter(p+".limiter", &s.Limiter, r)
}

func validateLimiter(p string, lim *Limiter, r *reporter) {
	if lim.Kind != "" {
		r.oneOf(p+".kind", lim.Kind, limit.Kinds...)
	}
	bad := ""
	switch {
	case lim.Min < 1:
		bad = ".min"
	case lim.Initial < lim.Min:
		bad = ".initial"
	case lim.Max < lim.Initial:
		bad = ".max"
	}
	if bad != "" {
		r.add(p+bad, "needs 1 <= min <= initial <= max, got min %d, initial %d, max %d", lim.Min, lim.Initial, lim.Max)
	}
}
