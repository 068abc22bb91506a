package sim

import (
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
// million pending requests is about 0.5 GB of the simulator's memory.
const DefaultMaxPending = 1_000_000

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

// BudgetError is a run the work guard stopped: it did more than its cost
// budget allows (Options.MaxWork), whatever its estimate said.
type BudgetError struct {
	At             time.Duration // virtual time of the stop
	Events, Visits uint64        // the run's events and its scanning picks' server visits so far
	Work, Max      float64       // assemble.Work of them, and the bound
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("the work guard stopped the run at %v of virtual time: %d events and %d server visits by its picks, %.3g event-equivalents, over the %.3g its cost budget allows (%d times the events its CPU budget pays for); raise the budget with --%s N",
		e.At, e.Events, e.Visits, e.Work, e.Max, assemble.EstimateSlack, assemble.MaxCostFlag)
}

// guard returns an *OverflowError when a queue of pending work has passed
// the bound, a *BudgetError when the run's work has passed its budget, nil
// otherwise. It reads counters only, so it changes nothing.
func (w *world) guard() error {
	if w.maxWork > 0 {
		var visits uint64
		for _, b := range w.bals {
			visits += b.Visits()
		}
		if work := assemble.Work(w.events, visits); work > w.maxWork {
			return &BudgetError{At: time.Duration(w.now).Round(time.Millisecond), Events: w.events, Visits: visits, Work: work, Max: w.maxWork}
		}
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
