// Package load keeps the per-server load figures one balancer sees: requests
// it has outstanding, the last load report of each server, and time-decayed
// latency averages. It is the load metric half of a balancer; the selection
// rules that read it live in package balance (Finagle keeps the same split
// between its load metrics and its distributors).
//
// The package is pure: every method is handed the instant it happens at.
package load

import (
	"time"

	"github.com/lblab/lblab/internal/assert"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/stats"
)

// Mode says where a balancer's counts come from.
type Mode int

const (
	// Local counts come from the balancer itself: Outstanding is what it sent
	// and has not yet seen answered. Always fresh, blind to other balancers.
	Local Mode = iota
	// Shared counts come from the servers' load reports: Outstanding is the
	// last reported queued + in service, as stale as the last report.
	Shared
)

// String returns "local" or "shared".
func (m Mode) String() string {
	switch m {
	case Local:
		return "local"
	case Shared:
		return "shared"
	}
	return "unknown"
}

// DefaultDecay is the latency averages' time constant when none is given.
const DefaultDecay = time.Second

// Stat is one server's load as one balancer sees it.
type Stat struct {
	Outstanding int // Local: requests this balancer sent and not yet answered. Shared: last report's queued+in service.
	Queued      int // the last report's queue, plus optimistic local increments on send (p2c-stale)
	// Last is the server's last load report (Valid false until one came).
	Last    Report
	Latency stats.EWMA     // response time in ns (float), time-decayed
	Peak    stats.PeakEWMA // peak EWMA of response time in ns
}

// Table holds one Stat per member server, indexed like the balancer's member
// list. Invariants: in Local mode Outstanding is never negative and InFlight
// is the number of Sent calls not yet matched by Done; in Shared mode
// Outstanding is Queued+InService of the last report and Sent/Done leave it
// alone. Calls with an index outside [0, len(Stats)) are ignored.
//
// Not safe for concurrent use; the driver serializes calls.
type Table struct {
	Mode Mode
	// Unkept: the latency averages (Stat.Latency and Peak) are not kept,
	// Done leaves them empty. A driver sets it when nothing will read
	// them (no algorithm of its run has balance.Caps.Latency): each
	// answer then saves the averages' exp.
	Unkept bool
	// Penalty is the least time a failed answer counts as in the latency
	// averages (Failed); 0: as it came.
	Penalty time.Duration
	Stats   []Stat
	decay   time.Duration
}

// NewTable returns a table of n empty entries. decay is the time constant tau
// of the latency averages (DefaultDecay, 1 s, if decay <= 0).
func NewTable(n int, mode Mode, decay time.Duration) *Table {
	if decay <= 0 {
		decay = DefaultDecay
	}
	t := &Table{Mode: mode, decay: decay}
	t.Resize(n)
	return t
}

// Resize makes the table n entries long, keeping the first min(n, old length)
// entries and adding empty ones (n < 0 counts as 0).
func (t *Table) Resize(n int) {
	if n < 0 {
		n = 0
	}
	if n <= len(t.Stats) {
		clear(t.Stats[n:])
		t.Stats = t.Stats[:n]
		return
	}
	for len(t.Stats) < n {
		t.Stats = append(t.Stats, t.empty())
	}
}

// Decay returns the latency averages' time constant.
func (t *Table) Decay() time.Duration { return t.decay }

// SetDecay changes the latency averages' time constant at now (DefaultDecay
// if decay <= 0). Everything else stays: the outstanding counts, the last
// reports and what the averages have learnt, which forget at the new rate
// from now on (stats.EWMA.SetTau).
func (t *Table) SetDecay(now clock.Instant, decay time.Duration) {
	if decay <= 0 {
		decay = DefaultDecay
	}
	t.decay = decay
	for i := range t.Stats {
		s := &t.Stats[i]
		s.Latency.SetTau(now, decay)
		s.Peak.SetTau(now, decay)
	}
}

func (t *Table) empty() Stat {
	decay := t.decay
	if decay <= 0 {
		decay = DefaultDecay
	}
	return Stat{Latency: stats.NewEWMA(decay), Peak: stats.NewPeakEWMA(decay)}
}

func (t *Table) at(i int) *Stat {
	if i < 0 || i >= len(t.Stats) {
		return nil
	}
	return &t.Stats[i]
}

// Sent records that a request was sent to server i at now: in Local mode
// Outstanding goes up by one; in both modes Queued goes up by one, the
// optimistic local increment that keeps stale counts from herding until the
// next report overwrites it.
func (t *Table) Sent(now clock.Instant, i int) {
	s := t.at(i)
	if s == nil {
		return
	}
	if t.Mode == Local {
		s.Outstanding++
	}
	s.Queued++
}

// Drop records that an attempt to server i was withdrawn before it was
// served: in Local mode Outstanding goes down by one (never below 0); no
// latency is learnt from it.
func (t *Table) Drop(i int) {
	if s := t.at(i); s != nil && t.Mode == Local && s.Outstanding > 0 {
		s.Outstanding--
	}
}

// Done records that server i answered at now after rtt: in Local mode
// Outstanding goes down by one (never below 0); rtt (in ns, negative counted
// as 0) is folded into the latency average and the peak average.
func (t *Table) Done(now clock.Instant, i int, rtt time.Duration) {
	s := t.at(i)
	if s == nil {
		return
	}
	if t.Mode == Local && s.Outstanding > 0 {
		s.Outstanding--
	}
	if t.Unkept {
		return
	}
	x := float64(max(rtt, 0))
	stats.ObservePair(&s.Latency, &s.Peak, now, x)
}

// Failed records that server i answered at now with a failure after rtt:
// as Done, with rtt raised to Penalty. Without a penalty a server that
// answers errors fast looks fast to a latency-aware balancer and draws the
// traffic (ingress-nginx issue 5540: its EWMA balancer scored a failed
// request by its short time); with one, each failure makes the server look
// at least Penalty slow, a success-aware cost in the spirit of ingress-nginx
// pull request 9882, which weighs the score by the success rate.
func (t *Table) Failed(now clock.Instant, i int, rtt time.Duration) {
	t.Done(now, i, max(rtt, t.Penalty))
}

// Report records server i's load report (rep.At: when it was taken).
// In Shared mode Outstanding becomes its queued + in service. A report that
// is not Valid or not Sane is a broken invariant of the driver, which hands
// over only what it could read: the table keeps the last good one.
func (t *Table) Report(i int, rep Report) {
	s := t.at(i)
	assert.That(!rep.Valid || rep.Sane(), "load: a driver handed the table a report out of range")
	if s == nil || !rep.Valid || !rep.Sane() {
		return
	}
	s.Last = rep
	s.Queued = rep.Queued
	if t.Mode == Shared {
		s.Outstanding = rep.InFlight()
	}
}

// InFlight returns the sum of Outstanding over all entries.
func (t *Table) InFlight() int {
	total := 0
	for i := range t.Stats {
		total += t.Stats[i].Outstanding
	}
	return total
}
