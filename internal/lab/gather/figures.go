package gather

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"go.uber.org/zap"
)

// ServerFigures asks every backend for its counters: what reached it, what
// it served, its longest queue and its cache hit ratio. A backend whose
// counters are lost (its process died) is given the balancers' view: the
// requests they sent it; what it completed is then unknown (0), and the
// log says so. connections says whether the lab models connections (each
// server's accepted connections are then reported); warn is lab's own log.
func ServerFigures(ctx context.Context, backends, lbs []*proc.Proc, connections bool, log *Log, warn *zap.Logger) []report.Server {
	var out []report.Server
	var total uint64
	var picks map[string]uint64 // the balancers' picks per server, read once if needed
	for _, b := range backends {
		var st state.Backend
		err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &st)
		c := st.Counters
		s := report.Server{Name: b.Name, Sent: c.Arrived, Completed: c.Completed, MaxQueue: c.MaxQueue}
		if err != nil {
			warn.Warn("cannot read a server's counters", zap.String("server", b.Name), zap.Error(err))
			if picks == nil {
				picks = balancerPicks(ctx, lbs)
			}
			if n, ok := picks[b.Name]; ok {
				s.Sent = n
				why, _, _ := strings.Cut(err.Error(), "\n")
				log.Add(time.Now(), fmt.Sprintf("%s: its own counters are lost (%s); sent is what the balancers sent it, completed is unknown",
					b.Name, why))
			}
		}
		if connections {
			s.Connections = st.AcceptedConnections
		}
		if c.CacheLookups > 0 {
			s.CacheHitRatio = float64(c.CacheHits) / float64(c.CacheLookups)
		}
		total += s.Sent
		out = append(out, s)
	}
	for i := range out {
		if total > 0 {
			out[i].Share = float64(out[i].Sent) / float64(total)
		}
	}
	return out
}

// balancerPicks sums, over the balancers that answer, how many requests
// each sent to each server.
func balancerPicks(ctx context.Context, lbs []*proc.Proc) map[string]uint64 {
	out := map[string]uint64{}
	for _, l := range lbs {
		var st state.LB
		if admin.Call(ctx, l.Ready.Admin, "GET", "/admin/state", nil, &st) != nil {
			continue
		}
		for _, b := range st.Backends {
			out[b.Name] += b.Picks
		}
	}
	return out
}

// BalancerConnections adds what the balancers' connections to the servers
// cost (their handshakes and waits, from their states) to a run's
// connection figures; the loadgen counted the clients' own.
func BalancerConnections(ctx context.Context, lbs []*proc.Proc, run *report.Run, warn *zap.Logger) {
	if run.Connections == nil {
		return
	}
	for _, p := range lbs {
		var st state.LB
		if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			warn.Warn("cannot read a balancer's connections", zap.String("balancer", p.Name), zap.Error(err))
			continue
		}
		if c := st.Connections; c != nil {
			run.Connections.Add(c.Opened, c.HandshakeMs, c.Waits, c.WaitMs, run.Requests)
		}
	}
}

// Probes is what a probing algorithm's probes cost a live run: the probes
// the balancers sent (their states) and those the backends answered
// (their counters). A process that does not answer is left out, and
// warned of.
func Probes(ctx context.Context, backends, lbs []*proc.Proc, requests uint64, warn *zap.Logger) *report.Probes {
	var sent, answered uint64
	eachState(ctx, backends, lbs, "probes", warn, func(st *state.LB) {
		if st.Probes != nil {
			sent += st.Probes.Sent
		}
	}, func(st *state.Backend) { answered += st.Counters.Probes })
	return report.NewProbes(sent, answered, requests)
}

// Announcements is what an idle-queue algorithm's announcements cost a
// live run and bought: the announcements the backends sent (their states),
// and the balancers' picks and those that took an idle backend off their
// queue (their states). A process that does not answer is left out, and
// warned of.
func Announcements(ctx context.Context, backends, lbs []*proc.Proc, requests uint64, warn *zap.Logger) *report.Announcements {
	var sent, picks, fromQueue uint64
	eachState(ctx, backends, lbs, "idle announcements", warn, func(st *state.LB) {
		picks += st.Picks
		if st.Idle != nil {
			fromQueue += st.Idle.FromQueue
		}
	}, func(st *state.Backend) {
		if st.Idle != nil {
			sent += st.Idle.Sent
		}
	})
	return report.NewAnnouncements(sent, requests, picks, fromQueue)
}

// eachState reads GET /admin/state of every balancer, then of every
// backend, and hands each to its function; a process that does not
// answer is left out, and warned of as what could not be read of it.
func eachState(ctx context.Context, backends, lbs []*proc.Proc, what string, warn *zap.Logger, lb func(*state.LB), backend func(*state.Backend)) {
	for _, p := range lbs {
		var st state.LB
		if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			warn.Warn("cannot read a balancer's "+what, zap.String("balancer", p.Name), zap.Error(err))
			continue
		}
		lb(&st)
	}
	for _, b := range backends {
		var st state.Backend
		if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			warn.Warn("cannot read a server's "+what, zap.String("server", b.Name), zap.Error(err))
			continue
		}
		backend(&st)
	}
}
