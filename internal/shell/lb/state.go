package lb

import (
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/shell/discover"
)

// State is GET /admin/state.
type State struct {
	Name      string         `json:"name"`
	Index     int            `json:"index"`
	Addr      string         `json:"addr"`
	Admin     string         `json:"admin"`
	Algorithm string         `json:"algorithm"`
	Settings  Settings       `json:"settings"`
	Picks     uint64         `json:"picks"`
	Backends  []BackendState `json:"backends"`
	// Discovery is the DNS watcher's progress (absent without --backends-dns).
	Discovery *discover.Status `json:"discovery,omitempty"`
	// Connections, when the lab models them (conns.go).
	Connections *ConnState `json:"connections,omitempty"`
}

// BackendState is one backend as this balancer sees it.
type BackendState struct {
	Name        string  `json:"name"`
	Addr        string  `json:"addr"`
	Admin       string  `json:"admin,omitempty"`
	Weight      float64 `json:"weight"`
	Outstanding int     `json:"outstanding"`  // local: sent, not answered; shared: last report
	Queued      int     `json:"queued"`       // last load report plus local sends since; 0 without reports
	InService   int     `json:"in_service"`   // last load report; 0 without reports
	EWMAMs      float64 `json:"ewma_ms"`      // time-decayed latency average
	PeakEWMAMs  float64 `json:"peak_ewma_ms"` // Finagle peak EWMA, decayed to now
	Breaker     string  `json:"breaker"`      // closed | open | half-open
	Healthy     bool    `json:"healthy"`      // active health checks' verdict
	Ejected     bool    `json:"ejected"`      // out of rotation as an outlier (balancers.outlier)
	Member      bool    `json:"member"`       // in this balancer's subset
	Share       float64 `json:"share"`        // of all picks so far
	Picks       uint64  `json:"picks"`
	Present     bool    `json:"present"` // false once removed
}

// State reports the balancer's view of its backends.
func (l *LB) State() State {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.nowLocked()
	s := State{Name: l.cfg.Name, Index: l.cfg.Index, Algorithm: l.bal.Algorithm(),
		Settings: settingsOf(l.lab), Picks: l.picks, Backends: make([]BackendState, len(l.backends)),
		Discovery: l.discoveryStatus(), Connections: l.connState()}
	if l.ln != nil {
		s.Addr, s.Admin = l.ln.Addr().String(), l.adLn.Addr().String()
	}
	member := map[int]bool{}
	for _, i := range l.bal.Members() {
		member[i] = true
	}
	for i := range l.backends {
		s.Backends[i] = l.backendAt(now, i, member[i])
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
	if st.HasReport { // without reports Queued only counts sends
		bs.Queued, bs.InService = st.Queued, st.InService
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
