package labfile

import (
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/server"
)

// Default returns the playground lab: five servers behind one p2c balancer,
// an open-loop client at 200 requests/s, no script, every other knob at its
// default.
func Default() *Lab {
	l := &Lab{
		Name:        "playground",
		Description: "five servers behind one p2c balancer at 200 req/s; no script",
		Narration:   "Turn the knobs and watch latency, queues and each server's share.",
		Clients:     Clients{Rate: 200},
	}
	applyDefaults(l, nil)
	return l
}

// defaulter fills a field with its default when the field is zero and the
// file did not set it: an explicit 0 (zipf: 0, hop: 0) is kept as written.
// present is nil for labs not read from a file; then zero means absent.
type defaulter struct{ present func(path string) bool }

func (d defaulter) absent(path string) bool { return d.present == nil || !d.present(path) }

func def[T comparable](d defaulter, p *T, path string, v T) {
	var zero T
	if *p == zero && d.absent(path) {
		*p = v
	}
}

// applyDefaults fills every defaulted field left out (see the comments in
// schema.go and docs/labfile.md).
func applyDefaults(l *Lab, present func(path string) bool) {
	d := defaulter{present}
	def(d, &l.Seed, "seed", 1)
	def(d, &l.Duration, "duration", 20*time.Second)
	def(d, &l.Network.Hop, "network.hop", 5*time.Millisecond)
	def(d, &l.Network.Keepalive, "network.keepalive", 10*time.Second)
	defaultClients(d, &l.Clients)
	defaultBalancers(d, &l.Balancers)
	if len(l.Servers) == 0 && d.absent("servers") {
		l.Servers = []ServerGroup{{Count: 5}}
	}
	for i := range l.Servers {
		defaultServer(d, &l.Servers[i], indexPath("servers", i))
	}
	defaultEvents(l)
	def(d, &l.Report.Headline, "report.headline", HeadlineP99)
}

func defaultClients(d defaulter, c *Clients) {
	def(d, &c.Mode, "clients.mode", OpenLoop)
	def(d, &c.Rate, "clients.rate", 100)
	def(d, &c.Users, "clients.users", 10)
	def(d, &c.Think, "clients.think", 100*time.Millisecond)
	def(d, &c.Count, "clients.count", 20)
	def(d, &c.Activity, "clients.activity", EvenActivity)
	def(d, &c.WorkAt, "clients.work_at", WorkAtClient)
	def(d, &c.Keys, "clients.keys", 1000)
	def(d, &c.Zipf, "clients.zipf", 1.1)
	defaultDist(d, &c.Work, "clients.work")
	def(d, &c.Backoff.Base, "clients.backoff.base", 10*time.Millisecond)
	def(d, &c.Backoff.Jitter, "clients.backoff.jitter", FullJitter)
}

// defaultDist: exponential (mixture when mix parts are given), mean 10ms
// (not for a mixture), cv 1.
func defaultDist(d defaulter, w *Dist, path string) {
	if len(w.Mix) > 0 {
		def(d, &w.Kind, path+".dist", "mixture")
	}
	def(d, &w.Kind, path+".dist", "exponential")
	if w.Kind != "mixture" {
		def(d, &w.Mean, path+".mean", 10*time.Millisecond)
	}
	def(d, &w.CV, path+".cv", 1)
}

// defaultBalancers fills the tier's defaults from its table (knobs.go).
func defaultBalancers(d defaulter, b *Balancers) {
	for _, k := range balancerKnobs(b) {
		k.fill(d)
	}
}

func defaultServer(d defaulter, g *ServerGroup, path string) {
	def(d, &g.Count, path+".count", 1)
	def(d, &g.Workers, path+".workers", 1)
	def(d, &g.Queue.Discipline, path+".queue.discipline", FIFO)
	def(d, &g.Speed, path+".speed", server.DefaultSpeed)
	def(d, &g.ErrorTime, path+".error_time", server.DefaultErrorTime)
	def(d, &g.Cache.HitFactor, path+".cache.hit_factor", 0.2)
	def(d, &g.Limiter.Initial, path+".limiter.initial", limit.DefaultInitial)
	def(d, &g.Limiter.Min, path+".limiter.min", limit.DefaultMin)
	def(d, &g.Limiter.Max, path+".limiter.max", limit.DefaultMax)
	if g.Work != nil {
		defaultDist(d, g.Work, path+".work")
	}
}

// defaultEvents names the servers that add-server events leave unnamed:
// s<N+k> for the k-th server added, N being the servers in the file.
func defaultEvents(l *Lab) {
	n := totalServers(l.Servers)
	added := 0
	for i := range l.Events {
		e := &l.Events[i]
		if e.Action != "add-server" {
			continue
		}
		added++
		if e.Target == "" && n >= 0 {
			e.Target = "s" + strconv.Itoa(n+added)
		}
	}
}

// totalServers sums the group counts; -1 if a count is negative or the sum
// exceeds maxServers (the lab is invalid then).
func totalServers(groups []ServerGroup) int {
	total := 0
	for _, g := range groups {
		if g.Count < 0 || g.Count > maxServers {
			return -1
		}
		total += g.Count
		if total > maxServers {
			return -1
		}
	}
	return total
}
