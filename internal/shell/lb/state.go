package lb

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/shell/state"
)

// State is state.LB.
type State = state.LB

// BackendState is state.LBBackend.
type BackendState = state.LBBackend

// State reports the balancer's view of its backends.
func (l *LB) State() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowLocked()
	s := State{Name: l.cfg.Name, Index: l.cfg.Index, Algorithm: l.bal.Algorithm(),
		Settings: state.SettingsOf(l.lab), Picks: l.picks, Backends: make([]BackendState, len(l.backends)),
		Discovery: l.discoveryStatus(), Connections: l.connState(), Probes: l.probeState(), Idle: l.idleState()}
	if l.ln != nil {
		s.Addr, s.Admin = l.ln.Addr().String(), l.adLn.Addr().String()
	}
	member := map[int]bool{}
	for _, i := range l.bal.Members() {
		member[i] = true
	}
	pool := l.bal.Pool()
	for i := range l.backends {
		s.Backends[i] = l.backendAt(now, i, member[i])
		s.Backends[i].Probe = state.PoolProbe(now, pool, i)
	}
	return s
}

// backendAt is backend i's state. Caller holds mu.
func (l *LB) backendAt(now clock.Instant, i int, member bool) BackendState {
	b, st := l.backends[i], &l.bal.Loads().Stats[i]
	bs := BackendState{Name: b.Name, Addr: b.Addr, Admin: b.Admin, Weight: b.Weight,
		Outstanding: st.Outstanding,
		EWMAMs:      st.Latency.Value() / 1e6, PeakEWMAMs: st.Peak.At(now) / 1e6,
		Breaker: l.bal.BreakerState(now, i).String(), Healthy: b.healthy, Ejected: l.bal.Ejected(i), Member: member,
		Picks: b.picks, Present: b.present}
	if st.Last.Valid { // without reports Queued only counts sends
		bs.Queued, bs.InService, bs.Utilization = st.Queued, st.Last.InService, st.Last.Utilization
	}
	if w, ok := l.bal.ReportedWeight(now, i); ok {
		bs.ORCAWeight = w
	}
	if l.picks > 0 {
		bs.Share = float64(b.picks) / float64(l.picks)
	}
	return bs
}

// backendState is the present backend called name (after POST).
func (l *LB) backendState(name string) BackendState {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowLocked()
	i := l.byName[name]
	member := false
	for _, j := range l.bal.Members() {
		member = member || j == i
	}
	return l.backendAt(now, i, member)
}
