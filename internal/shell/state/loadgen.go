package state

// The loadgen's answers (internal/shell/loadgen).

// Loadgen is the loadgen's GET /admin/state.
type Loadgen struct {
	Mode     string   `json:"mode"` // open | closed
	Rate     float64  `json:"rate"` // target arrivals per second now (open loop): the profile's, or the constant rate
	Users    int      `json:"users,omitempty"`
	Profile  string   `json:"profile,omitempty"` // the load profile in force (clients.profile), if any
	ElapsedS float64  `json:"elapsed_s"`
	Late     uint64   `json:"late"`
	Targets  []Target `json:"targets"`
	// Discovery is --servers-dns's watcher (client-side), nil without one.
	Discovery *Discovery `json:"discovery,omitempty"`
}

// Target is one target's counters so far.
type Target struct {
	Name      string  `json:"name"`
	Requests  uint64  `json:"requests"`
	Pending   int     `json:"pending"`
	Succeeded uint64  `json:"succeeded"`
	Failed    uint64  `json:"failed"`
	Attempts  uint64  `json:"attempts"`
	Timeouts  uint64  `json:"timeouts"`
	Rejected  uint64  `json:"rejected"`
	Errors    uint64  `json:"errors"`
	Retries   uint64  `json:"retries"`
	Hedges    uint64  `json:"hedges"`
	Wasted    uint64  `json:"wasted"`
	Crossed   uint64  `json:"crossed,omitempty"` // attempts that crossed a zone (a lab with zones)
	P50       float64 `json:"p50_ms"`
	P99       float64 `json:"p99_ms"`
	// Servers, client-side, are the servers the clients balance over now.
	Servers []string `json:"servers,omitempty"`
}
