package state

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
)

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
	// Probes, when the algorithm probes the backends (prequal).
	Probes *LBProbes `json:"probes,omitempty"`
	// Idle, when the algorithm keeps an idle queue (jiq).
	Idle *LBIdle `json:"idle,omitempty"`
}

// LBIdle is GET /admin/state's "idle", when the algorithm keeps an idle
// queue the backends announce themselves to (jiq): the announcements that
// reached it, its picks that took an idle backend off the queue, and the
// queue now, head first.
type LBIdle struct {
	Received  uint64   `json:"received"`  // POST /admin/idle announcements taken
	FromQueue uint64   `json:"from_idle"` // picks that took a backend off the idle queue (the others drew at random)
	Queue     []string `json:"queue"`     // the backends in the idle queue, head first
}

// IdleQueue is the lb's GET /admin/idle-queue: its idle queue's length and
// the backends in it, head first (empty for an algorithm without one).
type IdleQueue struct {
	Length int      `json:"length"`
	Queue  []string `json:"queue"`
}

// LBProbes is GET /admin/state's "probes", when the algorithm probes the
// backends (prequal): the probes sent to their GET /probe, and how they
// ended.
type LBProbes struct {
	Sent     uint64 `json:"sent"`     // probes started
	Answered uint64 `json:"answered"` // answers handed to the algorithm
	Failed   uint64 `json:"failed"`   // no answer: a refused or reset connection, a timeout, an answer it cannot read
	Dropped  uint64 `json:"dropped"`  // not sent: too many probes on their way already
}

// LBProbe is a backend's probe answer in the algorithm's pool.
type LBProbe struct {
	RIF       int     `json:"rif"`        // its requests in flight as answered, plus one per pick it served since
	LatencyMs float64 `json:"latency_ms"` // its latency estimate
	AgeMs     float64 `json:"age_ms"`     // since the answer reached the balancer
	Hot       bool    `json:"hot"`        // its RIF is above the pool's q_rif quantile
}

// PoolProbe is the probe answer of server i (a global index) in a probing
// algorithm's pool (policy.Balancer.Pool) at now, nil when the pool holds
// none: the lb's GET /admin/state and lab watch's snapshot both make it
// here.
func PoolProbe(now clock.Instant, pool []balance.PoolEntry, i int) *LBProbe {
	for _, e := range pool {
		if e.Member == i {
			return &LBProbe{RIF: e.RIF, LatencyMs: float64(e.Latency) / 1e6, AgeMs: float64(now.Sub(e.At)) / 1e6, Hot: e.Hot}
		}
	}
	return nil
}

// LBBackend is one backend as this balancer sees it.
type LBBackend struct {
	Name        string  `json:"name"`
	Addr        string  `json:"addr"`
	Admin       string  `json:"admin,omitempty"`
	Weight      float64 `json:"weight"`
	Outstanding int     `json:"outstanding"` // local: sent, not answered; shared: last report
	Queued      int     `json:"queued"`      // last load report plus local sends since; 0 without reports
	InService   int     `json:"in_service"`  // last load report; 0 without reports
	Utilization float64 `json:"utilization"` // last load report's (ORCA cpu_utilization); 0 without reports
	// ORCAWeight is the weight wrr-orca gives it now (0: none counts: no
	// report yet, in the blackout or expired; the scheduler uses the mean)
	ORCAWeight float64 `json:"orca_weight,omitempty"`
	EWMAMs     float64 `json:"ewma_ms"`      // time-decayed latency average
	PeakEWMAMs float64 `json:"peak_ewma_ms"` // Finagle peak EWMA, decayed to now
	Breaker    string  `json:"breaker"`      // closed | open | half-open
	Healthy    bool    `json:"healthy"`      // active health checks' verdict
	Ejected    bool    `json:"ejected"`      // out of rotation as an outlier (balancers.outlier)
	Member     bool    `json:"member"`       // in this balancer's subset
	Share      float64 `json:"share"`        // of all picks so far
	Picks      uint64  `json:"picks"`
	Present    bool    `json:"present"` // false once removed
	// Probe is its answer in a probing algorithm's pool (prequal), when
	// the pool holds one.
	Probe *LBProbe `json:"probe,omitempty"`
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
// the lab file is shown and taken with no edit here. A Go caller reads a
// setting by its name with Value ("breaker.threshold"); Settings decoded
// from an answer keep its JSON whole, and write it again as it came.
//
// The fields are not a restatement of the tier: they are the two settings
// the dashboard's balancer badge reads as fields (internal/lab/dash), read
// from the JSON, and TestSettingsFields checks that each is a setting of
// the API with the JSON type its leaf has.
type Settings struct {
	Timeout string          `json:"timeout"`
	Breaker BreakerSettings `json:"breaker"`

	// raw is the JSON the fields were read from (settingsOf, or an
	// answer decoded), written again by MarshalJSON, with every setting;
	// "" for a Settings built by a caller.
	raw string
}

// BreakerSettings is the part of balancers.breaker read as a field.
type BreakerSettings struct {
	Enabled bool `json:"enabled"`
}

// MarshalJSON writes the JSON the settings were read from, when they were,
// else the fields.
func (s Settings) MarshalJSON() ([]byte, error) {
	if s.raw != "" {
		return []byte(s.raw), nil
	}
	type fields Settings // without these methods
	return json.Marshal(fields(s))
}

// UnmarshalJSON reads the fields and keeps the JSON whole.
func (s *Settings) UnmarshalJSON(b []byte) error {
	type fields Settings // without these methods
	var f fields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	*s = Settings(f)
	s.raw = buf.String()
	return nil
}

// Value returns the setting called name ("timeout", "breaker.threshold")
// as its JSON value: a string (durations and words), a float64 (numbers)
// or a bool; ok is false for a name the JSON does not hold.
func (s Settings) Value(name string) (v any, ok bool) {
	raw, err := s.MarshalJSON()
	if err != nil {
		return nil, false
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil, false
	}
	v = m
	for seg := range strings.SplitSeq(name, ".") {
		sec, isSec := v.(map[string]any)
		if !isSec {
			return nil, false
		}
		if v, ok = sec[seg]; !ok {
			return nil, false
		}
	}
	_, isSec := v.(map[string]any)
	return v, !isSec
}
