package lab

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/proxies"
	"github.com/lblab/lblab/internal/shell/state"
)

// The external proxy on the live dashboard: each 250 ms reading reads its
// stats interface (readStats, external.go) as it reads every lb's
// /admin/state, and turns the figures into the balancer card the
// dashboard draws for lb: the algorithm, the requests sent, and per server
// what it has in flight and a breaker-like state from the proxy's own
// verdict.

// proxySources say where each kind's live figures come from, and what its
// stats interface does not give.
var proxySources = map[string]struct{ source, note string }{
	"haproxy": {"HAProxy's stats CSV (GET /stats;csv): sessions now, requests sent and status per server", ""},
	"nginx": {"nginx's stub_status: active client connections and requests handled",
		"open-source nginx's stub_status has no per-server figures: a server's share is the backends' own count, and no outstanding or down state is shown"},
	"caddy": {"Caddy's admin API (GET /reverse_proxy/upstreams): requests in flight and recent failures per upstream",
		"Caddy counts no requests sent per upstream: a server's share is the backends' own count"},
	proxies.KindCommand: {"", "lab reads no stats from a proxy of your own: the figures are the backends' and the loadgen's"},
}

// liveStats reads the proxy's stats for a dashboard reading (nil for
// kind: command, which has no stats interface lab knows).
func (x *externalProxy) liveStats(ctx context.Context) (*ProxyStats, error) {
	if x.kind.Kind == proxies.KindCommand {
		return nil, nil
	}
	st, err := x.readStats(ctx)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// liveReading is the proxy as one balancer of a dashboard reading: st its
// stats (nil: none, or err says why they could not be read), servers the
// backends' readings of the same tick (the requests it sent are theirs
// summed: not every proxy counts them, and nginx's count includes the
// dashboard's own stats requests).
func (x *externalProxy) liveReading(st *ProxyStats, err error, servers []dash.ServerReading) dash.LBReading {
	x.mu.Lock()
	lab, backends := x.conf.Lab, x.conf.Servers
	x.mu.Unlock()
	algorithm := lab.Balancers.Algorithm
	src := proxySources[x.kind.Kind]
	p := &dash.Proxy{Kind: x.kind.Kind, Name: x.kind.Name, Source: src.source, Note: src.note, Servers: []dash.ProxyServer{}}
	if x.kind.Kind != proxies.KindCommand {
		p.Directive, _ = x.kind.Directive(algorithm, &lab.Balancers)
		p.Directive = strings.ReplaceAll(p.Directive, "\n", "; ")
	}
	out := dash.LBReading{Name: x.kind.Kind, Exited: x.proc.ExitedHow(), Proxy: p}
	if err != nil {
		out.Err = x.kind.Name + "'s stats: " + firstLine(err.Error())
		return out // the previous reading's figures are carried (dash.Reading.carry)
	}
	ls := &state.LB{Name: x.kind.Kind, Addr: x.proc.Ready.Addr, Algorithm: algorithm}
	for _, s := range servers {
		if s.State != nil {
			ls.Picks += s.State.Counters.Arrived
		}
	}
	if st != nil {
		if x.kind.Kind == "nginx" {
			active, requests := st.Active, st.Requests
			p.Active, p.Requests = &active, &requests
		}
		names, order := map[string]string{}, map[string]int{} // Caddy names an upstream by its address, in an order of its own
		for i, b := range backends {
			names[b.Addr], order[b.Name] = b.Name, i
		}
		servers := slices.Clone(st.Servers)
		slices.SortStableFunc(servers, func(a, b ProxyServer) int {
			return cmp.Compare(order[cmp.Or(names[a.Name], a.Name)], order[cmp.Or(names[b.Name], b.Name)])
		})
		for _, s := range servers {
			name := s.Name
			if n, ok := names[name]; ok {
				name = n
			}
			if br := lab.Balancers.Breaker; x.kind.Kind == "caddy" && br.Enabled && s.Status == "" {
				// Caddy leaves out an upstream with max_fails recent failures
				s.Status = map[bool]string{true: "down", false: "up"}[s.Fails >= proxies.BreakerFails(br)]
			}
			ps := dash.ProxyServer{Name: name, Status: s.Status, Now: s.Current, Fails: s.Fails}
			if x.kind.Kind == "haproxy" {
				total := s.Total
				ps.Sent = &total
			}
			p.Servers = append(p.Servers, ps)
			ls.Backends = append(ls.Backends, state.LBBackend{Name: name, Addr: s.Name, Weight: 1,
				Outstanding: s.Current, Picks: s.Total, Breaker: proxyBreaker(s.Status),
				Healthy: true, Member: true, Present: true})
		}
	}
	out.State = ls
	return out
}

// proxyBreaker is the breaker state the dashboard shows for a proxy's
// verdict on a server: DOWN or MAINT (HAProxy; Caddy's down) is an open
// breaker, a DOWN server its checks are bringing back ("DOWN 1/2") a
// half-open one; anything else (UP, "UP 1/3" going down, NOLB, DRAIN, no
// check, "" where the proxy says nothing) is closed.
func proxyBreaker(status string) string {
	switch s := strings.ToUpper(status); {
	case strings.HasPrefix(s, "MAINT"), s == "DOWN":
		return "open"
	case strings.HasPrefix(s, "DOWN "):
		return "half-open"
	}
	return "closed"
}
