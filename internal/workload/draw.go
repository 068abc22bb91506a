package workload

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// Salts keep each field's per-request draw independent of the others.
var (
	saltWork   = rng.StringHash("workload/work")
	saltKey    = rng.StringHash("workload/key")
	saltClient = rng.StringHash("workload/client")
	saltThink  = rng.StringHash("workload/think")
	saltFault  = rng.StringHash("workload/fault")
)

// Draw returns request number seq with intended time at. Work, Key and Client
// are pure functions of (Seed, seq): Work is sampled by a generator seeded
// with rng.Hash(Seed, seq, saltWork), Key and Client are Zipf (or uniform)
// ranks of rng.Hash(Seed, seq, salt), Fault is the fault share that
// rng.HashFloat(Seed, seq, salt) falls in (see FaultShare). Next uses it,
// and closed-loop drivers call it with their own instants. It does not
// allocate.
func (s *Stream) Draw(seq uint64, at clock.Instant) Request {
	of := rng.HashOf(s.cfg.Seed, seq) // rng.Hash(Seed, seq, salt) for each salt, at two mixes less
	*s.work = *rng.New(rng.SaltHash(of, saltWork))
	return Request{
		Seq:    seq,
		At:     at,
		Work:   max(s.cfg.Work.Sample(s.work), 0),
		Key:    uint64(s.keys.rank(rng.SaltHash(of, saltKey))),
		Client: s.clients.rank(rng.SaltHash(of, saltClient)),
		Fault:  s.fault(of),
	}
}

// fault is the fault the request carries (of is rng.HashOf(Seed, seq)): the
// shares take consecutive slices of [0, 1), and one uniform draw per request,
// rng.HashFloat(Seed, seq, saltFault), picks the slice.
func (s *Stream) fault(of uint64) Fault {
	if len(s.cfg.Faults) == 0 {
		return Fault{}
	}
	u, top := rng.ToFloat(rng.SaltHash(of, saltFault)), 0.0
	for _, f := range s.cfg.Faults {
		if top += f.Share; u < top {
			return f.Fault
		}
	}
	return Fault{}
}

// Think returns closed-loop user user's think time after its iteration-th
// answer: exponential with mean Config.Think, a pure function of
// (Seed, user, iteration).
func (s *Stream) Think(user int, iteration uint64) time.Duration {
	if s.cfg.Think <= 0 {
		return 0
	}
	u := rng.HashFloat(rng.Hash(s.cfg.Seed, uint64(user), saltThink), iteration, saltThink)
	return time.Duration(math.Round(-math.Log(1-u) * float64(s.cfg.Think)))
}

// KeyProb returns the probability of key id k under the key distribution
// (for reports and tests); 0 outside [0, Keys).
func (s *Stream) KeyProb(k int) float64 {
	if k < 0 || k >= s.keys.n {
		return 0
	}
	return s.keys.prob(k)
}
