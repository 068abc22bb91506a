package policy

import (
	"fmt"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/core/breaker"
	"github.com/lblab/lblab/internal/core/load"
)

// Result is how one attempt ended, as the balancer or client sees it.
type Result uint8

const (
	OK        Result = iota // 200
	Error                   // 500 or 502 (server error, refused or reset connection)
	Rejected                // 503 (shed by a queue, limit or max outstanding)
	Timeout                 // 504 or an attempt timeout
	Cancelled               // withdrawn while queued (a hedge's loser): no verdict on the server
)

func (r Result) String() string {
	return [...]string{"ok", "error", "rejected", "timeout", "cancelled"}[r]
}

// BalancerConfig configures one balancer pipeline.
type BalancerConfig struct {
	Algorithm balance.Config
	Load      load.Mode
	Decay     time.Duration   // EWMA decay of the load table
	Timeout   time.Duration   // per-attempt timeout (504); 0 = none
	Breaker   *breaker.Config // nil = no breakers
	Subset    int             // servers this balancer uses; 0 = all
	Seed      uint64          // subset draw
	Salt      uint64          // distinguishes balancers sharing a seed
}

// Ticket is one pick; hand it back to Done with the attempt's result.
type Ticket struct {
	Server int  // global server index
	Probe  bool // a half-open breaker probe
	Valid  bool
}

// Balancer is the pipeline a balancer runs per attempt: the eligible members
// (present, in this balancer's subset, healthy, breaker not open, not the
// excluded hedge sibling), the algorithm's pick, then the breaker's admission.
// Server indices are global and stable; removed servers keep their index.
type Balancer struct {
	cfg      BalancerConfig
	algo     balance.Algorithm
	loads    *load.Table
	breakers []*breaker.Breaker // by global index; nil entries when off
	servers  []balance.Server   // by global index
	present  []bool             // not removed
	healthy  []bool             // active health checks (true when off)
	subset   []bool             // in this balancer's subset
	members  []int              // eligible global indices, rebuilt on change
	view     memberView

	// OnBreaker is called on every breaker transition (for the event log).
	OnBreaker func(now clock.Instant, server int, from, to breaker.State)
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
	b.view.b = b
	for _, s := range servers {
		b.grow(s)
	}
	b.resubset()
	return b, nil
}

func (b *Balancer) grow(s balance.Server) {
	i := len(b.servers)
	b.servers = append(b.servers, s)
	b.present = append(b.present, true)
	b.healthy = append(b.healthy, true)
	b.subset = append(b.subset, true)
	b.loads.Resize(i + 1)
	b.breakers = append(b.breakers, b.newBreaker(i))
}

// newBreaker returns server i's breaker, or nil when breakers are off.
func (b *Balancer) newBreaker(i int) *breaker.Breaker {
	if b.cfg.Breaker == nil {
		return nil
	}
	br, _ := breaker.New(*b.cfg.Breaker) // validated before
	br.OnChange = func(now clock.Instant, from, to breaker.State) {
		if b.OnBreaker != nil {
			b.OnBreaker(now, i, from, to)
		}
	}
	return br
}

// resubset redraws the subset over the present servers and rebuilds members.
func (b *Balancer) resubset() {
	var present []int
	var names []string
	for i, p := range b.present {
		b.subset[i] = false
		if p {
			present = append(present, i)
			names = append(names, b.servers[i].Name)
		}
	}
	for _, j := range balance.Subset(b.cfg.Seed, b.cfg.Salt, names, b.cfg.Subset) {
		b.subset[present[j]] = true
	}
	b.rebuild()
}

// rebuild recomputes the member list and hands it to the algorithm.
func (b *Balancer) rebuild() {
	b.members = b.members[:0]
	var list []balance.Server
	for i := range b.servers {
		if b.present[i] && b.subset[i] {
			b.members = append(b.members, i)
			list = append(list, b.servers[i])
		}
	}
	b.algo.Update(list)
}

// Pick chooses a server for the attempt numbered req.Seq, never exclude
// (a hedge's sibling; -1 for none). It returns an invalid ticket when no
// server is eligible.
func (b *Balancer) Pick(now clock.Instant, req balance.Request, exclude int) Ticket {
	b.view.now, b.view.exclude = now, exclude
	j := b.algo.Pick(now, req, &b.view)
	if j < 0 && exclude >= 0 { // the sibling is the only one left: better than nothing
		b.view.exclude = -1
		j = b.algo.Pick(now, req, &b.view)
	}
	if j < 0 {
		return Ticket{}
	}
	i := b.members[j]
	t := Ticket{Server: i, Valid: true}
	if br := b.breakers[i]; br != nil {
		ok, probe := br.Allow(now)
		if !ok {
			return Ticket{}
		}
		t.Probe = probe
	}
	b.loads.Sent(now, i)
	return t
}

// Done reports the attempt's result and the time from send to answer. A
// cancelled attempt only frees its place: its time says nothing about the
// server's speed, and it is neither a success nor a failure for the breaker.
func (b *Balancer) Done(now clock.Instant, t Ticket, r Result, rtt time.Duration) {
	if !t.Valid {
		return
	}
	if r == Cancelled {
		b.loads.Drop(t.Server)
		return
	}
	b.loads.Done(now, t.Server, rtt)
	if br := b.breakers[t.Server]; br != nil {
		br.Done(now, r == OK, t.Probe)
	}
}

// Timeout is the per-attempt timeout (0 = none).
func (b *Balancer) Timeout() time.Duration { return b.cfg.Timeout }

// SetTimeout changes the per-attempt timeout.
func (b *Balancer) SetTimeout(d time.Duration) { b.cfg.Timeout = d }

// Loads is this balancer's load table (indexed by global server index).
func (b *Balancer) Loads() *load.Table { return b.loads }

// Algorithm is the current algorithm's name.
func (b *Balancer) Algorithm() string { return b.algo.Name() }

// SetAlgorithm switches algorithm, keeping load information.
func (b *Balancer) SetAlgorithm(cfg balance.Config) error {
	algo, err := balance.New(cfg)
	if err != nil {
		return err
	}
	b.cfg.Algorithm, b.algo = cfg, algo
	b.rebuild()
	return nil
}

// SetBreaker turns breakers on (cfg != nil, all fresh and closed) or off.
func (b *Balancer) SetBreaker(cfg *breaker.Config) error {
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

// AddServer adds a server and returns its global index.
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
func (b *Balancer) SetHealthy(i int, ok bool) {
	if i >= 0 && i < len(b.healthy) {
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

// Members are the global indices this balancer may pick from.
func (b *Balancer) Members() []int { return b.members }

// memberView adapts the balancer's state to balance.View for one pick.
type memberView struct {
	b       *Balancer
	now     clock.Instant
	exclude int
}

func (v *memberView) Len() int { return len(v.b.members) }

func (v *memberView) Ok(j int) bool {
	i := v.b.members[j]
	if i == v.exclude || !v.b.healthy[i] {
		return false
	}
	if br := v.b.breakers[i]; br != nil {
		return br.Ready(v.now)
	}
	return true
}

func (v *memberView) Load(j int) *load.Stat { return &v.b.loads.Stats[v.b.members[j]] }

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
