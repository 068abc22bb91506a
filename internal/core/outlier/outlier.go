// Package outlier is outlier ejection (Envoy's outlier detection, done the
// same way here for latency): a balancer takes a server out of rotation for
// a while when its answers set it apart from its peers, and lets it back
// when the time is up. It is a sans-I/O state machine that is handed the
// time; nothing runs between calls, so the interval sweeps and the returns
// happen lazily at the first call at or after they are due (Advance), and
// NextDeadline says when that is for a driver that wants it on time.
//
// Three detectors, each switched off by a zero setting:
//
//   - Consecutive failures (Envoy's consecutive_5xx): a server whose last
//     ConsecutiveFailures answers all failed (500, 502, 503 or a timeout, as
//     for the breaker) is ejected at once.
//   - Success rate (Envoy's success_rate_stdev_factor): every Interval, among
//     the servers with at least MinRequests answers in it (and at least
//     MinHosts of them), a server whose success rate is below
//     mean − SuccessRateK × stddev of their rates is ejected.
//   - Latency: the same rule on the mean response time of each server's
//     successful answers in the interval, on the slow side: above
//     mean + LatencyK × stddev. A server that answers slowly but correctly
//     (a gray failure) never trips a breaker; this takes it out. Envoy has
//     no such detector (envoyproxy/envoy issue #288, open since 2016).
//
// Statistics use the population standard deviation, taken as at least
// MinSpread times the mean: servers within a few percent of each other are
// never outliers, however alike the others are (with near-identical peers
// the raw deviation is tiny, and a server a hair slower would be ejected).
// With n servers and one outlier the largest possible distance from the mean
// is sqrt(n−1) standard deviations (2 for five servers), so K must stay below
// that to ever eject.
//
// Ejection: the k-th ejection of a server lasts min(k × BaseEjection,
// MaxEjection); k goes down by one after every interval the server spends in
// rotation from start to end (Envoy's multiplier). Never more than
// floor(MaxShare × active servers) are ejected at once: a detector that finds
// more outliers ejects the worst first and stops at the limit; a server
// leaving the pool that leaves too many ejected brings the ones due back
// soonest back at once.
package outlier

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Limits of Config's fields.
const (
	MaxConsecutive = 1000
	MinInterval    = time.Millisecond
	MaxK           = 10
	MaxMinRequests = 1_000_000
	// MinSpread is the least standard deviation of the statistics, as a
	// share of their mean.
	MinSpread = 0.1
	// MinHosts is how many servers with enough answers an interval needs
	// before the success-rate and latency detectors judge any of them: a
	// mean and a standard deviation of fewer say nothing.
	MinHosts = 3
)

// Config is the ejection policy, validated by New.
type Config struct {
	ConsecutiveFailures int           // failures in a row that eject at once, 0..MaxConsecutive; 0 = off
	Interval            time.Duration // statistics period, >= MinInterval
	BaseEjection        time.Duration // first ejection's length, > 0
	MaxEjection         time.Duration // longest ejection, >= BaseEjection
	MaxShare            float64       // share of the active servers that may be out at once, (0, 1]
	SuccessRateK        float64       // success-rate detector's K in [0, MaxK]; 0 = off
	LatencyK            float64       // latency detector's K in [0, MaxK]; 0 = off
	MinRequests         int           // answers in an interval to be judged, 1..MaxMinRequests
}

// Validate reports the first field out of range.
func (c Config) Validate() error {
	switch {
	case c.ConsecutiveFailures < 0 || c.ConsecutiveFailures > MaxConsecutive:
		return fmt.Errorf("outlier: ConsecutiveFailures is %d, must be in [0, %d] (0 = off)", c.ConsecutiveFailures, MaxConsecutive)
	case c.Interval < MinInterval:
		return fmt.Errorf("outlier: Interval is %v, must be at least %v", c.Interval, MinInterval)
	case c.BaseEjection <= 0:
		return fmt.Errorf("outlier: BaseEjection is %v, must be > 0", c.BaseEjection)
	case c.MaxEjection < c.BaseEjection:
		return fmt.Errorf("outlier: MaxEjection is %v, must be at least BaseEjection (%v)", c.MaxEjection, c.BaseEjection)
	case !(c.MaxShare > 0 && c.MaxShare <= 1):
		return fmt.Errorf("outlier: MaxShare is %g, must be in (0, 1]", c.MaxShare)
	case !(c.SuccessRateK >= 0 && c.SuccessRateK <= MaxK):
		return fmt.Errorf("outlier: SuccessRateK is %g, must be in [0, %d] (0 = off)", c.SuccessRateK, MaxK)
	case !(c.LatencyK >= 0 && c.LatencyK <= MaxK):
		return fmt.Errorf("outlier: LatencyK is %g, must be in [0, %d] (0 = off)", c.LatencyK, MaxK)
	case c.MinRequests < 1 || c.MinRequests > MaxMinRequests:
		return fmt.Errorf("outlier: MinRequests is %d, must be in [1, %d]", c.MinRequests, MaxMinRequests)
	}
	return nil
}

// Allowed is how many of n active servers may be ejected at once:
// floor(MaxShare × n) (with a little slack for the float product).
func (c Config) Allowed(n int) int { return int(math.Floor(c.MaxShare*float64(n) + 1e-9)) }

// Change is one ejection or return, for the event log.
type Change struct {
	Ejected bool
	For     time.Duration // how long the ejection lasts
	Why     string        // what set the server apart
}

// Describe is the event-log line for server name: "outlier s3: ejected for
// 5s (latency 412ms > 45ms + 1.9 x 20ms)" or "outlier s3: back in rotation".
func (c Change) Describe(name string) string {
	if !c.Ejected {
		return "outlier " + name + ": back in rotation"
	}
	return fmt.Sprintf("outlier %s: ejected for %v (%s)", name, c.For, c.Why)
}

// server is what the detector keeps about one server.
type server struct {
	active  bool          // in the pool (present, in the balancer's subset)
	ejected bool          // out of rotation until `until`
	until   clock.Instant // end of the current ejection
	since   clock.Instant // when it last came back (or joined)
	times   int           // the ejection multiplier k
	consec  int           // failures in a row
	// this interval
	answers, successes int
	latSum             float64 // ns, successful answers
}

// Detector is the ejection state of one balancer's servers, by global index.
//
// Not safe for concurrent use; the driver serializes calls.
type Detector struct {
	// OnChange, if set, is told every ejection and return, with the instant
	// the detector noticed it.
	OnChange func(now clock.Instant, server int, c Change)

	cfg     Config
	s       []server
	active  int
	ejected int
	sweepAt clock.Instant // end of the current interval
	swept   clock.Instant // the interval boundary the last sweep reached
	backAt  clock.Instant // earliest end of an ejection, Never if none
	scratch []int
}

// New returns a detector over no servers (see Resize); its first interval
// starts at instant 0.
func New(cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Detector{cfg: cfg, sweepAt: clock.Instant(cfg.Interval), backAt: clock.Never}, nil
}

// Resize makes room for n servers; new ones start active and in rotation.
func (d *Detector) Resize(n int) {
	for len(d.s) < n {
		d.s = append(d.s, server{active: true})
		d.active++
	}
}

// SetActive says whether server i is in the pool. A server leaving it comes
// back (silently) if it was ejected and forgets its counts; if the pool left
// is too small for the ejections, the servers due back soonest come back.
func (d *Detector) SetActive(now clock.Instant, i int, on bool) {
	if i < 0 || i >= len(d.s) || d.s[i].active == on {
		return
	}
	s := &d.s[i]
	if on {
		*s = server{active: true, since: now}
		d.active++
		return
	}
	if s.ejected {
		d.ejected--
	}
	*s = server{}
	d.active--
	for d.ejected > d.cfg.Allowed(d.active) {
		d.unejectSoonest(now)
	}
	d.resetBackAt()
}

// Ejected reports whether server i is out of rotation. It does not look at
// the time: call Advance first.
func (d *Detector) Ejected(i int) bool { return i >= 0 && i < len(d.s) && d.s[i].ejected }

// Count returns how many servers are ejected and how many may be.
func (d *Detector) Count() (ejected, allowed int) { return d.ejected, d.cfg.Allowed(d.active) }

// NextDeadline is when Advance next has something to do: an interval ends
// or an ejection is over.
func (d *Detector) NextDeadline() clock.Instant { return min(d.sweepAt, d.backAt) }

// Advance brings the detector to now: ejections that are over end, and an
// interval that has ended is judged (once, however many have passed since
// the last call: the answers since then are one sample).
func (d *Detector) Advance(now clock.Instant) {
	if now < d.NextDeadline() {
		return
	}
	if now >= d.sweepAt {
		d.sweep(now)
		every := clock.Instant(d.cfg.Interval)
		d.sweepAt = (now/every + 1) * every // intervals stay on multiples of Interval
	}
	if now >= d.backAt {
		for i := range d.s {
			if s := &d.s[i]; s.ejected && now >= s.until {
				d.uneject(now, i)
			}
		}
		d.resetBackAt()
	}
}

// Observe records an answer of server i at now: ok for a success, and the
// time from send to answer. Withdrawn attempts (no verdict) are not
// observed. Answers from an ejected server (sent before it was ejected)
// count only towards its statistics, which are not judged while it is out.
func (d *Detector) Observe(now clock.Instant, i int, ok bool, rtt time.Duration) {
	d.Advance(now)
	if i < 0 || i >= len(d.s) || !d.s[i].active {
		return
	}
	s := &d.s[i]
	s.answers++
	if ok {
		s.successes++
		s.latSum += float64(max(rtt, 0))
		s.consec = 0
		return
	}
	s.consec++
	if n := d.cfg.ConsecutiveFailures; n > 0 && s.consec >= n && !s.ejected {
		if d.eject(now, i, fmt.Sprintf("%d failures in a row", s.consec)) {
			s.consec = 0
		}
	}
}

// sweep judges the interval that just ended, then starts the next one.
func (d *Detector) sweep(now clock.Instant) {
	if k := d.cfg.SuccessRateK; k > 0 {
		d.judge(now, k, false)
	}
	if k := d.cfg.LatencyK; k > 0 {
		d.judge(now, k, true)
	}
	every := clock.Instant(d.cfg.Interval)
	last := now / every * every // the latest interval boundary
	for i := range d.s {
		s := &d.s[i]
		if s.active && !s.ejected && s.times > 0 {
			first := max((s.since+every-1)/every*every, d.swept) // the first boundary in rotation since the last sweep
			if whole := int((last - first) / every); whole > 0 {
				s.times = max(s.times-whole, 0) // one off per whole interval in rotation
			}
		}
		s.answers, s.successes, s.latSum = 0, 0, 0
	}
	d.swept = last
}

// judge runs the success-rate (latency false) or latency detector over the
// servers in rotation with at least MinRequests answers (successful ones for
// latency), ejecting the outliers worst first while the share allows.
func (d *Detector) judge(now clock.Instant, k float64, latency bool) {
	value := func(s *server) float64 {
		if latency {
			return s.latSum / float64(s.successes)
		}
		return float64(s.successes) / float64(s.answers)
	}
	d.scratch = d.scratch[:0]
	var sum float64
	for i := range d.s {
		s := &d.s[i]
		n := s.answers
		if latency {
			n = s.successes
		}
		if s.active && !s.ejected && n >= d.cfg.MinRequests {
			d.scratch = append(d.scratch, i)
			sum += value(s)
		}
	}
	if len(d.scratch) < MinHosts {
		return
	}
	mean := sum / float64(len(d.scratch))
	var sq float64
	for _, i := range d.scratch {
		sq += (value(&d.s[i]) - mean) * (value(&d.s[i]) - mean)
	}
	sd := math.Max(math.Sqrt(sq/float64(len(d.scratch))), MinSpread*math.Abs(mean))
	limit := mean - k*sd
	if latency {
		limit = mean + k*sd
	}
	out := d.scratch[:0]
	for _, i := range d.scratch {
		if v := value(&d.s[i]); latency && v > limit || !latency && v < limit {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int { // worst first
		if latency {
			return cmp.Compare(value(&d.s[b]), value(&d.s[a]))
		}
		return cmp.Compare(value(&d.s[a]), value(&d.s[b]))
	})
	for _, i := range out {
		v := value(&d.s[i])
		why := fmt.Sprintf("success rate %.3g < %.3g - %g x %.3g", v, mean, k, sd)
		if latency {
			why = fmt.Sprintf("latency %s > %s + %g x %s", millis(v), millis(mean), k, millis(sd))
		}
		if !d.eject(now, i, why) {
			return
		}
	}
}

// millis writes a time in ns as milliseconds to three significant digits.
func millis(ns float64) string { return fmt.Sprintf("%.3gms", ns/1e6) }

// eject takes server i out if the share allows; it reports whether it did.
func (d *Detector) eject(now clock.Instant, i int, why string) bool {
	if d.ejected+1 > d.cfg.Allowed(d.active) {
		return false
	}
	s := &d.s[i]
	s.times++
	dur := d.cfg.MaxEjection
	if s.times <= int(d.cfg.MaxEjection/d.cfg.BaseEjection) {
		dur = d.cfg.BaseEjection * time.Duration(s.times)
	}
	s.ejected, s.until = true, addSat(now, dur)
	d.ejected++
	d.backAt = min(d.backAt, s.until)
	if d.OnChange != nil {
		d.OnChange(now, i, Change{Ejected: true, For: dur, Why: why})
	}
	return true
}

func (d *Detector) uneject(now clock.Instant, i int) {
	s := &d.s[i]
	s.ejected, s.since, s.consec = false, now, 0
	d.ejected--
	if d.OnChange != nil {
		d.OnChange(now, i, Change{})
	}
}

// unejectSoonest brings back the ejected server due back first.
func (d *Detector) unejectSoonest(now clock.Instant) {
	best := -1
	for i := range d.s {
		if d.s[i].ejected && (best < 0 || d.s[i].until < d.s[best].until) {
			best = i
		}
	}
	if best >= 0 {
		d.uneject(now, best)
	}
}

func (d *Detector) resetBackAt() {
	d.backAt = clock.Never
	for i := range d.s {
		if d.s[i].ejected {
			d.backAt = min(d.backAt, d.s[i].until)
		}
	}
}

// addSat returns i + d, saturating at clock.Never.
func addSat(i clock.Instant, d time.Duration) clock.Instant {
	if d > 0 && int64(i) > math.MaxInt64-int64(d) {
		return clock.Never
	}
	return i.Add(d)
}
