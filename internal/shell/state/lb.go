package state

import "encoding/json"

// The balancer's answers (internal/shell/lb).

// LB is the balancer's GET /admin/state.
type LB struct {
	Name      string      `json:"name"`
	Index     int         `json:"index"`
	Addr      string      `json:"addr"`
	Admin     string      `json:"admin"`
	Algorithm string      `json:"algorithm"`
	Settings  Settings    `json:"settings"`
	Picks     uint64      `json:"picks"`
	Backends  []LBBackend `json:"backends"`
	// Discovery is the DNS watcher's progress (absent without --backends-dns).
	Discovery *Discovery `json:"discovery,omitempty"`
	// Connections, when the lab models them (the lb's conns.go).
	Connections *LBConns `json:"connections,omitempty"`
}

// LBBackend is one backend as this balancer sees it.
type LBBackend struct {
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

// LBConns is GET /admin/state's "connections", when the lab models
// connections: what this balancer opened to the backends and what it
// accepted from clients.
type LBConns struct {
	Opened      uint64  `json:"opened"`       // connections opened to backends (handshakes), redials included
	Redials     uint64  `json:"redials"`      // warm connections found closed by the backend and dialed again
	HandshakeMs float64 `json:"handshake_ms"` // the handshakes' emulated time, summed
	Waits       uint64  `json:"waits"`        // requests that waited for a connection (max_conns)
	WaitMs      float64 `json:"wait_ms"`      // the time they waited, summed
	Accepted    uint64  `json:"accepted"`     // connections clients opened to this balancer
}

// Event is one line of the event log.
type Event struct {
	TUnixNs int64  `json:"t_unix_ns"`
	Kind    string `json:"kind"` // breaker | outlier | health | algorithm | backend | settings
	Text    string `json:"text"`
}

// Settings are the balancer knobs as GET /admin/state and PUT
// /admin/settings show them: every lab-file leaf under balancers but
// balancers.count and balancers.algorithm (the tier's size, and the
// algorithm, which has its own endpoint), by its name under balancers, and
// the hops this process injects (network.hop and network.jitter as hop and
// jitter); durations and words as text. The JSON is written from the lab
// by walking labfile.Leaves (settingsJSON), so a balancer setting added to
// the lab file is shown and taken with no edit here.
//
// The fields are a typed reading of that JSON for Go callers (internal/lab,
// the tests), decoded from it (settingsOf), so they cannot disagree with
// it; a setting without a field here is still in the JSON.
type Settings struct {
	Timeout      string            `json:"timeout"`
	Hop          string            `json:"hop"`
	Jitter       string            `json:"jitter"`
	Load         string            `json:"load"`
	Refresh      string            `json:"refresh"`
	HashOn       string            `json:"hash_on"`
	Subset       int               `json:"subset"`
	Aperture     int               `json:"aperture"`
	ApertureLoad float64           `json:"aperture_load"`
	Choices      int               `json:"choices"`
	VNodes       int               `json:"vnodes"`
	Epsilon      float64           `json:"epsilon"`
	Decay        string            `json:"decay"`
	Breaker      BreakerSettings   `json:"breaker"`
	Outlier      OutlierSettings   `json:"outlier"`
	SlowStart    SlowStartSettings `json:"slow_start"`
	Health       HealthSettings    `json:"health"`

	// raw is the JSON the fields were read from, written again by
	// MarshalJSON (with every setting, those without a field too); "" for a
	// Settings built or decoded by a caller.
	raw string
}

// BreakerSettings is balancers.breaker.
type BreakerSettings struct {
	Enabled   bool    `json:"enabled"`
	Window    int     `json:"window"`
	Threshold float64 `json:"threshold"`
	Open      string  `json:"open"`
	Probes    int     `json:"probes"`
}

// OutlierSettings is balancers.outlier.
type OutlierSettings struct {
	Enabled             bool    `json:"enabled"`
	ConsecutiveFailures int     `json:"consecutive_failures"`
	Interval            string  `json:"interval"`
	BaseEjection        string  `json:"base_ejection"`
	MaxEjection         string  `json:"max_ejection"`
	MaxEjectionShare    float64 `json:"max_ejection_share"`
	SuccessRateK        float64 `json:"success_rate_k"`
	LatencyK            float64 `json:"latency_k"`
	MinRequests         int     `json:"min_requests"`
}

// SlowStartSettings is balancers.slow_start.
type SlowStartSettings struct {
	Enabled    bool    `json:"enabled"`
	Window     string  `json:"window"`
	Floor      float64 `json:"floor"`
	Aggression float64 `json:"aggression"`
}

// HealthSettings is balancers.health.
type HealthSettings struct {
	Enabled  bool   `json:"enabled"`
	Interval string `json:"interval"`
	Fails    int    `json:"fails"`
	Passes   int    `json:"passes"`
}

// MarshalJSON writes the JSON the settings were read from, when they were
// (settingsOf), else the fields.
func (s Settings) MarshalJSON() ([]byte, error) {
	if s.raw != "" {
		return []byte(s.raw), nil
	}
	type fields Settings // without this method
	return json.Marshal(fields(s))
}
