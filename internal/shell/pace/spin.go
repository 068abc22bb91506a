package pace

// A thread that sleeps wakes late even on a precise source: on the 2-core
// VM this project is measured on, tens to hundreds of microseconds after a
// timerfd's instant (the host must run the virtual CPU again), and the
// netpoller's hand-over adds to that. So the loop arms its alarm early, by lead — a running estimate of
// the 90th percentile of its own wake-up delay — and finishes the wait by
// yielding the processor in a loop (runtime.Gosched, so other goroutines
// still run) until the deadline.
//
// The spinning is bounded: it draws from a budget refilled at 1/spinShare
// of wall time, at most spinBurst banked (several processes share a
// machine, each with its Scheduler). With the budget spent the alarm is
// armed at the deadline itself and the waits are as late as the wake-up;
// at high rates that is what bounds the CPU cost (bench/timing.sh
// measures both).
const (
	maxLead   = 250_000   // ns: the most the alarm is armed early
	leadUp    = 1_800     // ns the estimate rises for a wake-up later than it ...
	leadDown  = 200       // ... and falls for one earlier: it settles at the 90th percentile
	spinShare = 33        // 1/spinShare of wall time at most is spent spinning (3%)
	spinBurst = 2_000_000 // ns of spinning banked at most
)

// spinner is the loop's lead estimate and spin budget; the Scheduler's
// mutex guards it.
type spinner struct {
	lead   int64 // ns: the wake-up delay estimate
	budget int64 // ns of spinning left
	filled int64 // mono of the last refill
	spun   int64 // ns spent spinning, in all
	dry    int64 // sleeps armed without a lead because the budget was spent
}

// observe feeds one wake-up delay (ns after the alarm's instant) to the
// estimate: a stochastic quantile estimator (up by leadUp when below the
// delay, down by leadDown when above) that settles where 10% of the delays
// exceed it.
func (p *spinner) observe(late int64) {
	if late > p.lead {
		p.lead = min(p.lead+leadUp, maxLead)
	} else {
		p.lead = max(p.lead-leadDown, 0)
	}
}

// early returns how early to arm the alarm (0 when the budget is spent) and
// how close a deadline must be to be finished by spinning.
func (p *spinner) early(now int64) int64 {
	p.budget = min(p.budget+(now-p.filled)/spinShare, spinBurst)
	p.filled = now
	if p.budget <= 0 {
		p.dry++
		return 0
	}
	return p.lead
}

// spent charges d ns of spinning to the budget.
func (p *spinner) spent(d int64) { p.budget -= d; p.spun += d }
