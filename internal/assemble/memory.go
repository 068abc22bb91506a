package assemble

import (
	"fmt"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// What a simulator run holds besides the objects its lab builds (the
// memory terms of Estimate): the requests in flight, the event queue, the
// series bins, the event log and, in a session (the page, lab watch), the
// states it keeps to draw. The run counts these as it goes (Held), weighs
// them with the sizes below, and its guard stops it when the sum passes
// MaxMemory; the estimate counts the most they can reach before the run.
// Sizes are measured on amd64 (the slots' structs and what the heap grows
// by per item; TestHeldMatchesTheHeap in internal/torture checks them).
const (
	// runBytes is a run's own: its recorder's latency histograms (an HDR
	// histogram of 1 µs to 1 h at 3 digits is about 200 KiB), counters and
	// the collector.
	runBytes       = 400 << 10
	histogramBytes = 200 << 10 // one more latency histogram (a session keeps one a bin of its window)
	callBytes      = 192       // a request's slot in the clients' slab (client.Call, its generation)
	attemptBytes   = 352       // an attempt's slot (client.Attempt with the simulator's transit)
	probeBytes     = 48        // a probe's slot
	eventBytes     = 32        // a place in the event queue
	binBytes       = 160       // a series bin (report.Bin)
	binServerBytes = 16        // a bin's two figures for one server (in service, limit)
	logLineBytes   = 96        // a line of the event log with its text
	// A session's frame (a bin-end state, sim.State) for one server, and
	// one balancer's view of one server in it.
	frameServerBytes = 560
	frameViewBytes   = 72
	// MemorySlack is how far a run's memory may pass its estimate: the
	// torture checks every drawn lab holds at most this many times the
	// memory its estimate counts, and the simulator's guard stops a run
	// that holds more than this many times the memory budget (MaxMemory).
	MemorySlack = 1.5
	// DefaultMaxPending is the simulator's memory guard's bound on requests
	// in flight (sim.DefaultMaxPending, lab sim --max-pending's default):
	// the estimate counts no more in flight than this.
	DefaultMaxPending = 1_000_000
)

// Held is what a simulator run holds at one moment beyond what its lab
// builds, as it counts it: slabs and queues by the slots they have made
// (they never shrink), the rest by their length.
type Held struct {
	Calls, Attempts, Probes  int // slots made for requests, attempts and probes
	Events                   int // places in the event queue (its heap and its FIFO)
	Bins, BinServers         int // series bins kept, and the servers each has figures for
	LogLines                 int
	Histograms               int // latency histograms beyond the run's own (a session's window)
	FrameServers, FrameViews int // over a session's frames: servers, and balancer x server views
}

// Bytes is what h weighs.
func (h Held) Bytes() float64 {
	return float64(h.Calls)*callBytes + float64(h.Attempts)*attemptBytes + float64(h.Probes)*probeBytes +
		float64(h.Events)*eventBytes + float64(h.Bins)*(binBytes+float64(h.BinServers)*binServerBytes) +
		float64(h.LogLines)*logLineBytes + float64(h.Histograms)*histogramBytes +
		float64(h.FrameServers)*frameServerBytes + float64(h.FrameViews)*frameViewBytes
}

// Largest names the item of h that weighs the most, for the guard's
// message: "1000448 requests in flight (their slots)".
func (h Held) Largest() string {
	items := []struct {
		what  string
		bytes float64
	}{
		{fmt.Sprintf("%d request and %d attempt slots (requests in flight)", h.Calls, h.Attempts), float64(h.Calls)*callBytes + float64(h.Attempts)*attemptBytes},
		{fmt.Sprintf("%d probe slots", h.Probes), float64(h.Probes) * probeBytes},
		{fmt.Sprintf("%d places in the event queue", h.Events), float64(h.Events) * eventBytes},
		{fmt.Sprintf("%d series bins of %d servers", h.Bins, h.BinServers), float64(h.Bins) * (binBytes + float64(h.BinServers)*binServerBytes)},
		{fmt.Sprintf("%d lines of the event log", h.LogLines), float64(h.LogLines) * logLineBytes},
		{fmt.Sprintf("the page's frames: %d server states and %d balancer views", h.FrameServers, h.FrameViews),
			float64(h.FrameServers)*frameServerBytes + float64(h.FrameViews)*frameViewBytes + float64(h.Histograms)*histogramBytes},
	}
	best := items[0]
	for _, it := range items[1:] {
		if it.bytes > best.bytes {
			best = it
		}
	}
	return fmt.Sprintf("%s, %s", best.what, Bytes(best.bytes))
}

// Built is the memory of the objects lab builds for a simulator run, as
// the estimate counts them (servers, caches, queues, balancers and their
// tables) plus the run's own (runBytes): the simulator adds what it holds
// (Held) to it, with the lab as its script has changed it.
func Built(lab *labfile.Lab) float64 {
	m := float64(runBytes)
	for _, t := range costOf(lab, Kept{}, false) {
		m += t.Memory
	}
	return m
}

// MaxMemory is the most memory (Built + Held) a run under budget b may
// hold before the simulator's guard stops it (sim.Options.MaxMemory):
// MemorySlack times b's memory, so a lab its estimate let through stops
// within that much whatever it piles up.
func MaxMemory(b Budget) float64 { return MemorySlack * b.Memory }

// Kept is what the runs keep beyond their objects, for the estimate.
type Kept struct {
	Sim    bool // simulated (else live: the processes pace themselves, only what they build counts)
	Series bool // the 250 ms bins (lab sim --series, --plot, the claims, the page)
	// Frames and Windows are a session's (sim.SessionOptions: the page and
	// lab watch): bin-end states, and per-bin latency histograms kept.
	Frames, Windows int
}

// heldTerms are the estimate of what a simulator run of lab holds as it
// goes (Held at its most): its own, the requests in flight (every attempt
// the lab makes, up to the guard's bound), the series bins and a session's
// frames. requests x attempts is eventTerm's.
func heldTerms(lab *labfile.Lab, k Kept, attempts, probes float64, servers, pickers float64) []Term {
	terms := []Term{{What: "the run's own (latency histograms, counters)", Memory: runBytes}}
	inflight := min(attempts, DefaultMaxPending)
	terms = append(terms, Term{What: fmt.Sprintf("%s attempts in flight at most (every attempt, up to the %d the memory guard allows), each with its request and 3 events queued",
		count(inflight), DefaultMaxPending), Memory: inflight * (callBytes + attemptBytes + 3*eventBytes)})
	if probes > 0 {
		p := min(attempts*probes, DefaultMaxPending)
		terms = append(terms, Term{What: fmt.Sprintf("%s probes in flight at most", count(p)), Memory: p * (probeBytes + eventBytes)})
	}
	bins := float64(lab.Duration/report.BinWidth) + 1
	if k.Series {
		terms = append(terms, Term{What: fmt.Sprintf("%s series bins (duration %v / 250ms) x %s servers", count(bins), lab.Duration, count(servers)),
			Memory: bins * (binBytes + servers*binServerBytes)})
	}
	if k.Frames > 0 {
		views := pickers
		if ClientSide(lab) {
			views = 0 // a client-side lab's frames have no balancer views
		}
		f := float64(k.Frames)
		terms = append(terms, Term{What: fmt.Sprintf("the page's %d frames x %s servers (and %s balancers' views of them)", k.Frames, count(servers), count(views)),
			Memory: f * servers * (frameServerBytes + views*frameViewBytes)})
	}
	if k.Windows > 0 {
		terms = append(terms, Term{What: fmt.Sprintf("the page's %d latency histograms", k.Windows), Memory: float64(k.Windows) * histogramBytes})
	}
	return terms
}
