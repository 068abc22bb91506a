package policy

import "github.com/lblab/lblab/internal/core/server"

// Result is how one attempt ended, as the balancer or client sees it.
type Result uint8

const (
	OK        Result = iota // 200
	Error                   // 500 or 502 (server error, refused or reset connection)
	Rejected                // 503 (shed by a queue, limit or max outstanding)
	Timeout                 // 504, an attempt timeout, or dropped expired at the server
	Cancelled               // withdrawn while queued (a hedge's loser): no verdict on the server
)

func (r Result) String() string {
	return [...]string{"ok", "error", "rejected", "timeout", "cancelled"}[r]
}

// ResultOf is how an attempt's end at a server reads to whoever waits for
// it. This is the one mapping from the server model to the policies: the
// simulator applies it to the emulated server's replies, the live processes
// to the backend's HTTP answers once read back as a status (wire.Classify).
func ResultOf(s server.Status) Result {
	switch s {
	case server.OK:
		return OK
	case server.Rejected:
		return Rejected
	case server.Cancelled:
		return Cancelled
	case server.Dropped: // its deadline passed while it queued
		return Timeout
	}
	return Error // error, fail, lost (reset), refused
}
