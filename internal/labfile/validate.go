package labfile

import (
	"fmt"

	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/limit"
)

// maxMixParts bounds a mixture's parts.
const maxMixParts = 100

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
	validateCaptions(l, r)
	validateScript(l, r)
	validateExternalEvents(l, r)
}

// validateCore checks the knobs: everything but compare and events.
func validateCore(l *Lab, r *reporter) {
	checkText(r, "name", l.Name, MaxNameLen)
	checkText(r, "description", l.Description, MaxTextLen)
	checkText(r, "narration", l.Narration, MaxTextLen)
	check(r, "duration", Bounds.Duration, l.Duration)
	check(r, "network.hop", Bounds.Network, l.Network.Hop)
	check(r, "network.jitter", Bounds.Network, l.Network.Jitter)
	validateConnections(&l.Network, r)
	validateClients(&l.Clients, r)
	validateBalancers(&l.Balancers, r)
	validateServers(l.Servers, r)
	validateExternal(l, r)
	r.oneOf("report.headline", string(l.Report.Headline), headlineNames()...)
}

func validateClients(c *Clients, r *reporter) {
	oneOfEnum(r, "clients.mode", c.Mode, OpenLoop, ClosedLoop)
	if c.Mode == ClosedLoop {
		check(r, "clients.rate", Bounds.Rate, c.Rate)
	} else {
		check(r, "clients.rate", Bounds.ArrivalRate, c.Rate)
	}
	check(r, "clients.users", Bounds.Users, c.Users)
	check(r, "clients.think", Bounds.Timeout, c.Think)
	check(r, "clients.count", Bounds.Clients, c.Count)
	oneOfEnum(r, "clients.activity", c.Activity, EvenActivity, ZipfActivity)
	oneOfEnum(r, "clients.work_at", c.WorkAt, WorkAtClient, WorkAtServer)
	check(r, "clients.keys", Bounds.Keys, c.Keys)
	check(r, "clients.zipf", Bounds.Zipf, c.Zipf)
	validateDist("clients.work", &c.Work, r)
	check(r, "clients.timeout", Bounds.Timeout, c.Timeout)
	check(r, "clients.attempt_timeout", Bounds.Timeout, c.AttemptTimeout)
	check(r, "clients.retries", Bounds.Retries, c.Retries)
	check(r, "clients.backoff.base", Bounds.Timeout, c.Backoff.Base)
	oneOfEnum(r, "clients.backoff.jitter", c.Backoff.Jitter, FullJitter, NoJitter)
	check(r, "clients.budget", Bounds.Budget, c.Budget)
	if msg := checkHedge(c.Hedge); msg != "" {
		r.add("clients.hedge", "%s", msg)
	}
	if c.Algorithm != "" {
		r.oneOf("clients.algorithm", c.Algorithm, Algorithms...)
	}
	check(r, "clients.subset", Bounds.Subset, c.Subset)
	if c.Aperture != 0 && c.Algorithm == "" {
		r.add("clients.aperture", "is for clients that balance themselves: set clients.algorithm too (got aperture %d)", c.Aperture)
	} else {
		validateAperture("clients", c.Algorithm, c.Aperture, c.Subset, c.ApertureLoad, r)
	}
	check(r, "clients.refresh", Bounds.Refresh, c.Refresh)
	validateProfile(c, r)
	validateFaults(c.Faults, r)
	if c.Sticky != 0 && c.Algorithm == "" {
		r.add("clients.sticky", "is for clients that balance themselves: set clients.algorithm too (behind balancers each client always sends to the same balancer); got sticky %d", c.Sticky)
	} else {
		check(r, "clients.sticky", Bounds.Sticky, c.Sticky)
	}
	if c.RetryOther && c.Algorithm == "" {
		r.add("clients.retry_other", "is for clients that balance themselves: set clients.algorithm too")
	}
	if c.StickyAge != 0 && c.Sticky == 0 {
		r.add("clients.sticky_age", "ends the runs of clients.sticky: set clients.sticky too (got sticky_age %v)", c.StickyAge)
	} else {
		check(r, "clients.sticky_age", Bounds.Timeout, c.StickyAge)
	}
}

// validateConnections checks the connection model's settings (network.*).
func validateConnections(n *Network, r *reporter) {
	h := n.Handshake
	if !Bounds.Rounds.In(h.Rounds) {
		r.add("network.handshake", "round trips: %s", Bounds.Rounds.msg(h.Rounds))
	}
	if !Bounds.Network.In(h.Fixed) {
		r.add("network.handshake", "a handshake duration: %s", Bounds.Network.msg(h.Fixed))
	}
	check(r, "network.keepalive", Bounds.Keepalive, n.Keepalive)
	check(r, "network.max_conns", Bounds.MaxConns, n.MaxConns)
}

// validateAperture checks section.aperture: in range, with an algorithm
// that draws random choices, and not together with a random subset; and
// section.aperture_load, which sizes an aperture.
func validateAperture(section, algorithm string, aperture, subset int, load float64, r *reporter) {
	p := section + ".aperture"
	check(r, p+"_load", Bounds.ApertureLoad, load)
	if load > 0 && aperture == 0 {
		r.add(p+"_load", "sizes an aperture: set %s too (the smallest window), got aperture_load %s", p, num(load))
	}
	check(r, p, Bounds.Aperture, aperture)
	switch {
	case !Bounds.Aperture.In(aperture):
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
	if !Bounds.Timeout.In(d) {
		return "a delay " + Bounds.Timeout.msg(d)
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
		if len(w.Mix) > maxMixParts {
			r.add(path+".mix", "a mixture has at most %d parts, got %d", maxMixParts, len(w.Mix))
		}
		for i, m := range w.Mix {
			p := indexPath(path+".mix", i)
			if !Bounds.MixShare.In(m.P) {
				r.add(p+".p", "%s (shares are normalised to sum to 1)", Bounds.MixShare.msg(m.P))
			}
			check(r, p+".value", Bounds.Work, m.Value)
		}
		return
	}
	if len(w.Mix) > 0 {
		r.add(path+".mix", "mix is used only with dist: mixture (dist is %q)", w.Kind)
	}
	check(r, path+".mean", Bounds.Work, w.Mean)
	check(r, path+".cv", Bounds.CV, w.CV)
}

// validateBalancers checks the tier against its table (knobs.go).
func validateBalancers(b *Balancers, r *reporter) {
	for _, k := range balancerKnobs(b) {
		k.check(r)
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
		check(r, p+".count", Bounds.Servers, g.Count)
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
	check(r, p+".workers", Bounds.Workers, s.Workers)
	check(r, p+".queue.capacity", Bounds.QueueCapacity, s.Queue.Capacity)
	oneOfEnum(r, p+".queue.discipline", s.Queue.Discipline, FIFO, LIFO)
	check(r, p+".max_outstanding", Bounds.Outstanding, s.MaxOutstanding)
	check(r, p+".queue_timeout", Bounds.Timeout, s.QueueTimeout)
	check(r, p+".speed", Bounds.Speed, s.Speed)
	if s.Work != nil {
		validateDist(p+".work", s.Work, r)
	}
	check(r, p+".gc.every", Bounds.Every, s.GC.Every)
	check(r, p+".gc.pause", Bounds.Every, s.GC.Pause)
	if s.GC.Every > 0 && !(s.GC.Pause > 0 && s.GC.Pause < s.GC.Every) {
		r.add(p+".gc.pause", "with gc.every %v the pause must be > 0 and < every, got %v", s.GC.Every, s.GC.Pause)
	}
	check(r, p+".errors", Bounds.Share, s.Errors)
	check(r, p+".error_time", Bounds.Timeout, s.ErrorTime)
	check(r, p+".cache.size", Bounds.CacheSize, s.Cache.Size)
	check(r, p+".cache.hit_factor", Bounds.Share, s.Cache.HitFactor)
	validateLimiter(p+".limiter", &s.Limiter, r)
}

func validateLimiter(p string, lim *Limiter, r *reporter) {
	if lim.Kind != "" {
		r.oneOf(p+".kind", lim.Kind, limit.Kinds...)
	}
	bad := ""
	switch {
	case !Bounds.Limit.In(lim.Max):
		r.add(p+".max", "%s", Bounds.Limit.msg(lim.Max))
		return
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
