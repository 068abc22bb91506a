package policy

import (
	"time"

	"github.com/lblab/lblab/internal/rng"
)

// PickNumber numbers attempt n (1 for the first, then each retry or hedge in
// order) of request seq: seq x 16 + n. Every process and the simulator use
// it, so an attempt draws the same random choices and the same hop jitter on
// both clocks. A call makes at most 1 + 10 retries + 1 hedge attempts, so
// the numbers of two requests never meet.
func PickNumber(seq uint64, n int) uint64 { return seq*16 + uint64(n) }

// Leg is one one-way network hop of an attempt.
type Leg uint64

// The legs, numbered as the jitter draws' salts.
const (
	ClientOut    Leg = 1 // client -> balancer, or client -> server when clients balance themselves
	BalancerOut  Leg = 2 // balancer -> server
	ServerBack   Leg = 3 // server -> balancer, or server -> client when clients balance themselves
	BalancerBack Leg = 4 // balancer -> client
	// ProbeOut and ProbeBack are the legs of a pick's first probe (a
	// probing algorithm's, balance.Prober): balancer -> server, and its
	// answer back; the pick's k-th probe rides ProbeLeg(k, ...).
	ProbeOut  Leg = 5
	ProbeBack Leg = 6
)

// IdleLeg is the leg of an idle server's announcement to a balancer (a
// balance.Idler's: jiq), server -> balancer, drawn with the announcement's
// number (Announcement) rather than a pick's. It is far above the probes'
// legs (ProbeLeg of at most balance.MaxProbeRate probes).
const IdleLeg Leg = 1 << 10

// Announcement numbers server's seq-th announcement that it is idle (from
// 0), by the server's name, so the simulator and the backend number it
// alike (an added server too): its hop's jitter (Network.Delay(number,
// IdleLeg)) and the balancers it samples (balance.JIQ.Sample) are drawn
// from it.
func Announcement(server string, seq uint64) uint64 {
	return rng.StringHash(server) ^ seq*0x9e37_79b9_7f4a_7c15
}

// ProbeLeg is the leg of the k-th probe (from 0) of a pick, out to its
// server or (back) its answer's way back: each probe of a pick draws its
// own jitter, with the pick's number, on both clocks.
func ProbeLeg(k int, back bool) Leg {
	l := ProbeOut + Leg(2*k)
	if back {
		l++
	}
	return l
}

// Network is the lab's hop model: every hop takes Hop plus a uniform share
// of Jitter drawn from (Seed, pick number, leg). The draw is a pure function
// of those three, so the client, the lb, the backend and the simulator all
// delay the same attempt's same leg by the same amount. With Zones, a hop
// between two zones takes their link's Hop and Jitter instead (Between),
// with the same draw.
type Network struct {
	Hop, Jitter time.Duration
	Seed        uint64
	Zones       *Zones // nil: one zone
	// Cut: the links between zones are cut (a partition): a hop that
	// would cross one fails at once (Crosses says which do).
	Cut bool
}

// Delay is the one-way delay of leg for the attempt with pick number pick.
func (n Network) Delay(pick uint64, leg Leg) time.Duration {
	if n.Jitter <= 0 {
		return n.Hop
	}
	return n.Hop + time.Duration(float64(n.Jitter)*rng.HashFloat(n.Seed, pick, uint64(leg)))
}

// SplitPick is PickNumber's inverse: the request and its attempt number.
func SplitPick(pick uint64) (seq uint64, n int) { return pick / 16, int(pick % 16) }
