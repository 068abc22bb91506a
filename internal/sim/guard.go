package sim

import (
	"errors"
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/labfile"
)

// The memory guard. A lab whose work piles up — arrivals faster than the
// fleet serves, a retry storm, a deadline timer per request of a huge rate
// — would otherwise grow the simulator's memory until the machine gives out
// (rate 1e6 against a slow fleet: about 400 bytes per pending request). The
// guard stops such a run as soon as one of its queues passes a bound, and
// says which queue grew and why. The same bound stops a run whose virtual
// time stands still (more events at one instant than the bound: a loop
// with no delay, such as closed-loop users with no think time whose
// requests are refused at once over a network with no hop), which would
// otherwise spin for ever.

// DefaultMaxPending is the guard's bound when Options.MaxPending is 0: a
// million pending requests is about 0.5 GB of the simulator's memory. The
// cost estimate counts no more requests in flight than this.
const DefaultMaxPending = assemble.DefaultMaxPending

// guardEvery is how many events pass between two looks of the guard: the
// queues it reads are counters, so a look costs a loop over the servers.
const guardEvery = 1024

// OverflowError is a run the memory guard stopped.
type OverflowError struct {
	At    time.Duration // virtual time of the stop
	Queue string        // which queue passed the bound, with its length
	Bound int
	Why   string // the likely cause, in the lab's terms
}

func (e *OverflowError) Error() string {
	return fmt.Sprintf("memory guard stopped the run at %v of virtual time: %s, over the bound of %d (--max-pending); %s",
		e.At, e.Queue, e.Bound, e.Why)
}

// BudgetError is a run the work guard or the memory guard stopped: it did
// more than its cost budget allows (Options.MaxWork), or held more
// (Options.MaxMemory), whatever its estimate said.
type BudgetError struct {
	At             time.Duration // virtual time of the stop
	Events, Visits uint64        // the run's events and its scanning picks' server visits so far
	Work, Max      float64       // assemble.Work of them, and the bound (a work stop)
	// A memory stop: what the run held (assemble.Built + Held), the bound,
	// what its lab built, and the largest item it held (Held.Largest).
	Memory, MaxMemory, Built float64
	Largest                  string
	Raise                    string // how to raise the budget (Options.Raise)
}

func (e *BudgetError) Error() string {
	raise := e.Raise
	if raise == "" {
		raise = "--" + assemble.MaxCostFlag + " N"
	}
	if e.MaxMemory > 0 {
		return fmt.Sprintf("the memory guard stopped the run at %v of virtual time: it held about %s (what the lab builds %s; the most of the rest: %s), over the %s its cost budget allows (%g times its memory); raise the budget with %s",
			e.At, assemble.Bytes(e.Memory), assemble.Bytes(e.Built), e.Largest, assemble.Bytes(e.MaxMemory), assemble.MemorySlack, raise)
	}
	return fmt.Sprintf("the work guard stopped the run at %v of virtual time: %d events and %d server visits by its picks, %.3g event-equivalents, over the %.3g its cost budget allows (%d times the events its CPU budget pays for); raise the budget with %s",
		e.At, e.Events, e.Visits, e.Work, e.Max, assemble.EstimateSlack, raise)
}

// ErrStopped is a run its host stopped (Options.Stop): the request that
// wanted it was cancelled or replaced.
var ErrStopped = errors.New("the run was stopped: the request that asked for it was cancelled or replaced by a newer one")

// memory is what the run holds now, as assemble weighs it: what its lab
// (as the script has changed it) builds, and what it holds as it goes.
func (w *world) memory() (total, built float64, held assemble.Held) {
	if w.builtStale {
		w.built, w.builtStale = assemble.Built(w.lab), false
	}
	calls, atts := w.rt.Slots()
	held = assemble.Held{Calls: calls, Attempts: atts, Probes: w.probes.Slots(), Events: w.q.Places(), LogLines: len(w.col.Log)}
	if w.col.Series() {
		held.Bins, held.BinServers = len(w.rt.Rec.Bins), len(w.servers)
	}
	if w.keeps != nil {
		w.keeps(&held)
	}
	total = w.built + held.Bytes()
	w.peak = max(w.peak, total)
	return total, w.built, held
}

// visits is the servers the run's scanning picks have visited so far.
func (w *world) visits() uint64 {
	var visits uint64
	for _, b := range w.bals {
		visits += b.Visits()
	}
	return visits
}

// guard returns ErrStopped when the host stopped the run, a *BudgetError
// when the run's work or memory has passed its budget, an *OverflowError
// when a queue of pending work has passed the bound, nil otherwise. It
// reads counters only, so it changes nothing.
func (w *world) guard() error {
	if w.stop != nil && w.stop() {
		return ErrStopped
	}
	if w.maxWork > 0 {
		visits := w.visits()
		if work := assemble.Work(w.events, visits); work > w.maxWork {
			return &BudgetError{At: time.Duration(w.now).Round(time.Millisecond), Events: w.events, Visits: visits, Work: work, Max: w.maxWork, Raise: w.raise}
		}
	}
	if mem, built, held := w.memory(); w.maxMemory > 0 && mem > w.maxMemory {
		return &BudgetError{At: time.Duration(w.now).Round(time.Millisecond), Events: w.events, Visits: w.visits(),
			Memory: mem, MaxMemory: w.maxMemory, Built: built, Largest: held.Largest(), Raise: w.raise}
	}
	if w.stalled > w.maxPending {
		return &OverflowError{At: time.Duration(w.now).Round(time.Millisecond), Bound: w.maxPending,
			Queue: fmt.Sprintf("virtual time stands still: %d events fired at this one instant", w.stalled),
			Why:   w.stallCause()}
	}
	calls, events := w.rt.Pending(), w.q.Len()
	si, held := w.busiestServer()
	var queue string
	switch {
	case held > w.maxPending:
		queue = fmt.Sprintf("server %s holds %d requests (queued or in service)", w.servers[si].spec.Name, held)
	case calls > w.maxPending:
		queue = fmt.Sprintf("%d requests are in flight", calls)
		if si >= 0 && held > calls/2 {
			queue += fmt.Sprintf(" (%d of them at server %s)", held, w.servers[si].spec.Name)
		}
	case events > w.maxPending:
		queue = fmt.Sprintf("the event queue holds %d events (messages on the wire and timers)", events)
	default:
		return nil
	}
	return &OverflowError{At: time.Duration(w.now).Round(time.Millisecond), Queue: queue, Bound: w.maxPending, Why: w.overflowCause(events > w.maxPending)}
}

// busiestServer returns the server holding the most requests (queued + in
// service) and how many; -1 and 0 with no server.
func (w *world) busiestServer() (int, int) {
	best, held := -1, 0
	for i, s := range w.servers {
		if q, in := s.core.Load(); best < 0 || q+in > held {
			best, held = i, q+in
		}
	}
	return best, held
}

// overflowCause names the likely cause of the growth, most specific first.
func (w *world) overflowCause(eventsGrew bool) string {
	c := &w.lab.Clients
	t := w.col.Total
	if t.Offered > 0 && t.Retries+t.Hedges > t.Offered {
		return fmt.Sprintf("why: a retry storm: clients sent %.1f attempts per request (%d retries, %d hedges for %d requests), each a new request for the servers",
			float64(t.Attempts)/float64(t.Offered), t.Retries, t.Hedges, t.Offered)
	}
	if eventsGrew && c.Timeout > 0 && c.Mode == labfile.OpenLoop && c.Rate*c.Timeout.Seconds() > float64(w.maxPending)/2 {
		return fmt.Sprintf("why: every request arms a deadline timer (clients.timeout %v) that waits in the event queue until it comes due, so rate x timeout = %.3g timers would be pending at once",
			c.Timeout, c.Rate*c.Timeout.Seconds())
	}
	capacity, up := w.capacity()
	if c.Mode == labfile.OpenLoop && c.Rate > capacity {
		return fmt.Sprintf("why: arrivals faster than service: clients offer %.6g requests/s, the servers up (%d) serve at most about %.3g/s (workers x speed / mean work)",
			c.Rate, up, capacity)
	}
	return "why: requests wait longer and longer: the servers fall behind the arrivals (slowdowns, pauses, or work that outlives its clients)"
}

// stallCause names the likely zero-delay loop.
func (w *world) stallCause() string {
	c := &w.lab.Clients
	if c.Mode == labfile.ClosedLoop && c.Think == 0 {
		return fmt.Sprintf("why: a loop with no delay: %d closed-loop users with no think time (clients.think 0) get an answer in no time (network.hop %v; a rejection or an error at once) and send again at the same instant",
			c.Users, w.lab.Network.Hop)
	}
	return "why: a loop with no delay: events that schedule each other at the same instant (zero hops, zero timers)"
}

// capacity estimates what the servers that are up serve per second: the sum
// of workers x speed / mean work, ignoring caches and limits.
func (w *world) capacity() (float64, int) {
	total, up := 0.0, 0
	for _, s := range w.servers {
		snap := s.core.Snapshot(w.now)
		if s.removed || !snap.Up {
			continue
		}
		up++
		work := w.lab.Clients.Work
		mean := time.Duration(0)
		if d, err := work.Build(); err == nil {
			mean = d.Mean()
		}
		if w.lab.Clients.WorkAt == labfile.WorkAtServer {
			mean = w.lab.ServerWork(s.spec.Server).Mean()
		}
		if mean > 0 {
			total += float64(snap.Workers) * snap.Speed / mean.Seconds()
		}
	}
	return total, up
}
