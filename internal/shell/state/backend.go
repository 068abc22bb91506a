package state

import (
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/server"
)

// The backend's answers (internal/shell/backend).

// Backend is the backend's GET /admin/state: the core's snapshot plus the settings in force.
type Backend struct {
	Name             string   `json:"name"`
	Addr             string   `json:"addr"`  // data listener
	Admin            string   `json:"admin"` // admin listener
	Up               bool     `json:"up"`
	Listening        bool     `json:"listening"` // the data listener is open (false after a kill)
	Paused           bool     `json:"paused"`    // in a GC pause
	Fail             bool     `json:"fail"`
	Speed            float64  `json:"speed"`
	ConfiguredSpeed  float64  `json:"configured_speed"` // what restore goes back to
	Errors           float64  `json:"errors"`           // share of fast 500s
	ConfiguredErrors float64  `json:"configured_errors"`
	Workers          int      `json:"workers"`
	Busy             int      `json:"busy"`
	Queued           int      `json:"queued"`
	QueuedKinds      []string `json:"queued_kinds"` // oldest first
	// QueuedAbandoned marks, in QueuedKinds' order, the queued attempts
	// whose client no longer waits for them (it gave up, or another
	// attempt answered). A backend cannot know; the simulator (lab watch)
	// can, and only it sets this.
	QueuedAbandoned []bool   `json:"queued_abandoned,omitempty"`
	Queue           Queue    `json:"queue"`
	MaxOutstanding  int      `json:"max_outstanding"`  // 0 = no limit
	QueueTimeoutMs  float64  `json:"queue_timeout_ms"` // 0 = none
	Limiter         Limiter  `json:"limiter"`
	HopMs           float64  `json:"hop_ms"`
	JitterMs        float64  `json:"jitter_ms"`
	CancelOnClose   bool     `json:"cancel_on_close"`
	Counters        Counters `json:"counters"`
	// Idle is its idle announcements (join-the-idle-queue), when an
	// algorithm of its lab keeps an idle queue.
	Idle *BackendIdle `json:"idle,omitempty"`
	// Connections accepted on the data listener since start (TCP, before
	// any TLS handshake): what the clients or balancers opened to it.
	AcceptedConnections uint64 `json:"accepted_connections"`
	AtUnixNs            int64  `json:"at_unix_ns"`
}

// BackendIdle is the backend's idle announcements: the balancers it
// announces to (their admin addresses, in tier order, as the lab posted
// them) and how its announcements (POST /admin/idle) ended.
type BackendIdle struct {
	Balancers []string `json:"balancers"`
	Sent      uint64   `json:"sent"`    // announcements the balancer took
	Failed    uint64   `json:"failed"`  // no answer, or not a 200
	Dropped   uint64   `json:"dropped"` // not sent: too many on their way already
}

// Queue is the queue's capacity (0 = unbounded) and discipline.
type Queue struct {
	Capacity    int    `json:"capacity"`
	Discipline  string `json:"discipline"` // fifo | lifo
	DropExpired bool   `json:"drop_expired"`
}

// Limiter is the concurrency limiter: its kind and bounds as set, and
// the limit it has reached (0 when there is none).
type Limiter struct {
	Kind    string `json:"kind"` // none | aimd | gradient2
	Initial int    `json:"initial,omitempty"`
	Min     int    `json:"min,omitempty"`
	Max     int    `json:"max,omitempty"`
	Limit   int    `json:"limit"`
}

// Counters are totals since the process started.
type Counters struct {
	Arrived      uint64 `json:"arrived"`
	Completed    uint64 `json:"completed"`
	Errors       uint64 `json:"errors"`
	Rejected     uint64 `json:"rejected"`
	Dropped      uint64 `json:"dropped"`
	Lost         uint64 `json:"lost"`
	CacheHits    uint64 `json:"cache_hits"`
	CacheLookups uint64 `json:"cache_lookups"`
	MaxQueue     int    `json:"max_queue"`
	Faults       uint64 `json:"faults"` // answered with the status a request's fault asked for
	Probes       uint64 `json:"probes"` // balancers' probes answered (GET /probe)
}

// CountersOf are a server's counters as its snapshot has them: the
// backend's GET /admin/state and lab watch's snapshot both take them here.
func CountersOf(s server.Snapshot) Counters {
	return Counters{Arrived: s.Arrived, Completed: s.Completed, Errors: s.Errors, Rejected: s.Rejected,
		Dropped: s.Dropped, Lost: s.Lost, CacheHits: s.CacheHits, CacheLookups: s.CacheLookups,
		MaxQueue: s.MaxQueue, Faults: s.Faults, Probes: s.Probes}
}

// Load is the backend's GET /load, the report balancers poll for shared load
// (and for weights out of band): the server's load report (load.Report, its
// figures by their ORCA names), whether it is up and when it was taken.
type Load struct {
	Up bool `json:"up"`
	load.Report
	AtUnixNs int64 `json:"at_unix_ns"`
}
