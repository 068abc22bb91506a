package balance

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// ORCA is the configuration of wrr-orca, gRPC's weighted_round_robin (gRFC
// A58) and Envoy's client-side weighted round robin, with A58's defaults.
type ORCA struct {
	// Blackout: a weight counts only once reports have come for this long
	// since the first (a new or returning server is weighted as the mean
	// until then).
	Blackout time.Duration
	// Expiration: a weight with no report for this long no longer counts,
	// and the blackout starts again with the next report.
	Expiration time.Duration
	// Update: how often the scheduler is rebuilt from the weights (at least
	// MinORCAUpdate).
	Update time.Duration
	// ErrorPenalty weighs the errors: weight = rps / (utilization + eps/rps
	// x ErrorPenalty).
	ErrorPenalty float64
	// OutOfBand: the weights come from the periodic reports (GET /load every
	// balancers.refresh; the simulator's refresh) rather than those the
	// answers carry.
	OutOfBand bool
}

// A58's defaults, and the shortest update period it allows.
const (
	DefaultORCABlackout     = 10 * time.Second
	DefaultORCAExpiration   = 3 * time.Minute
	DefaultORCAUpdate       = time.Second
	MinORCAUpdate           = 100 * time.Millisecond
	DefaultORCAErrorPenalty = 1.0
)

// Reporter is an algorithm that is told of each load report of a member as
// it comes (policy.Balancer.Report), as gRPC's weighted round robin hears
// each report of a subchannel.
type Reporter interface {
	Reported(j int, rep load.Report)
}

// Weigher is an algorithm that weighs members by their reports and says
// how (for the dashboard and the lb's state): member j's weight at now, 0
// while none counts. Asking changes nothing.
type Weigher interface {
	WeightAt(now clock.Instant, j int) float64
}

// WeightAt is member j's weight as it counts at now (Weigher).
func (o *wrrORCA) WeightAt(now clock.Instant, j int) float64 {
	if j < 0 || j >= len(o.ws) {
		return 0
	}
	w := *o.ws[j] // a copy: an expiry seen here must not end the run
	return o.weightAt(now, &w)
}

// wrrORCA is weighted round robin on the servers' own reports (gRFC A58, as
// grpc-go's balancer/weightedroundrobin runs it):
//
//   - a report with rps > 0 and utilization > 0 gives the server the weight
//     rps / (utilization + eps/rps x error penalty): its served rate per unit
//     of its busy capacity, lowered by its error rate; other reports are
//     read past;
//   - a weight counts from Blackout after the first report of an unbroken
//     run of them, until Expiration after the last (then the run starts
//     again);
//   - every Update the scheduler is rebuilt: the weights are scaled so the
//     largest is 65535, a member without a counting weight gets the mean of
//     the others, and with fewer than two counting weights (or all equal)
//     the members take turns in plain round robin;
//   - the static stride scheduler of gRPC C++ and grpc-go: a sequence
//     number s, member i = s mod n, generation g = s div n; i is picked when
//     (w_i g + i 32767) mod 65535 >= 65535 - w_i, so each member comes up
//     w_i times per 65535 generations, spread out. lblab skips a member that
//     is not eligible (breaker, ejection, health) and, after 64 rounds of
//     nothing, falls back to round robin.
//
// The sequence starts at a number drawn from (Seed, Salt), as grpc-go starts
// it at random. A member's slow-start ramp multiplies its weight.
type wrrORCA struct {
	cfg        ORCA
	seed, salt uint64
	names      []string
	state      map[string]*orcaWeight // by server name, so a weight survives a member list change
	ws         []*orcaWeight          // by member
	scaled     []uint16               // the scheduler's weights; nil: round robin
	seq        uint64
	nextUpdate clock.Instant
	built      bool
	rr         roundRobin
}

// orcaWeight is one server's weight as its reports made it.
type orcaWeight struct {
	weight        float64
	nonEmptySince clock.Instant // the first report of the current run; -1: none
	lastUpdated   clock.Instant
}

const orcaMaxWeight = math.MaxUint16

func newWRROrca(c Config) Algorithm {
	o := &wrrORCA{cfg: c.ORCA, seed: c.Seed, salt: c.Salt, state: map[string]*orcaWeight{},
		rr: roundRobin{seed: c.Seed, salt: c.Salt}}
	o.seq = rng.Hash(c.Seed, 0, c.Salt^saltORCA)
	return o
}

func (o *wrrORCA) Name() string { return "wrr-orca" }

func (o *wrrORCA) Update(servers []Server) {
	o.names = o.names[:0]
	o.ws = o.ws[:0]
	keep := make(map[string]*orcaWeight, len(servers))
	for _, s := range servers {
		w := o.state[s.Name]
		if w == nil {
			w = &orcaWeight{nonEmptySince: -1}
		}
		keep[s.Name] = w
		o.names = append(o.names, s.Name)
		o.ws = append(o.ws, w)
	}
	o.state = keep
	o.rr.Update(servers)
	o.built = false // rebuilt at the next pick
}

// Reported takes member j's report as it comes (at rep.At).
func (o *wrrORCA) Reported(j int, rep load.Report) {
	capacity, ok := load.Capacity(rep, o.cfg.ErrorPenalty) // A58's weight, written once in core/load
	if j < 0 || j >= len(o.ws) || !ok {
		return
	}
	w := o.ws[j]
	w.weight = capacity
	assert.Thatf(w.weight > 0 && !math.IsInf(w.weight, 0), "wrr-orca: weight %g from %+v, want finite and > 0", w.weight, rep)
	if w.nonEmptySince < 0 {
		w.nonEmptySince = rep.At
	}
	w.lastUpdated = rep.At
}

// weightAt is w's weight as it counts at now: 0 while blacked out or
// expired (an expired weight's run ends).
func (o *wrrORCA) weightAt(now clock.Instant, w *orcaWeight) float64 {
	if w.nonEmptySince < 0 {
		return 0
	}
	if now.Sub(w.lastUpdated) >= o.cfg.Expiration {
		w.nonEmptySince = -1
		return 0
	}
	if o.cfg.Blackout > 0 && now.Sub(w.nonEmptySince) < o.cfg.Blackout {
		return 0
	}
	return w.weight
}

// rebuild makes the scheduler's weights from those counting at now.
func (o *wrrORCA) rebuild(now clock.Instant, v View) {
	n := len(o.ws)
	weights := make([]float64, n)
	sum, top, counting := 0.0, 0.0, 0
	for j, w := range o.ws {
		x := o.weightAt(now, w) * rampOf(v, j)
		weights[j] = x
		if x > 0 {
			sum, top, counting = sum+x, max(top, x), counting+1
		}
	}
	o.scaled = nil
	if counting < 2 {
		return // round robin
	}
	scale := orcaMaxWeight / top
	mean := uint16(math.Round(scale * sum / float64(counting)))
	scaled := make([]uint16, n)
	equal := true
	for j, x := range weights {
		scaled[j] = mean
		if x > 0 {
			scaled[j] = uint16(math.Round(scale * x))
		}
		equal = equal && scaled[j] == scaled[0]
	}
	if !equal {
		o.scaled = scaled
	}
}

func (o *wrrORCA) Pick(now clock.Instant, _ Request, v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	if len(o.ws) != n { // a view that disagrees with the last Update: weigh nobody
		o.ws = o.ws[:0]
		for range n {
			o.ws = append(o.ws, &orcaWeight{nonEmptySince: -1})
		}
		o.built = false
	}
	if !o.built || now >= o.nextUpdate {
		o.rebuild(now, v)
		o.built, o.nextUpdate = true, now.Add(max(o.cfg.Update, MinORCAUpdate))
	}
	if o.scaled == nil {
		return o.rr.Pick(now, Request{}, v)
	}
	for tries := 0; tries < 64*n; tries++ {
		o.seq++
		j := int(o.seq % uint64(n))
		gen := o.seq / uint64(n)
		w := uint64(o.scaled[j])
		if (w*gen+uint64(j)*(orcaMaxWeight/2))%orcaMaxWeight >= orcaMaxWeight-w && v.Ok(j) {
			return j
		}
	}
	return o.rr.Pick(now, Request{}, v)
}
