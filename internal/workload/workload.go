// Package workload is the seeded request stream that the simulator and the
// live load generator both replay: arrival instants (Poisson open loop, or
// closed-loop think times), work, key and client of every request. Every
// request is a pure function of the seed and its sequence number, so live and
// virtual runs, and every policy in a comparison, see the same requests.
package workload

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// Request is one request of the stream.
type Request struct {
	Seq    uint64        // request number from 0
	At     clock.Instant // intended send time (latency is measured from it)
	Work   time.Duration // service time at speed 1, from the work distribution
	Key    uint64        // key id in [0, Keys), Zipf-distributed: key 0 is the hottest
	Client int           // client id in [0, Clients)
	Fault  Fault         // what its attempts ask the server to do (zero: nothing; see Config.Faults)
}

// Config describes the stream; New validates it once.
type Config struct {
	Seed          uint64
	Rate          float64       // open loop: Poisson arrivals per second, >= 0 (0 = none until SetRate)
	Clients       int           // client ids, in [1, 1e6]
	UnevenClients bool          // client activity Zipf(1.0) instead of even
	Keys          int           // key ids, in [1, 1e6]
	ZipfS         float64       // Zipf exponent over keys, >= 0 (0 = uniform)
	Work          rng.Dist      // work distribution, required
	Think         time.Duration // closed loop: mean exponential think time, >= 0
	// Profile, when set, drives the open-loop rate instead of Rate: arrivals
	// come at Profile.Value(t) per second (see Next).
	Profile *Profile
	// Faults mark shares of the requests with a fault (see Draw).
	Faults []FaultShare
}

// Stream generates the requests of one Config.
//
// Open loop: Next returns arrivals of a Poisson process, gaps exponential
// with mean 1/rate drawn in order from rng.Split(Seed, "arrivals"); with a
// Profile, of the non-homogeneous Poisson process of rate Profile.Value(t),
// from the same unit exponentials through the inverse of the integrated
// rate (Profile.Advance). The per-request fields come from Draw, so they
// depend on (Seed, Seq) alone and not on the arrival times or the rate.
//
// Not safe for concurrent use; the driver serializes calls.
type Stream struct {
	cfg      Config
	keys     zipf
	clients  zipf
	arrivals *rng.Source
	work     *rng.Source // scratch generator reseeded per Draw (no allocation)

	rate    float64       // current arrival rate per second; 0 = paused (unused while prof is set)
	prof    *Profile      // the rate profile in force; nil after SetRate
	seq     uint64        // Seq of the next arrival Next returns
	base    clock.Instant // the next gap is drawn from this instant
	last    clock.Instant // At of the arrival last returned by Next
	prev    clock.Instant // At of the latest arrival before it that was not withdrawn
	hasLast bool          // last is valid (not withdrawn)
}

// New validates cfg and returns its stream, positioned at request 0 and
// instant 0.
func New(cfg Config) (*Stream, error) {
	if err := validate(cfg); err != nil {
		return nil, err
	}
	keys, err := newZipf(cfg.Keys, cfg.ZipfS)
	if err != nil {
		return nil, fmt.Errorf("workload: Keys/ZipfS: %w", err)
	}
	cs := 0.0
	if cfg.UnevenClients {
		cs = 1
	}
	clients, err := newZipf(cfg.Clients, cs)
	if err != nil {
		return nil, fmt.Errorf("workload: Clients: %w", err)
	}
	return &Stream{
		cfg: cfg, keys: keys, clients: clients, rate: cfg.Rate, prof: cfg.Profile,
		arrivals: rng.Split(cfg.Seed, "arrivals"), work: rng.New(0),
	}, nil
}

func validate(c Config) error {
	switch {
	case !(c.Rate >= 0) || math.IsInf(c.Rate, 1):
		return fmt.Errorf("workload: Rate is %g, must be a finite number >= 0", c.Rate)
	case c.Clients < 1 || c.Clients > MaxKeys:
		return fmt.Errorf("workload: Clients is %d, must be in [1, %d]", c.Clients, MaxKeys)
	case c.Keys < 1 || c.Keys > MaxKeys:
		return fmt.Errorf("workload: Keys is %d, must be in [1, %d]", c.Keys, MaxKeys)
	case !(c.ZipfS >= 0) || math.IsInf(c.ZipfS, 1):
		return fmt.Errorf("workload: ZipfS is %g, must be a finite number >= 0", c.ZipfS)
	case c.Work == nil:
		return errors.New("workload: Work is required (a work distribution)")
	case c.Think < 0:
		return fmt.Errorf("workload: Think is %v, must be >= 0", c.Think)
	}
	if c.Profile != nil {
		if err := c.Profile.Check(); err != nil {
			return fmt.Errorf("workload: Profile: %w", err)
		}
	}
	return checkFaults(c.Faults)
}

// Config returns the stream's configuration.
func (s *Stream) Config() Config { return s.cfg }

// Rate returns the constant arrival rate per second in force (see RateAt
// for the rate at an instant, which a profile changes).
func (s *Stream) Rate() float64 { return s.rate }

// RateAt returns the arrival rate per second at instant t: the profile's
// while one is in force, else the constant rate.
func (s *Stream) RateAt(t clock.Instant) float64 {
	if s.prof != nil {
		return s.prof.Value(t.Duration())
	}
	return s.rate
}

// Profile returns the rate profile in force (nil: a constant rate).
func (s *Stream) Profile() *Profile { return s.prof }

// Next returns the next open-loop arrival: At non-decreasing, Seq increasing
// by one per call (except that after SetRate withdraws an arrival, the same
// Seq comes again, at a new instant no earlier than the arrival before it). While the rate is 0 it returns request Seq at clock.Never
// and does not advance; drivers take one arrival at a time (schedule it, and
// call Next again when it fires).
func (s *Stream) Next() Request {
	var at clock.Instant
	switch {
	case s.prof != nil:
		if at = s.prof.Advance(s.base, s.arrivals.Exp()); at == clock.Never {
			return s.Draw(s.seq, clock.Never) // the profile stays at 0 from here on
		}
	case s.rate <= 0:
		return s.Draw(s.seq, clock.Never)
	default:
		gap := math.Round(s.arrivals.Exp() / s.rate * 1e9) // ns
		if gap >= float64(clock.Never-s.base) {
			return s.Draw(s.seq, clock.Never) // beyond the end of time: as paused
		}
		at = s.base + clock.Instant(gap)
	}
	r := s.Draw(s.seq, at)
	if s.hasLast {
		s.prev = s.last
	}
	s.last, s.hasLast = at, true
	s.base = at
	s.seq++
	return r
}

// SetRate makes arrivals from now on come at rate per second, replacing a
// profile for the rest of the run; rate <= 0 (or NaN, or +Inf) pauses them. Exponential gaps are memoryless, so the pending
// arrival is redrawn from now: if the arrival Next returned last is later
// than now, it is withdrawn and the next Next returns the same Seq (same
// Work, Key and Client) at a new instant drawn from now; the driver replaces
// the arrival it had scheduled. Otherwise the next gap is drawn from now.
func (s *Stream) SetRate(now clock.Instant, rate float64) {
	if !(rate > 0) || math.IsInf(rate, 1) {
		rate = 0
	}
	floor := s.prev // arrivals already handed out stay in the past
	if s.hasLast {
		if s.last > now {
			s.seq-- // withdraw the pending arrival
			s.hasLast = false
		} else {
			floor = s.last
		}
	}
	s.rate, s.prof = rate, nil
	s.base = max(now, floor)
}
