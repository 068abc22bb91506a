package state

// The DNS watcher's progress (internal/shell/discover), part of the
// balancer's and the loadgen's state.

// Discovery is what the admin APIs show of a watcher.
type Discovery struct {
	Name    string `json:"name"`  // HOST:PORT resolved
	Every   string `json:"every"` // between rounds
	Rounds  uint64 `json:"rounds"`
	Members int    `json:"members"`         // members the fleet holds from this name
	Error   string `json:"error,omitempty"` // the last round's trouble ("" = none)
}
