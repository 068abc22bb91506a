package balance

import (
	"math"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/rng"
)

// Prequal is the configuration of prequal, Google's Prequal (Wydrowski,
// Kleinberg, Rumble, Archer: "Load is not what you should balance:
// Introducing Prequal", NSDI 2024), with the defaults of the paper's
// testbed.
type Prequal struct {
	// ProbeRate is the probes sent per pick on average: its whole part at
	// every pick, one more with the probability of its fractional part.
	ProbeRate float64
	// PoolSize is the most probe answers the pool holds.
	PoolSize int
	// MaxAge: an answer this old (since it reached the balancer) leaves the
	// pool.
	MaxAge time.Duration
	// QRIF is the quantile of the pool's requests in flight above which a
	// server is hot.
	QRIF float64
	// ReuseDelta is δ of the reuse budget (reuseBudget).
	ReuseDelta float64
}

// Prequal's defaults and bounds. The defaults are the paper's testbed's: 3
// probes per query, a pool of 16, answers up to about a second old, Q_RIF =
// 2^-0.25 rounded to 0.84; δ = 1 is lblab's.
const (
	DefaultProbeRate  = 3.0
	MaxProbeRate      = 16
	DefaultPoolSize   = 16
	MaxPoolSize       = 64
	DefaultMaxAge     = time.Second
	DefaultQRIF       = 0.84
	DefaultReuseDelta = 1.0
	MaxReuseDelta     = 100
	// prequalRemoveRate is r_remove: the probes removed per pick.
	prequalRemoveRate = 1
)

// DefaultPrequal is prequal's configuration with the paper's defaults.
func DefaultPrequal() Prequal {
	return Prequal{ProbeRate: DefaultProbeRate, PoolSize: DefaultPoolSize, MaxAge: DefaultMaxAge,
		QRIF: DefaultQRIF, ReuseDelta: DefaultReuseDelta}
}

// ok reports whether every field is in its range.
func (p Prequal) ok() bool {
	return p.ProbeRate > 0 && p.ProbeRate <= MaxProbeRate && p.PoolSize >= 1 && p.PoolSize <= MaxPoolSize &&
		p.MaxAge > 0 && p.QRIF >= 0 && p.QRIF <= 1 && p.ReuseDelta >= 0 && p.ReuseDelta <= MaxReuseDelta
}

// Prober is an algorithm that probes members off the request path
// (prequal): at each pick the driver asks it which members to probe
// (ProbeTargets, through policy.Balancer.Probes), sends each a probe, and
// hands back each answer as it reaches the balancer (Probed, through
// policy.Balancer.Probed). A probe that gets no answer is never heard of
// again.
type Prober interface {
	// ProbeTargets appends to dst the members to probe at the pick
	// numbered req.Seq: distinct, eligible ones.
	ProbeTargets(now clock.Instant, req Request, v View, dst []int) []int
	// Probed takes member j's answer to the probe sent at the pick
	// numbered seq, arriving at now.
	Probed(now clock.Instant, j int, seq uint64, p load.Probe)
}

// PoolView is a probing algorithm's pool as it stands (for the lb's state
// and tests): each answer's member, its requests in flight (as answered,
// plus one per pick it served), latency, when it arrived and whether it is
// hot. Asking changes nothing.
type PoolView interface {
	Pool(dst []PoolEntry) []PoolEntry
}

// PoolEntry is one answer of a probing algorithm's pool.
type PoolEntry struct {
	Member  int
	RIF     int
	Latency time.Duration
	At      clock.Instant
	Hot     bool
}

// prequal picks from a pool of probe answers by the hot-cold lexicographic
// rule (docs/model.md §3 gives the rules in full):
//
//   - probes: at each pick ProbeRate probes on average (the whole part, and
//     one more with the probability of the fractional part, drawn from
//     (Seed, req.Seq)), to members drawn uniformly without replacement among
//     the eligible ones. The driver sends them off the request path and
//     hands back each answer (Probed): the server's requests in flight
//     (RIF) and its latency estimate at that RIF;
//   - the pool holds at most PoolSize answers, one per member (a newer
//     answer of a member replaces its older one; an answer that finds the
//     pool full replaces the oldest), each for at most MaxAge;
//   - hot and cold: an answer is hot when its RIF is above the QRIF
//     quantile of the pool's RIFs (linear interpolation between the
//     sorted values, as numpy's default quantile); a pick takes, among the
//     answers of eligible members, the cold one of lowest latency, or when
//     every one is hot the one of lowest RIF (ties: lower RIF, lower
//     latency, the newer answer, the lower member). No eligible member in
//     the pool: a member drawn uniformly among the eligible ones;
//   - reuse: the answer used counts the pick (its RIF goes up by one) and
//     leaves the pool once it has served b_reuse picks, b_reuse = max(1,
//     (1 + ReuseDelta) / ((1 - PoolSize/n) × ProbeRate - r_remove)) over n
//     members, rounded down or up at random to its fractional part; with a
//     denominator at or below 0 (a pool as large as the fleet) there is no
//     such limit;
//   - removal: after each pick r_remove = 1 answer leaves, in turn the
//     oldest and the worst (the hot one of highest RIF, or with none hot
//     the one of highest latency).
//
// Slow start does not apply (Prequal has none). A member list change keeps
// the answers of the members that stay.
type prequal struct {
	cfg        Prequal
	seed, salt uint64
	names      []string // by member
	pool       []prequalEntry
	worstNext  bool              // the next removal takes the worst answer, else the oldest
	rifs       []int             // scratch of the pool's RIFs, sorted by threshold
	taken      [MaxProbeRate]int // scratch of ProbeTargets' draws so far, ascending
}

// prequalEntry is one probe answer in the pool.
type prequalEntry struct {
	j       int // member
	rif     int // as answered, plus one per pick it served
	latency time.Duration
	at      clock.Instant // when it reached the balancer
	uses    int           // picks it served
	budget  int           // picks it may serve; 0: no limit
}

func newPrequal(c Config) Algorithm {
	return &prequal{cfg: c.Prequal, seed: c.Seed, salt: c.Salt,
		pool: make([]prequalEntry, 0, c.Prequal.PoolSize), rifs: make([]int, 0, c.Prequal.PoolSize)}
}

func (q *prequal) Name() string { return "prequal" }

// Update keeps the answers of the members that stay, at their new indices.
func (q *prequal) Update(servers []Server) {
	at := make(map[string]int, len(servers))
	for i, s := range servers {
		at[s.Name] = i
	}
	kept := q.pool[:0]
	for _, e := range q.pool {
		if e.j < len(q.names) {
			if j, ok := at[q.names[e.j]]; ok {
				e.j = j
				kept = append(kept, e)
			}
		}
	}
	q.pool = kept
	q.names = q.names[:0]
	for _, s := range servers {
		q.names = append(q.names, s.Name)
	}
}

// ProbeTargets draws the members to probe at the pick req: ProbeRate of
// them on average, distinct, uniform among the eligible ones.
func (q *prequal) ProbeTargets(_ clock.Instant, req Request, v View, dst []int) []int {
	whole, frac := math.Modf(q.cfg.ProbeRate)
	count := int(whole)
	if frac > 0 && rng.HashFloat(q.seed, req.Seq, q.salt^saltProbeCount) < frac {
		count++
	}
	count = min(count, len(q.taken))
	n := v.Len()
	of := rng.HashOf(q.seed, req.Seq)
	for d := 0; d < count; d++ {
		j := drawOne(v, n, of, q.salt^saltProbeTarget, d, q.taken[:d])
		if j < 0 {
			break
		}
		dst = append(dst, j)
		q.taken[d] = j
		for k := d; k > 0 && q.taken[k-1] > q.taken[k]; k-- {
			q.taken[k-1], q.taken[k] = q.taken[k], q.taken[k-1]
		}
	}
	return dst
}

// Probed takes member j's answer into the pool.
func (q *prequal) Probed(now clock.Instant, j int, seq uint64, p load.Probe) {
	if j < 0 || j >= len(q.names) || !p.Sane() {
		return
	}
	e := prequalEntry{j: j, rif: p.RIF, latency: p.Latency, at: now,
		budget: q.budget(len(q.names), rng.HashFloat(q.seed, seq, q.salt^saltProbeReuse^uint64(j)))}
	for i := range q.pool {
		if q.pool[i].j == j { // the newer answer replaces the older
			q.pool[i] = e
			return
		}
	}
	if len(q.pool) >= q.cfg.PoolSize {
		q.remove(q.oldest())
	}
	q.pool = append(q.pool, e)
}

// reuseBudget is b_reuse over n members (+Inf: no limit).
func (q *prequal) reuseBudget(n int) float64 {
	den := (1-float64(q.cfg.PoolSize)/float64(n))*q.cfg.ProbeRate - prequalRemoveRate
	if !(den > 0) {
		return math.Inf(1)
	}
	return max(1, (1+q.cfg.ReuseDelta)/den)
}

// budget is an answer's reuse budget over n members, rounded up with the
// probability of its fractional part (u uniform in [0, 1)); 0 for none.
func (q *prequal) budget(n int, u float64) int {
	b := q.reuseBudget(n)
	if math.IsInf(b, 1) || b > math.MaxInt32 {
		return 0
	}
	whole, frac := math.Modf(b)
	if u < frac {
		whole++
	}
	return int(whole)
}

// threshold is the QRIF quantile of the pool's RIFs (linear interpolation
// between the sorted values); NaN for an empty pool.
func (q *prequal) threshold() float64 {
	r := q.rifs[:0]
	for _, e := range q.pool {
		r = append(r, e.rif)
		for k := len(r) - 1; k > 0 && r[k-1] > r[k]; k-- {
			r[k-1], r[k] = r[k], r[k-1]
		}
	}
	q.rifs = r
	if len(r) == 0 {
		return math.NaN()
	}
	h := q.cfg.QRIF * float64(len(r)-1)
	lo := int(h)
	if lo >= len(r)-1 {
		return float64(r[len(r)-1])
	}
	return float64(r[lo]) + (h-float64(lo))*float64(r[lo+1]-r[lo])
}

// better reports whether answer a is to be picked before b, at threshold
// thr: cold before hot; among cold ones lower latency, among hot ones
// lower RIF; then lower RIF, lower latency, the newer, the lower member.
func better(a, b *prequalEntry, thr float64) bool {
	ah, bh := float64(a.rif) > thr, float64(b.rif) > thr
	switch {
	case ah != bh:
		return !ah
	case !ah && a.latency != b.latency:
		return a.latency < b.latency
	case a.rif != b.rif:
		return a.rif < b.rif
	case a.latency != b.latency:
		return a.latency < b.latency
	case a.at != b.at:
		return a.at > b.at
	}
	return a.j < b.j
}

// expire drops the answers older than MaxAge at now.
func (q *prequal) expire(now clock.Instant) {
	for i := 0; i < len(q.pool); {
		if now.Sub(q.pool[i].at) > q.cfg.MaxAge {
			q.remove(i)
			continue
		}
		i++
	}
}

// remove takes the pool's answer i out (the order of the others does not
// matter: every choice among them breaks its ties by their fields).
func (q *prequal) remove(i int) {
	last := len(q.pool) - 1
	q.pool[i] = q.pool[last]
	q.pool = q.pool[:last]
}

// oldest is the index of the answer that reached the balancer first (of
// those that came together, the lower member's), -1 for an empty pool.
func (q *prequal) oldest() int {
	o := -1
	for i := range q.pool {
		if o < 0 || q.pool[i].at < q.pool[o].at || q.pool[i].at == q.pool[o].at && q.pool[i].j < q.pool[o].j {
			o = i
		}
	}
	return o
}

// worst is the index of the answer picked last by the rule at threshold
// thr: the hot one of highest RIF, else the cold one of highest latency.
func (q *prequal) worst(thr float64) int {
	w := -1
	for i := range q.pool {
		if w < 0 || better(&q.pool[w], &q.pool[i], thr) {
			w = i
		}
	}
	return w
}

func (q *prequal) Pick(now clock.Instant, req Request, v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	q.expire(now)
	thr := q.threshold()
	best := -1
	for i := range q.pool {
		e := &q.pool[i]
		if e.j >= n || !v.Ok(e.j) {
			continue
		}
		if best < 0 || better(e, &q.pool[best], thr) {
			best = i
		}
	}
	j := -1
	if best >= 0 {
		e := &q.pool[best]
		j = e.j
		e.rif++
		e.uses++
		if e.budget > 0 && e.uses >= e.budget {
			q.remove(best)
		}
	} else {
		var out [1]int
		if drawDistinct(v, q.seed, req.Seq, q.salt^saltProbeRandom, out[:]) == 1 {
			j = out[0]
		}
	}
	for range prequalRemoveRate {
		if len(q.pool) == 0 {
			break
		}
		if q.worstNext {
			q.remove(q.worst(q.threshold()))
		} else {
			q.remove(q.oldest())
		}
		q.worstNext = !q.worstNext
	}
	return j
}

// Pool is the pool as it stands (PoolView), in no particular order.
func (q *prequal) Pool(dst []PoolEntry) []PoolEntry {
	thr := q.threshold()
	for _, e := range q.pool {
		dst = append(dst, PoolEntry{Member: e.j, RIF: e.rif, Latency: e.latency, At: e.at, Hot: float64(e.rif) > thr})
	}
	return dst
}
