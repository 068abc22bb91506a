package load

import "time"

// Probe is a server's answer to a probe (Prequal, docs/model.md "Probes"):
// its requests in flight at the instant it answered, and how long a request
// that arrived at about that many in flight took lately. The emulated server
// makes it (server.Server.Probe); the simulator carries it back to the
// balancer as an event, the live backend answers it on GET /probe
// (internal/shell/wire encodes and decodes it once), and a probing
// algorithm (balance.Prober) keeps it in its pool.
type Probe struct {
	// RIF is the server's requests in flight: queued plus in service.
	RIF int
	// Latency is the server's estimate of a request's time there (queue
	// plus service) when it arrives with RIF others in flight; 0 when the
	// server has served nothing yet to estimate it from.
	Latency time.Duration
}

// Sane reports whether p's figures can be taken as they are: neither is
// negative. A driver hands an algorithm only sane answers.
func (p Probe) Sane() bool { return p.RIF >= 0 && p.Latency >= 0 }
