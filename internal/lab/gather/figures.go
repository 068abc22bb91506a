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

// States is what every process of a run says of itself at its end: one
// GET /admin/state of each, read once (ReadStates) and handed to each
// figure of the report (ServerFigures, BalancerConnections, Probes,
// Announcements).
type States struct {
	Backends []BackendState // every backend, in order
	LBs      []*state.LB    // the balancers that answered, in order
}

// BackendState is one backend's state at the end, or why it is lost (its
// process died): Err set, State nil.
type BackendState struct {
	Name  string
	State *state.Backend
	Err   error
}

// ReadStates reads the state of every backend and balancer once. A process
// that does not answer is warned of on lab's own log (warn); a backend's
// loss is kept, for ServerFigures to say.
func ReadStates(ctx context.Context, backends, lbs []*proc.Proc, warn *zap.Logger) *States {
	out := &States{}
	for _, p := range lbs {
		var st state.LB
		if err := admin.Call(ctx, p.Ready.Admin, "GET", "/admin/state", nil, &st); err != nil {
			warn.Warn("cannot read a balancer's state at the end of the run", zap.String("balancer", p.Name), zap.Error(err))
			continue
		}
		out.LBs = append(out.LBs, &st)
	}
	for _, b := range backends {
		bs := BackendState{Name: b.Name, State: &state.Backend{}}
		if err := admin.Call(ctx, b.Ready.Admin, "GET", "/admin/state", nil, bs.State); err != nil {
			warn.Warn("cannot read a server's state at the end of the run", zap.String("server", b.Name), zap.Error(err))
			bs.State, bs.Err = nil, err
		}
		out.Backends = append(out.Backends, bs)
	}
	return out
}

// ServerFigures gives every backend's counters: what reached it, what it
// served, its longest queue and its cache hit ratio. A backend whose
// counters are lost (its process died) is given the balancers' view: the
// requests they sent it; what it completed is then unknown (0), and the
// event log says so. connections says whether the lab models connections
// (each server's accepted connections are then reported).
func ServerFigures(sts *States, connections bool, log *Log) []report.Server {
	var out []report.Server
	var total uint64
	for _, b := range sts.Backends {
		s := report.Server{Name: b.Name}
		if st := b.State; st != nil {
			c := st.Counters
			s.Sent, s.Completed, s.MaxQueue = c.Arrived, c.Completed, c.MaxQueue
			if connections {
				s.Connections = st.AcceptedConnections
			}
			if c.CacheLookups > 0 {
				s.CacheHitRatio = float64(c.CacheHits) / float64(c.CacheLookups)
			}
		} else if n, ok := sts.picks()[b.Name]; ok {
			s.Sent = n
			why, _, _ := strings.Cut(b.Err.Error(), "\n")
			log.Add(time.Now(), fmt.Sprintf("%s: its own counters are lost (%s); sent is what the balancers sent it, completed is unknown",
				b.Name, why))
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

// picks sums, over the balancers that answered, how many requests each
// sent to each server.
func (sts *States) picks() map[string]uint64 {
	out := map[string]uint64{}
	for _, st := range sts.LBs {
		for _, b := range st.Backends {
			out[b.Name] += b.Picks
		}
	}
	return out
}

// BalancerConnections adds what the balancers' connections to the servers
// cost (their handshakes and waits, from their states) to a run's
// connection figures; the loadgen counted the clients' own.
func BalancerConnections(sts *States, run *report.Run) {
	if run.Connections == nil {
		return
	}
	for _, st := range sts.LBs {
		if c := st.Connections; c != nil {
			run.Connections.Add(c.Opened, c.HandshakeMs, c.Waits, c.WaitMs, run.Requests)
		}
	}
}

// Probes is what a probing algorithm's probes cost a live run: the probes
// the balancers sent (their states) and those the backends answered
// (their counters). A process that did not answer is left out.
func Probes(sts *States, requests uint64) *report.Probes {
	var sent, answered uint64
	for _, st := range sts.LBs {
		if st.Probes != nil {
			sent += st.Probes.Sent
		}
	}
	for _, b := range sts.Backends {
		if b.State != nil {
			answered += b.State.Counters.Probes
		}
	}
	return report.NewProbes(sent, answered, requests)
}

// Announcements is what an idle-queue algorithm's announcements cost a
// live run and bought: the announcements the backends sent, and the
// balancers' picks and those that took an idle backend off their queue
// (their states). A process that did not answer is left out.
func Announcements(sts *States, requests uint64) *report.Announcements {
	var sent, picks, fromQueue uint64
	for _, st := range sts.LBs {
		picks += st.Picks
		if st.Idle != nil {
			fromQueue += st.Idle.FromQueue
		}
	}
	for _, b := range sts.Backends {
		if b.State != nil && b.State.Idle != nil {
			sent += b.State.Idle.Sent
		}
	}
	return report.NewAnnouncements(sent, requests, picks, fromQueue)
}
