// Package balance holds the balancer selection rules: each algorithm is a
// small I/O-free type that is handed the time and a View of the members, and
// answers which member a request goes to. Load figures come from package load;
// randomness only from rng.Hash(seed, request, salt), so a pick depends on
// (Seed, Salt, req.Seq) and the view alone and one balancer's draws never
// shift another's.
//
// None of the algorithms is safe for concurrent use; the driver serializes
// calls to Update and Pick.
package balance

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/load"
)

// Server is one member as the balancer is told about it.
type Server struct {
	Name   string
	Weight float64 // relative capacity; <= 0 (or not finite) means 1
}

// Request is what a picker needs to know about one pick.
type Request struct {
	Seq uint64 // uniquely numbers the pick (the driver passes the attempt number)
	Key uint64 // affinity hash (request key or client id)
}

// View is what a picker sees: the current members, whether each is eligible
// now, its load, and the share of its weight it gets now.
type View interface {
	Len() int
	Ok(j int) bool // eligible now (up, healthy, breaker not open, not ejected)
	Load(j int) *load.Stat
	// Ramp is the factor in (0, 1] member j's weight is multiplied by now:
	// below 1 while it warms up after joining or coming back (slow start,
	// package slowstart), else 1. Weighted algorithms multiply their weight
	// by it, load-aware ones divide their cost by it (see costOf); the
	// others ignore it.
	Ramp(j int) float64
}

// Algorithm is one selection rule.
type Algorithm interface {
	Name() string
	// Update says the member list changed; afterwards View.Len() ==
	// len(servers) and index j means servers[j].
	Update(servers []Server)
	// Pick returns j in [0, v.Len()) with v.Ok(j), or -1 if none is Ok.
	Pick(now clock.Instant, req Request, v View) int
}

// Hasher is implemented by key-affinity algorithms (ring-hash,
// ring-hash-bounded, maglev).
type Hasher interface {
	// Owner returns the index of the key's owner among the current servers,
	// ignoring load and eligibility (-1 when there are no servers).
	Owner(key uint64) int
}

// Config chooses and tunes an algorithm. Zero values take the defaults.
type Config struct {
	Name       string // one of Names
	Seed, Salt uint64 // draws are rng.Hash(Seed, req.Seq, Salt ^ per-draw constant)
	Choices    int    // p2c family: random choices, default 2 (1 = random, 3 allowed)
	// DefaultRTT, when > 0, is the latency p2c-latency-load and
	// p2c-peak-ewma assume for a member with no answer yet (defaultrtt.go);
	// 0: Finagle's rule (free while idle, a huge penalty while busy). The
	// other algorithms ignore it.
	DefaultRTT    time.Duration
	Replacement   bool    // p2c family (the others ignore it): draw the choices independently, so they may repeat (replacement.go); an Aperture's window draws distinct choices whatever it says
	VNodes        int     // ring-hash/ring-hash-bounded virtual nodes per server, default 100
	Epsilon       float64 // ring-hash-bounded, default 0.25, must be > 0
	MaglevSize    int     // maglev table size, default 65537 (must be prime)
	RotatingStart bool    // least-outstanding: break ties with a rotating start instead of at random
	// Aperture, when > 0, makes the p2c family draw its choices from a
	// window of about this many servers on a ring shared by Peers balancers,
	// this one being number Peer (see aperture.go).
	Aperture    int
	Peer, Peers int
	// ApertureLoad, when > 0, sizes the window to keep about this many
	// outstanding requests per server in it (aperture.go); Aperture is then
	// the smallest size.
	ApertureLoad float64
	// ORCA configures wrr-orca (wrrorca.go); the zero value takes A58's
	// defaults (DefaultORCA).
	ORCA ORCA
	// Prequal configures prequal (prequal.go); the zero value takes the
	// paper's defaults (DefaultPrequal).
	Prequal Prequal
	// JIQ configures jiq (jiq.go): which balancer's idle queue a server
	// joins; the zero value takes the defaults (DefaultJIQ).
	JIQ JIQ
}

// DefaultORCA is wrr-orca's configuration with gRFC A58's defaults.
func DefaultORCA() ORCA {
	return ORCA{Blackout: DefaultORCABlackout, Expiration: DefaultORCAExpiration, Update: DefaultORCAUpdate, ErrorPenalty: DefaultORCAErrorPenalty}
}

// Defaults and limits of Config's fields.
const (
	DefaultChoices    = 2
	MaxChoices        = 3
	DefaultVNodes     = 100
	MaxVNodes         = 10000
	DefaultEpsilon    = 0.25
	DefaultMaglevSize = 65537
	MaxMaglevSize     = 1 << 24
	MaxAperture       = 10000
	MaxApertureLoad   = 1e6
)

// Names lists the algorithms New knows, in the order `lab algorithms` shows them.
var Names = []string{"round-robin", "weighted-round-robin", "random", "least-outstanding",
	"least-latency", "least-response-time", "p2c", "p2c-latency-load", "p2c-peak-ewma", "ring-hash",
	"ring-hash-bounded", "maglev", "p2c-stale", "wrr-orca", "prequal", "jiq"}

type entry struct {
	build func(c Config) Algorithm
	about string
	caps  Caps
}

// Caps is what an algorithm needs and does, declared with it here so that
// what reads it (the lab file's checks, the aperture, the cost estimate,
// the torture generator, the simulator's and the servers' measuring, lab
// algorithms) keeps no list of its own.
type Caps struct {
	// Draws: it draws random choices among the members (Config.Choices and
	// Replacement apply to it).
	Draws bool
	// Aperture: it can draw its choices from an aperture window
	// (Config.Aperture, aperture.go).
	Aperture bool
	// Keyed: it picks by the request's key (a Hasher); its setup builds a
	// table (Table).
	Keyed bool
	// Weighted: it reads the servers' weights (Server.Weight).
	Weighted bool
	// Scans: each pick looks at every member, O(members) a pick.
	Scans bool
	// Reports: it reads the servers' load reports beyond their queue
	// (utilization and rates, load.Report): the servers measure them.
	Reports bool
	// Latency: it reads the members' latency averages (load.Stat's
	// Latency and Peak); a driver whose algorithms none of them do may
	// leave them unkept (load.Table.Unkept).
	Latency bool
	// Probes: it probes servers off the request path (a Prober): the
	// driver sends the probes, and the servers keep what their answers
	// estimate from (server.Config.Probed).
	Probes bool
	// Idle: it keeps a queue of the servers that announce themselves idle
	// (an Idler): the servers announce when a reply leaves them with
	// nothing in flight, and the driver carries each announcement to a
	// balancer (balance.JIQ chooses which).
	Idle bool
}

// TierOnly says the algorithm runs only in a balancer tier: it needs
// messages between the servers and a balancer off the request path
// (probes, idle announcements), which clients that balance themselves do
// not send. The lab file refuses it as clients.algorithm, and lab watch's
// compare of every algorithm leaves it out of a client-side lab.
func (c Caps) TierOnly() bool { return c.Probes || c.Idle }

// Table is the size of the table a keyed algorithm builds per balancer for
// n members (ring points, lookup slots; 0 for the others): its setup's
// memory and, times its log, its time. Fields of c left at zero take their
// defaults.
func Table(name string, c Config, n int) int {
	if !CapsOf(name).Keyed {
		return 0
	}
	c.Name = name
	if d, err := c.withDefaults(); err == nil {
		c = d
	}
	if name == "maglev" {
		return c.MaglevSize
	}
	return n * c.VNodes
}

var registry = map[string]entry{
	"round-robin":          {newRoundRobin, "servers in turn, skipping ineligible ones", Caps{}},
	"weighted-round-robin": {newWeightedRoundRobin, "nginx smooth weighted round robin on server weights", Caps{Weighted: true, Scans: true}},
	"random":               {newRandom, "uniform among eligible servers", Caps{Draws: true}},
	"least-outstanding":    {newLeastOutstanding, "fewest outstanding requests; ties at random or by rotating start", Caps{Scans: true}},
	"least-latency":        {newLeastLatency, "lowest time-decayed EWMA latency; unsampled servers count as 0 (herds)", Caps{Scans: true, Latency: true}},
	"least-response-time":  {newLeastResponseTime, "every eligible server scanned: lowest EWMA latency x (outstanding + 1), ties at random", Caps{Scans: true, Latency: true}},
	"p2c":                  {newP2C, "power of two choices: two different random servers, fewer outstanding wins", Caps{Draws: true, Aperture: true}},
	"p2c-latency-load":     {newP2CLatencyLoad, "two random choices, lower EWMA latency x (outstanding + 1) wins", Caps{Draws: true, Aperture: true, Latency: true}},
	"p2c-peak-ewma":        {newP2CPeakEWMA, "two random choices, lower Finagle peak EWMA x (outstanding + 1) wins", Caps{Draws: true, Aperture: true, Latency: true}},
	"ring-hash":            {newRingHash, "consistent hashing with virtual nodes (Karger et al. 1997) on the request key", Caps{Keyed: true}},
	"ring-hash-bounded":    {newRingHashBounded, "consistent hashing with bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018)", Caps{Keyed: true, Scans: true}},
	"maglev":               {newMaglev, "Google Maglev lookup table (NSDI 2016) on the request key", Caps{Keyed: true}},
	"p2c-stale":            {newP2CStale, "client-side p2c on stale queue counts: random with probability sqrt(staleness ms)%", Caps{Draws: true, Aperture: true}},
	"wrr-orca":             {newWRROrca, "weighted round robin on the servers' own reports, rps / (utilization + eps/rps x penalty) (gRPC A58)", Caps{Reports: true}},
	"prequal":              {newPrequal, "Google's Prequal (NSDI 2024): asynchronous probes of requests in flight and latency, hot-cold lexicographic pick", Caps{Probes: true}},
	"jiq":                  {newJIQ, "join-the-idle-queue (Lu et al. 2011): the head of the idle queue idle servers announce themselves to, else random", Caps{Idle: true}},
}

// CapsOf returns the named algorithm's capabilities (zero for an unknown
// name).
func CapsOf(name string) Caps { return registry[name].caps }

// With lists the algorithms whose capabilities have has, in Names order.
func With(has func(Caps) bool) []string {
	var out []string
	for _, n := range Names {
		if has(registry[n].caps) {
			out = append(out, n)
		}
	}
	return out
}

// New validates cfg and returns the algorithm it names. Every field is
// checked whatever the Name; errors name the field and its allowed range.
func New(cfg Config) (Algorithm, error) {
	e, ok := registry[cfg.Name]
	if !ok {
		return nil, fmt.Errorf("balance: unknown algorithm %q (Name must be one of %s)",
			cfg.Name, strings.Join(Names, ", "))
	}
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return e.build(c), nil
}

// Describe returns a one-line description of the named algorithm ("" if unknown).
func Describe(name string) string { return registry[name].about }

func (c Config) withDefaults() (Config, error) {
	if c.Choices == 0 {
		c.Choices = DefaultChoices
	}
	if c.Choices < 1 || c.Choices > MaxChoices {
		return c, fmt.Errorf("balance: Choices is %d, must be in [1, %d] (default %d)", c.Choices, MaxChoices, DefaultChoices)
	}
	if c.VNodes == 0 {
		c.VNodes = DefaultVNodes
	}
	if c.VNodes < 1 || c.VNodes > MaxVNodes {
		return c, fmt.Errorf("balance: VNodes is %d, must be in [1, %d] (default %d)", c.VNodes, MaxVNodes, DefaultVNodes)
	}
	if c.Epsilon == 0 {
		c.Epsilon = DefaultEpsilon
	}
	if !(c.Epsilon > 0) || math.IsInf(c.Epsilon, 0) {
		return c, fmt.Errorf("balance: Epsilon is %g, must be a finite number > 0 (default %g)", c.Epsilon, DefaultEpsilon)
	}
	if c.MaglevSize == 0 {
		c.MaglevSize = DefaultMaglevSize
	}
	if c.MaglevSize < 2 || c.MaglevSize > MaxMaglevSize || !isPrime(c.MaglevSize) {
		return c, fmt.Errorf("balance: MaglevSize is %d, must be a prime in [2, %d] (default %d)", c.MaglevSize, MaxMaglevSize, DefaultMaglevSize)
	}
	if c.Aperture < 0 || c.Aperture > MaxAperture {
		return c, fmt.Errorf("balance: Aperture is %d, must be in [0, %d] (0 = off)", c.Aperture, MaxAperture)
	}
	if c.Aperture > 0 && !SupportsAperture(c.Name) {
		return c, fmt.Errorf("balance: Aperture works with %s, not %s", strings.Join(ApertureAlgorithms, ", "), c.Name)
	}
	if !(c.ApertureLoad >= 0 && c.ApertureLoad <= MaxApertureLoad) {
		return c, fmt.Errorf("balance: ApertureLoad is %g, must be in [0, %g] (0 = a fixed window)", c.ApertureLoad, float64(MaxApertureLoad))
	}
	if c.ApertureLoad > 0 && c.Aperture == 0 {
		return c, fmt.Errorf("balance: ApertureLoad sizes an aperture: set Aperture (the smallest window) too")
	}
	if c.DefaultRTT < 0 {
		return c, fmt.Errorf("balance: DefaultRTT is %v, must be >= 0 (0 = Finagle's rule)", c.DefaultRTT)
	}
	if c.ORCA == (ORCA{}) {
		c.ORCA = DefaultORCA()
	}
	if o := c.ORCA; o.Blackout < 0 || o.Expiration <= 0 || o.Update < MinORCAUpdate || !(o.ErrorPenalty >= 0) || math.IsInf(o.ErrorPenalty, 0) {
		return c, fmt.Errorf("balance: ORCA is %+v: Blackout must be >= 0, Expiration > 0, Update >= %v and ErrorPenalty a finite number >= 0", o, MinORCAUpdate)
	}
	if c.Prequal == (Prequal{}) {
		c.Prequal = DefaultPrequal()
	}
	if p := c.Prequal; !p.ok() {
		return c, fmt.Errorf("balance: Prequal is %+v: ProbeRate must be in (0, %d], PoolSize in [1, %d], MaxAge > 0, QRIF in [0, 1] and ReuseDelta in [0, %d]",
			p, MaxProbeRate, MaxPoolSize, MaxReuseDelta)
	}
	if c.JIQ == (JIQ{}) {
		c.JIQ = DefaultJIQ()
	}
	if j := c.JIQ; !j.ok() {
		return c, fmt.Errorf("balance: JIQ is %+v: Join must be %s or %s and Choices in [1, %d]", j, JoinRandom, JoinShortest, MaxJIQChoices)
	}
	if c.Peers < 0 || c.Peer < 0 || c.Peer >= max(c.Peers, 1) {
		return c, fmt.Errorf("balance: Peer is %d of Peers %d, must be in [0, Peers)", c.Peer, c.Peers)
	}
	return c, nil
}

// isPrime tests n by trial division (n is at most MaxMaglevSize).
func isPrime(n int) bool {
	if n < 2 {
		return false
	}
	for d := 2; d*d <= n; d++ {
		if n%d == 0 {
			return false
		}
	}
	return true
}
