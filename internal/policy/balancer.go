package policy

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/assert"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/load"
	"github.com/lblab/lblab/internal/core/outlier"
	"github.com/lblab/lblab/internal/core/slowstart"
)

// BalancerConfig configures one balancer pipeline.
type BalancerConfig struct {
	Algorithm balance.Config
	Load      load.Mode
	Decay     time.Duration // EWMA decay of the load table
	// FailurePenalty is the load table's Penalty: a failed answer counts as
	// at least this long in the latency averages; 0 = as it came
	FailurePenalty time.Duration
	Timeout        time.Duration     // per-attempt timeout (504); 0 = none
	Breaker        *breaker.Config   // nil = no breakers
	Outlier        *outlier.Config   // nil = no outlier ejection
	SlowStart      *slowstart.Config // nil = no slow start
	Subset         int               // servers this balancer uses; 0 = all
	Seed           uint64            // subset draw (and the locality layer's)
	Salt           uint64            // distinguishes balancers sharing a seed
	// Locality is the zone layer over the algorithm (locality.go); a
	// policy other than none needs Zones. Zone is this balancer's own zone
	// (or, when clients balance themselves, its client's), and ClientSide
	// says the calling fleet is the clients rather than the tier.
	Locality   balance.LocalityConfig
	Zones      *Zones
	Zone       int32
	ClientSide bool
}

// Ticket is one pick; hand it back to Done with the attempt's result.
type Ticket struct {
	Server int  // global server index
	Probe  bool // a half-open breaker probe
	Valid  bool
}

// Balancer is the pipeline a balancer runs per attempt: the eligible members
// (present, in this balancer's subset, healthy, not ejected as an outlier,
// breaker not open, not the excluded hedge sibling), the algorithm's pick
// with each member's slow-start ramp, then the breaker's admission. Server
// indices are global and stable; removed servers keep their index.
//
// Outlier ejections end and slow-start ramps advance lazily: Pick and Done
// bring them up to the instant they are handed, so an ejection's end is
// noticed (and logged) at the first call after it.
type Balancer struct {
	cfg      BalancerConfig
	algo     balance.Algorithm
	loads    *load.Table
	breakers []*breaker.Breaker // by global index; nil entries when off
	ejector  *outlier.Detector  // nil when off
	ramp     *slowstart.Ramp    // nil when off
	servers  []balance.Server   // by global index
	present  []bool             // not removed
	healthy  []bool             // active health checks (true when off)
	subset   []bool             // in this balancer's subset
	picked   []uint64           // picks per server
	members  []int              // eligible global indices, rebuilt on change
	memberOf []int              // by global index: its place in members, -1 when not a member
	scans    bool               // the algorithm visits every member on a pick (balance.Caps.Scans)
	visits   uint64             // members its picks visited, when it scans (Visits)
	perCall  bool               // the algorithm reads the reports the answers carry (Reports)
	oob      bool               // ... the periodic ones
	prober   balance.Prober     // the algorithm, when it probes servers (nil otherwise)
	probeBuf []int              // the members Probes draws, before they are made global
	idler    balance.Idler      // the algorithm, when servers announce themselves idle to it (nil otherwise)
	idleBuf  []int              // the idle queue's members, before they are made global
	idleHits uint64             // picks that took a server off the idle queue (IdlePicks)
	idleIn   uint64             // announcements the idle queue took (IdleReceived)
	warming  []int              // servers that joined or came back since the last call: their ramp starts then
	last     clock.Instant      // the latest instant Pick or Done was handed
	view     memberView
	zoning   // the locality layer (locality.go)

	// OnBreaker is called on every breaker transition (for the event log).
	OnBreaker func(now clock.Instant, server int, from, to breaker.State)
	// OnOutlier is called on every outlier ejection and return (for the
	// event log; Change.Describe words it).
	OnOutlier func(now clock.Instant, server int, c outlier.Change)
}

// NewBalancer builds a balancer over servers (global indices 0..n-1).
func NewBalancer(cfg BalancerConfig, servers []balance.Server) (*Balancer, error) {
	algo, err := balance.New(cfg.Algorithm)
	if err != nil {
		return nil, err
	}
	if cfg.Breaker != nil {
		if _, err := breaker.New(*cfg.Breaker); err != nil {
			return nil, fmt.Errorf("breaker: %w", err)
		}
	}
	b := &Balancer{cfg: cfg, algo: algo, loads: load.NewTable(0, cfg.Load, cfg.Decay)}
	b.view.mask = allZones
	if err := b.setLocality(cfg); err != nil {
		return nil, err
	}
	b.setReports()
	b.loads.Penalty = cfg.FailurePenalty
	if err := b.setOutlier(cfg.Outlier); err != nil {
		return nil, err
	}
	if err := b.setSlowStart(cfg.SlowStart); err != nil {
		return nil, err
	}
	b.view.b = b
	for _, s := range servers {
		b.grow(s)
	}
	b.resubset()
	b.warming = b.warming[:0] // the first servers are warm
	return b, nil
}

func (b *Balancer) grow(s balance.Server) {
	i := len(b.servers)
	b.servers = append(b.servers, s)
	b.present = append(b.present, true)
	b.healthy = append(b.healthy, true)
	b.subset = append(b.subset, false)
	b.picked = append(b.picked, 0)
	b.zoneOf = append(b.zoneOf, b.serverZone(i))
	b.loads.Resize(i + 1)
	b.breakers = append(b.breakers, b.newBreaker(i))
	if b.ejector != nil {
		b.ejector.Resize(i + 1) // rebuild says whether it is active
	}
	if b.ramp != nil {
		b.ramp.Resize(i + 1)
	}
}

// newBreaker returns server i's breaker, or nil when breakers are off.
func (b *Balancer) newBreaker(i int) *breaker.Breaker {
	if b.cfg.Breaker == nil {
		return nil
	}
	br, _ := breaker.New(*b.cfg.Breaker) // validated before
	br.OnChange = func(now clock.Instant, from, to breaker.State) {
		if from == breaker.HalfOpen && to == breaker.Closed && b.ramp != nil {
			b.ramp.Start(now, i)
		}
		if b.OnBreaker != nil {
			b.OnBreaker(now, i, from, to)
		}
	}
	return br
}

// resubset redraws the subset over the present servers and rebuilds
// members; a server new to the subset warms up.
func (b *Balancer) resubset() {
	var present []int
	var names []string
	was := make([]bool, len(b.subset))
	for i, p := range b.present {
		was[i], b.subset[i] = b.subset[i], false
		if p {
			present = append(present, i)
			names = append(names, b.servers[i].Name)
		}
	}
	for _, j := range balance.Subset(b.cfg.Seed, b.cfg.Salt, names, b.cfg.Subset) {
		i := present[j]
		b.subset[i] = true
		if !was[i] {
			b.warming = append(b.warming, i)
		}
	}
	b.rebuild()
}

// rebuild recomputes the member list and hands it to the algorithm.
func (b *Balancer) rebuild() {
	b.members = b.members[:0]
	b.memberOf = b.memberOf[:0]
	var list []balance.Server
	for i := range b.servers {
		in := b.present[i] && b.subset[i]
		b.memberOf = append(b.memberOf, -1)
		if in {
			b.memberOf[i] = len(b.members)
			b.members = append(b.members, i)
			list = append(list, b.servers[i])
		}
		if b.ejector != nil {
			b.ejector.SetActive(b.last, i, in)
		}
	}
	b.algo.Update(list)
}

// advance brings the time-driven parts to now: ramps of servers that joined
// or came back since the last call start, outlier ejections that are over
// end, and a finished outlier interval is judged.
func (b *Balancer) advance(now clock.Instant) {
	b.last = max(b.last, now)
	if b.ramp != nil {
		for _, i := range b.warming {
			b.ramp.Start(now, i)
		}
	}
	b.warming = b.warming[:0]
	if b.ejector != nil {
		b.ejector.Advance(now)
	}
}

// Pick chooses a server for the attempt numbered req.Seq, never exclude
// (a hedge's sibling; -1 for none). It returns an invalid ticket when no
// server is eligible.
func (b *Balancer) Pick(now clock.Instant, req balance.Request, exclude int) Ticket {
	b.advance(now)
	b.view.now, b.view.exclude = now, exclude
	if b.scans {
		b.visits += uint64(len(b.members))
	}
	j := b.pickZoned(now, req)
	if j < 0 && exclude >= 0 { // the sibling is the only one left: better than nothing
		b.view.exclude = -1
		j = b.pickZoned(now, req)
	}
	if j < 0 {
		return Ticket{}
	}
	assert.That(j < len(b.members), "balancer: the algorithm picked past the members")
	i := b.members[j]
	assert.That(b.present[i] && b.subset[i] && b.healthy[i] && !b.Ejected(i), "balancer: a pick is not an eligible member")
	t := b.admit(now, i)
	if t.Valid && b.idler != nil && b.idler.TookIdle() {
		b.idleHits++
	}
	return t
}

// admit passes the pick of server i through its breaker and counts it sent.
func (b *Balancer) admit(now clock.Instant, i int) Ticket {
	t := Ticket{Server: i, Valid: true}
	if br := b.breakers[i]; br != nil {
		ok, probe := br.Allow(now)
		if !ok {
			return Ticket{}
		}
		t.Probe = probe
	}
	b.loads.Sent(now, i)
	b.picked[i]++
	return t
}

// Done reports the attempt's result and the time from send to answer. A
// cancelled attempt only frees its place: its time says nothing about the
// server's speed, and it is neither a success nor a failure for the breaker
// (a cancelled probe gives its half-open place back) or the outlier
// detector.
func (b *Balancer) Done(now clock.Instant, t Ticket, r Result, rtt time.Duration) {
	if !t.Valid {
		return // no pick
	}
	b.advance(now)
	br := b.breakers[t.Server]
	if r == Cancelled {
		b.loads.Drop(t.Server)
		if br != nil {
			br.Release(now, t.Probe)
		}
		return
	}
	if r == OK {
		b.loads.Done(now, t.Server, rtt)
	} else {
		b.loads.Failed(now, t.Server, rtt)
	}
	if br != nil {
		br.Done(now, r == OK, t.Probe)
	}
	if b.ejector != nil {
		b.ejector.Observe(now, t.Server, r == OK, rtt)
	}
}

// Reconfigure brings the pipeline to cfg, changing only what differs, so a
// drill that changes one setting leaves the rest as it was: load figures,
// breaker states, outlier ejections and slow-start ramps. A new decay keeps
// the load figures (load.Table.SetDecay); a new load mode is refused, as the
// lab file refuses it in a set event (labfile.FixedAtRunTime): the counts
// of the attempts in flight come from one place or the other. A new subset
// or aperture redraws the members. Everything is validated first: on error
// nothing has changed. The simulator, the live lb
// and the loadgen's client-side balancers all apply settings through it.
func (b *Balancer) Reconfigure(cfg BalancerConfig) error {
	algo := b.algo
	if cfg.Algorithm != b.cfg.Algorithm {
		var err error
		if algo, err = balance.New(cfg.Algorithm); err != nil {
			return err
		}
	}
	if cfg.Load != b.cfg.Load {
		return fmt.Errorf("load: the load mode is fixed for a run (%s, not %s)", b.cfg.Load, cfg.Load)
	}
	if c := cfg.Breaker; c != nil {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("breaker: %w", err)
		}
	}
	if c := cfg.Outlier; c != nil {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("outlier: %w", err)
		}
	}
	if c := cfg.SlowStart; c != nil {
		if err := c.Validate(); err != nil {
			return fmt.Errorf("slow start: %w", err)
		}
	}
	if err := checkLocality(cfg); err != nil {
		return err
	}
	old := b.cfg
	_ = b.setLocality(cfg) // validated above
	b.cfg.Timeout = cfg.Timeout
	if !same(old.Breaker, cfg.Breaker) {
		_ = b.setBreaker(cfg.Breaker) // validated above
	}
	_ = b.setOutlier(cfg.Outlier)     // validated; the same settings change nothing
	_ = b.setSlowStart(cfg.SlowStart) // validated; ramps under way go on
	if cfg.Decay != old.Decay {
		b.cfg.Decay = cfg.Decay
		b.loads.SetDecay(b.last, cfg.Decay)
	}
	b.cfg.FailurePenalty, b.loads.Penalty = cfg.FailurePenalty, cfg.FailurePenalty
	b.cfg.Algorithm, b.algo = cfg.Algorithm, algo
	b.setReports()
	if cfg.Subset != old.Subset || cfg.Seed != old.Seed || cfg.Salt != old.Salt {
		b.cfg.Subset, b.cfg.Seed, b.cfg.Salt = cfg.Subset, cfg.Seed, cfg.Salt
		b.resubset()
	} else {
		b.rebuild()
	}
	return nil
}

// Timeout is the per-attempt timeout (0 = none).
func (b *Balancer) Timeout() time.Duration { return b.cfg.Timeout }

// Loads is this balancer's load table (indexed by global server index).
func (b *Balancer) Loads() *load.Table { return b.loads }

// Report hands the balancer server i's load report: the load table keeps
// it, and an algorithm that weighs servers by their reports (a
// balance.Reporter: wrr-orca) hears it.
func (b *Balancer) Report(i int, rep load.Report) {
	b.loads.Report(i, rep)
	if r, ok := b.algo.(balance.Reporter); ok && i >= 0 && i < len(b.memberOf) && b.memberOf[i] >= 0 && rep.Valid && rep.Sane() {
		r.Reported(b.memberOf[i], rep)
	}
}

// Reports says which load reports the balancer's algorithm reads besides
// the queue: perCall, those the answers carry (the driver hands them to
// Report as each answer passes the balancer); outOfBand, the periodic ones
// (the driver polls every balancers.refresh). Neither for an algorithm that
// reads no reports.
func (b *Balancer) Reports() (perCall, outOfBand bool) { return b.perCall, b.oob }

// ReportedWeight is the weight an algorithm that weighs servers by their
// reports gives server i at now (false for another algorithm or a server
// not a member): 0 while none counts.
func (b *Balancer) ReportedWeight(now clock.Instant, i int) (float64, bool) {
	w, ok := b.algo.(balance.Weigher)
	if !ok || i < 0 || i >= len(b.memberOf) || b.memberOf[i] < 0 {
		return 0, false
	}
	return w.WeightAt(now, b.memberOf[i]), true
}

// Visits is the members the algorithm's picks have visited, when it
// scans them all on each pick (0 otherwise): the work the simulator's
// guard counts beside its events.
func (b *Balancer) Visits() uint64 { return b.visits }

// Probes appends to dst the servers (global indices) to probe at the pick
// req, at now, when the algorithm probes servers (a balance.Prober:
// prequal); nothing for the others. The driver calls it after the pick's
// Pick, sends each a probe off the request path, and hands back each
// answer to Probed: the simulator as events over the hops, the lb as GET
// /probe. Distinct, eligible servers (as of Pick's view at now).
func (b *Balancer) Probes(now clock.Instant, req balance.Request, dst []int) []int {
	if b.prober == nil {
		return dst
	}
	ex := b.view.exclude // the pick's own, which Eligible reads after it
	b.view.now, b.view.exclude = now, -1
	b.probeBuf = b.prober.ProbeTargets(now, req, &b.view, b.probeBuf[:0])
	b.view.exclude = ex
	for _, j := range b.probeBuf {
		dst = append(dst, b.members[j])
	}
	return dst
}

// Probed hands the algorithm server i's answer to the probe sent at the
// pick numbered seq, arriving at now; an answer of a server that is no
// longer a member, or not sane, is dropped.
func (b *Balancer) Probed(now clock.Instant, i int, seq uint64, p load.Probe) {
	if b.prober == nil || i < 0 || i >= len(b.memberOf) || b.memberOf[i] < 0 || !p.Sane() {
		return
	}
	b.prober.Probed(now, b.memberOf[i], seq, p)
}

// Pool is a probing algorithm's pool of answers (balance.PoolView), by
// global server index; nil for the others.
func (b *Balancer) Pool() []balance.PoolEntry {
	pv, ok := b.algo.(balance.PoolView)
	if !ok {
		return nil
	}
	var out []balance.PoolEntry
	for _, e := range pv.Pool(nil) {
		if e.Member < len(b.members) {
			e.Member = b.members[e.Member]
			out = append(out, e)
		}
	}
	return out
}

// setReports sets what Reports says, from the algorithm and its config,
// and whether it probes.
func (b *Balancer) setReports() {
	b.scans = balance.CapsOf(b.algo.Name()).Scans
	reads := balance.CapsOf(b.algo.Name()).Reports
	b.oob = reads && b.cfg.Algorithm.ORCA.OutOfBand
	b.perCall = reads && !b.oob
	b.prober, _ = b.algo.(balance.Prober)
	b.idler, _ = b.algo.(balance.Idler)
}

// Idle hands the algorithm server i's announcement that it is idle,
// arriving at now, when the algorithm keeps an idle queue (a
// balance.Idler: jiq); an announcement of a server that is not a member,
// or to another algorithm, is dropped.
func (b *Balancer) Idle(now clock.Instant, i int) {
	if b.idler == nil || i < 0 || i >= len(b.memberOf) || b.memberOf[i] < 0 {
		return
	}
	b.idleIn++
	b.idler.Idle(now, b.memberOf[i])
}

// IdleReceived is the announcements its idle queue took (Idle of a
// member), over the balancer's life.
func (b *Balancer) IdleReceived() uint64 { return b.idleIn }

// IdleQueue appends the algorithm's idle queue to dst, head first, by
// global server index (nothing for an algorithm without one).
func (b *Balancer) IdleQueue(dst []int) []int {
	if b.idler == nil {
		return dst
	}
	b.idleBuf = b.idler.IdleQueue(b.idleBuf[:0])
	for _, j := range b.idleBuf {
		dst = append(dst, b.members[j])
	}
	return dst
}

// Idling reports whether the algorithm keeps an idle queue (a
// balance.Idler: jiq).
func (b *Balancer) Idling() bool { return b.idler != nil }

// IdlePicks is the picks (admitted) that took a server off the idle queue,
// over the balancer's life.
func (b *Balancer) IdlePicks() uint64 { return b.idleHits }

// Sent is the picks admitted over the balancer's life, to every server.
func (b *Balancer) Sent() uint64 {
	var n uint64
	for _, p := range b.picked {
		n += p
	}
	return n
}

// IdleLen is the length of the algorithm's idle queue (0 without one): what
// a server that joins the shortest of several reads.
func (b *Balancer) IdleLen() int {
	if b.idler == nil {
		return 0
	}
	b.idleBuf = b.idler.IdleQueue(b.idleBuf[:0])
	return len(b.idleBuf)
}

// Probing reports whether the algorithm probes servers (Probes draws some).
func (b *Balancer) Probing() bool { return b.prober != nil }

// Algorithm is the current algorithm's name.
func (b *Balancer) Algorithm() string { return b.algo.Name() }

// setBreaker turns breakers on (cfg != nil, all fresh and closed) or off.
func (b *Balancer) setBreaker(cfg *breaker.Config) error {
	if cfg != nil {
		if _, err := breaker.New(*cfg); err != nil {
			return fmt.Errorf("breaker: %w", err)
		}
	}
	b.cfg.Breaker = cfg
	for i := range b.breakers {
		b.breakers[i] = b.newBreaker(i)
	}
	return nil
}

// setOutlier turns outlier ejection on (cfg != nil) or off. The same
// settings again change nothing; new ones start over, every server in
// rotation.
func (b *Balancer) setOutlier(cfg *outlier.Config) error {
	if same(b.cfg.Outlier, cfg) && (cfg == nil) == (b.ejector == nil) {
		return nil
	}
	if cfg == nil {
		b.cfg.Outlier, b.ejector = nil, nil
		return nil
	}
	d, err := outlier.New(*cfg)
	if err != nil {
		return fmt.Errorf("outlier: %w", err)
	}
	d.OnChange = func(now clock.Instant, i int, c outlier.Change) {
		if !c.Ejected && b.ramp != nil {
			b.ramp.Start(now, i)
		}
		if b.OnOutlier != nil {
			b.OnOutlier(now, i, c)
		}
	}
	d.Resize(len(b.servers))
	for i := range b.servers {
		d.SetActive(b.last, i, b.present[i] && b.subset[i])
	}
	b.cfg.Outlier, b.ejector = cfg, d
	return nil
}

// setSlowStart turns slow start on (cfg != nil) or off. Ramps under way
// keep going with the new settings; servers join or come back warm while it
// is off.
func (b *Balancer) setSlowStart(cfg *slowstart.Config) error {
	if cfg == nil {
		b.cfg.SlowStart, b.ramp = nil, nil
		return nil
	}
	if b.ramp != nil {
		if err := b.ramp.SetConfig(*cfg); err != nil {
			return fmt.Errorf("slow start: %w", err)
		}
		b.cfg.SlowStart = cfg
		return nil
	}
	r, err := slowstart.New(*cfg)
	if err != nil {
		return fmt.Errorf("slow start: %w", err)
	}
	r.Resize(len(b.servers))
	b.cfg.SlowStart, b.ramp = cfg, r
	return nil
}

// same reports whether two optional settings are equal.
func same[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// AddServer adds a server and returns its global index. It warms up (slow
// start) from the next pick on.
func (b *Balancer) AddServer(s balance.Server) int {
	b.grow(s)
	b.resubset()
	return len(b.servers) - 1
}

// RemoveServer takes server i out for good.
func (b *Balancer) RemoveServer(i int) {
	if i >= 0 && i < len(b.present) {
		b.present[i] = false
		b.resubset()
	}
}

// SetHealthy marks server i in or out of rotation (active health checks).
// A server back in rotation warms up (slow start) from the next pick on.
func (b *Balancer) SetHealthy(i int, ok bool) {
	if i >= 0 && i < len(b.healthy) {
		if ok && !b.healthy[i] {
			b.warming = append(b.warming, i)
		}
		b.healthy[i] = ok
	}
}

// BreakerState is server i's breaker state (closed when breakers are off).
func (b *Balancer) BreakerState(now clock.Instant, i int) breaker.State {
	if i < 0 || i >= len(b.breakers) || b.breakers[i] == nil {
		return breaker.Closed
	}
	return b.breakers[i].State(now)
}

// PeekBreaker is BreakerState without the side effect of noticing that an
// open period has ended (breaker.Peek): reading it changes nothing.
func (b *Balancer) PeekBreaker(now clock.Instant, i int) breaker.State {
	if i < 0 || i >= len(b.breakers) || b.breakers[i] == nil {
		return breaker.Closed
	}
	return b.breakers[i].Peek(now)
}

// Ejected reports whether server i is out of rotation as an outlier (as of
// the last Pick or Done).
func (b *Balancer) Ejected(i int) bool { return b.ejector != nil && b.ejector.Ejected(i) }

// Ejections returns how many servers are ejected as outliers and how many
// may be at most (0, 0 when outlier ejection is off).
func (b *Balancer) Ejections() (ejected, allowed int) {
	if b.ejector == nil {
		return 0, 0
	}
	return b.ejector.Count()
}

// Eligible reports whether server i could be picked at now as the last
// Pick's view saw it: a member, healthy, not ejected, breaker ready, and not
// that pick's excluded sibling.
func (b *Balancer) Eligible(now clock.Instant, i int) bool {
	if i < 0 || i >= len(b.servers) || !b.present[i] || !b.subset[i] {
		return false
	}
	return b.ok(now, i, b.view.exclude)
}

// Picked is how many attempts this balancer has sent to server i.
func (b *Balancer) Picked(i int) uint64 {
	if i < 0 || i >= len(b.picked) {
		return 0
	}
	return b.picked[i]
}

// Members are the global indices this balancer may pick from.
func (b *Balancer) Members() []int { return b.members }

// ok is the eligibility of member server i at now.
func (b *Balancer) ok(now clock.Instant, i, exclude int) bool {
	if i == exclude || !b.healthy[i] || b.ejector != nil && b.ejector.Ejected(i) {
		return false
	}
	if br := b.breakers[i]; br != nil {
		return br.Ready(now)
	}
	return true
}

// memberView adapts the balancer's state to balance.View for one pick.
type memberView struct {
	b       *Balancer
	now     clock.Instant
	exclude int
	mask    uint64 // the zones the pick may take (bit z: zone z); allZones when the layer is off
}

func (v *memberView) Len() int { return len(v.b.members) }

func (v *memberView) Ok(j int) bool {
	i := v.b.members[j]
	if v.mask != allZones && v.mask&(1<<uint(v.b.zoneOf[i])) == 0 {
		return false
	}
	return v.b.ok(v.now, i, v.exclude)
}

func (v *memberView) Load(j int) *load.Stat { return &v.b.loads.Stats[v.b.members[j]] }

func (v *memberView) Ramp(j int) float64 {
	if v.b.ramp == nil {
		return 1
	}
	return v.b.ramp.Factor(v.now, v.b.members[j])
}

// Owners maps keys 0..n-1 to the global index of their owner under a
// key-affinity algorithm, ignoring load; nil for other algorithms.
func (b *Balancer) Owners(n int) []int {
	h, ok := b.algo.(balance.Hasher)
	if !ok {
		return nil
	}
	out := make([]int, n)
	for k := range out {
		out[k] = b.members[h.Owner(uint64(k))]
	}
	return out
}
