package load

import (
	"math"

	"github.com/lblab/lblab/internal/clock"
)

// Report is what a server says about itself: lblab's one load report
// (docs/model.md, "Load reports"). The emulated server makes it
// (server.Server.Report); the simulator and the live backend carry it on
// every reply and answer it out of band (the simulator's shared refresh, the
// backend's GET /load); internal/shell/wire encodes and decodes it once, as
// ORCA's endpoint-load-metrics header; a balancer keeps the last one of each
// server (Stat.Last) and the client runtime the one its answers carried.
//
// A figure added here is computed in core/server (report.go) and written and
// read in wire (orca.go): docs/architecture.md, "How to add a reported
// figure".
type Report struct {
	// At is when the server measured it, on the reader's clock (the
	// simulator's instant; live, when the answer or the poll arrived).
	At clock.Instant `json:"-"`
	// Valid: the server sent a report (an answer through a proxy, or from a
	// service that is not lblab's, carries none).
	Valid bool `json:"-"`
	// Queued and InService are the server's jobs waiting and holding a
	// worker at that instant (ORCA named metrics "queued", "in_service").
	Queued    int `json:"queued"`
	InService int `json:"in_service"`
	// Utilization is ORCA's cpu_utilization: the busy workers' time over
	// the server's report window, as a share of its workers (0..1).
	Utilization float64 `json:"cpu_utilization"`
	// RPS is ORCA's rps_fractional: requests that arrived per second over
	// the report window (every answer: served, failed or rejected).
	RPS float64 `json:"rps_fractional"`
	// EPS is ORCA's eps: requests per second over the window that did not
	// succeed (errors, rejections, drops).
	EPS float64 `json:"eps"`
}

// Sane reports whether r's figures can be taken as they are: counts not
// negative, shares and rates finite and not negative. A driver hands the
// load table only sane reports (the wire decoder refuses the others).
func (r Report) Sane() bool {
	ok := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
	return r.Queued >= 0 && r.InService >= 0 && ok(r.Utilization) && ok(r.RPS) && ok(r.EPS)
}

// InFlight is the server's requests in flight: queued plus in service.
func (r Report) InFlight() int { return r.Queued + r.InService }
