package report

// CrossZone is what crossing zones cost a run, when its lab declares zones
// (docs/model.md "Zones"): the attempts that crossed a zone on a hop of
// theirs — client -> balancer (client -> server when clients balance
// themselves) as it was sent, or balancer -> server as its answer named the
// server — and the requests that had such an attempt.
type CrossZone struct {
	Requests     uint64  `json:"requests"`      // requests with an attempt that crossed a zone
	Attempts     uint64  `json:"attempts"`      // attempts that crossed a zone
	RequestShare float64 `json:"request_share"` // Requests ÷ the run's requests
	AttemptShare float64 `json:"attempt_share"` // Attempts ÷ the run's attempts
}

// zoneCounts are a recorder's cross-zone figures.
type zoneCounts struct {
	on                 bool
	requests, attempts uint64
}

// CountZones makes Fill report the cross-zone figures (the lab declares
// zones), even when nothing crossed.
func (r *Recorder) CountZones() { r.zones.on = true }

// CrossedAttempt counts an attempt that crossed a zone.
func (r *Recorder) CrossedAttempt() {
	r.zones.attempts++
	r.Total.Crossed++
	r.bin.Crossed++
}

// CrossedRequest counts a request, as it ends, one of whose attempts
// crossed a zone.
func (r *Recorder) CrossedRequest() { r.zones.requests++ }

// fillZones writes the cross-zone figures into run.
func (r *Recorder) fillZones(run *Run) {
	if !r.zones.on {
		return
	}
	run.CrossZone = NewCrossZone(r.zones.requests, r.zones.attempts, run.Requests, run.Attempts)
}

// NewCrossZone is the cross-zone figures of crossed requests and attempts
// out of a run's.
func NewCrossZone(crossedRequests, crossedAttempts, requests, attempts uint64) *CrossZone {
	c := &CrossZone{Requests: crossedRequests, Attempts: crossedAttempts}
	if requests > 0 {
		c.RequestShare = float64(crossedRequests) / float64(requests)
	}
	if attempts > 0 {
		c.AttemptShare = float64(crossedAttempts) / float64(attempts)
	}
	return c
}

// zonesAny reports whether the run counts zones.
func zonesAny(r *Run) bool { return r.CrossZone != nil }

// crossShare is the run's share of requests (attempts false) or attempts
// that crossed a zone; 0 when its lab has no zones.
func (r *Run) crossShare(attempts bool) float64 {
	switch {
	case r.CrossZone == nil:
		return 0
	case attempts:
		return r.CrossZone.AttemptShare
	}
	return r.CrossZone.RequestShare
}
