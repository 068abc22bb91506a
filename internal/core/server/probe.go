package server

import (
	"time"

	"github.com/lblab/lblab/internal/core/load"
)

// How a server estimates its latency for a probe answer (docs/model.md,
// "Probes"): it keeps the last ProbeHistory requests it served, each with
// the requests in flight it found when it arrived, and answers the median
// time (queue plus service) of the ProbeNearest of them whose count at
// arrival is nearest its count now.
const (
	ProbeHistory = 32
	ProbeNearest = 8
)

// history is the ring of the last ProbeHistory requests served: the
// requests in flight each found on arrival (itself not counted) and the
// time it spent at the server. Fixed arrays: recording and estimating
// allocate nothing.
type history struct {
	rif  [ProbeHistory]int32
	took [ProbeHistory]time.Duration
	n    int // entries held, at most ProbeHistory
	next int // where the next entry goes
}

// add records a request served in took that found rif others in flight.
func (h *history) add(rif int, took time.Duration) {
	h.rif[h.next], h.took[h.next] = int32(rif), took
	h.next = (h.next + 1) % ProbeHistory
	h.n = min(h.n+1, ProbeHistory)
}

// estimate is the median time of the ProbeNearest entries whose count at
// arrival is nearest rif (of equally near ones, the newer), or 0 with no
// entry; an even number of them gives the mean of the middle two.
func (h *history) estimate(rif int) time.Duration {
	var dist [ProbeNearest]int
	var took [ProbeNearest]time.Duration
	k := 0 // kept so far, nearest first; equally near in the order seen (newest first)
	for i := 1; i <= h.n; i++ {
		at := (h.next - i + ProbeHistory) % ProbeHistory
		d := int(h.rif[at]) - rif
		if d < 0 {
			d = -d
		}
		if k == ProbeNearest && d >= dist[k-1] {
			continue // no nearer than the farthest kept, and older
		}
		j := min(k, ProbeNearest-1) // the slot it enters from: the end, or the farthest's
		for ; j > 0 && dist[j-1] > d; j-- {
			dist[j], took[j] = dist[j-1], took[j-1]
		}
		dist[j], took[j] = d, h.took[at]
		k = min(k+1, ProbeNearest)
	}
	if k == 0 {
		return 0
	}
	sorted := took[:k]
	for i := 1; i < k; i++ { // insertion sort: at most ProbeNearest
		for j := i; j > 0 && sorted[j-1] > sorted[j]; j-- {
			sorted[j-1], sorted[j] = sorted[j], sorted[j-1]
		}
	}
	if k%2 == 1 {
		return sorted[k/2]
	}
	return (sorted[k/2-1] + sorted[k/2]) / 2
}

// Probe is the server's answer to a probe (load.Probe): its requests in
// flight (queued plus in service) and its latency estimate at that many,
// as of the last instant the driver handed it (like Report, reading it is
// not an event: a driver asks between the events it fires at now). The
// estimate needs Config.Probed; without it the latency is 0. It counts the
// answer (Snapshot.Probes) and changes nothing else.
func (s *Server) Probe() load.Probe {
	s.probes++
	rif := s.q.n + s.svc.busy()
	return load.Probe{RIF: rif, Latency: s.hist.estimate(rif)}
}
