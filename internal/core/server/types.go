package server

import (
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Kind is what an attempt is to its client: first try, retry, hedge or a
// circuit breaker's probe. The server only carries it (dashboard colours).
type Kind uint8

// The attempt kinds.
const (
	First Kind = iota
	Retry
	Hedge
	Probe
)

var kindNames = [...]string{"first", "retry", "hedge", "probe"}

// String returns first, retry, hedge or probe.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Job is one attempt offered to the server.
type Job struct {
	ID       uint64        // attempt id, unique in the run
	Work     time.Duration // at speed 1; < 0 means none given: the server draws from Config.Work
	Key      uint64        // cache key
	Deadline clock.Instant // client's deadline; 0 = none (used by drop_expired)
	Kind     Kind
	Pick     uint64 // the attempt's pick number: a Fault draws by it
	Fault    Fault  // what its caller asks the server to do to it (zero: nothing)
}

// Status is how an attempt ended at the server.
type Status uint8

// The statuses.
const (
	OK        Status = iota // 200
	Error                   // 500: error share or fail mode, answered after ErrorTime without taking a worker
	Rejected                // 503 at once: queue full, max outstanding, limiter, LIFO eviction of the oldest, queue timeout
	Dropped                 // discarded because its deadline passed while queued (drop_expired): no work done
	Lost                    // the server was killed while it was queued or in service
	Refused                 // the server is down: connection refused
	Cancelled               // removed from the queue by Cancel (a hedge loser)
)

// Reasons a reply carries that a client must tell apart from a plain 503.
const (
	ReasonCancelled = "cancelled" // removed from the queue by Cancel
	ReasonExpired   = "expired"   // dropped because its deadline passed while queued
)

var statusNames = [...]string{"ok", "error", "rejected", "dropped", "lost", "refused", "cancelled"}

// String returns the status in lower case (ok, error, rejected, ...).
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "status(" + strconv.Itoa(int(s)) + ")"
}

// HTTPCode returns the HTTP status a live backend answers with: 200, 500,
// 503, or 0 where no response is sent (dropped, lost, refused, cancelled).
func (s Status) HTTPCode() int {
	switch s {
	case OK:
		return 200
	case Error:
		return 500
	case Rejected:
		return 503
	}
	return 0
}

// Reply is the end of one attempt at the server.
type Reply struct {
	ID      uint64
	Kind    Kind
	Status  Status
	Reason  string        // "", "fault", "error", "fail", "queue-full", "max-outstanding", "limit", "lifo-evicted", "queue-timeout", "expired", "killed", "down", "cancelled"
	At      clock.Instant // when the reply leaves the server (may be in the future, e.g. now+ErrorTime; the driver delivers it then)
	Queue   time.Duration // time waited in the queue
	Service time.Duration // time in service, including GC pauses
	Hit     bool          // cache hit
	Code    int           // the HTTP code a Fault chose (Status is what it stands for); 0 = the status's own
}

// HTTPCode is the code a live backend answers r with: the Fault's, else
// the status's (0: no response).
func (r *Reply) HTTPCode() int {
	if r.Code != 0 {
		return r.Code
	}
	return r.Status.HTTPCode()
}

// Served reports whether the server did r's work and answered 200 (not a
// status a Fault chose).
func (r *Reply) Served() bool { return r.Status == OK && r.Code == 0 }

// Snapshot is the server's state for the dashboard and the report.
type Snapshot struct {
	Name                    string
	Up, Paused, Failing     bool
	Speed                   float64
	Workers, Busy, Queued   int
	MaxQueue                int // longest queue seen since New
	Arrived, Completed      uint64
	Errors, Rejected        uint64
	Faults                  uint64 // answered with a status a Fault chose
	Probes                  uint64 // probes answered (Probe)
	Dropped, Lost           uint64
	CacheHits, CacheLookups uint64
	Limit                   int // current concurrency limit; 0 = none
	ErrorShare              float64
}
