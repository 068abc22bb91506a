// Package labfile is the lab-file schema: the topology, the knobs of every
// part and a timed script of events. One lab file drives both the simulator
// and the live lab.
//
// It is the lab model, which the simulator and the runtime link: reading a
// lab file as YAML is internal/labfile/labyaml's (the one package that links
// the YAML parser), whose Parse decodes strictly (unknown fields and wrong
// types are errors) into these types and hands the lab to Complete, which
// fills defaults only where the file leaves a field out and validates every
// range; each problem is an *Error naming file:line:col, the dotted yaml
// path of the field and the allowed values. Apply and WithSetting change
// knobs by dotted path (the compare settings and `set` events use the same
// paths). docs/labfile.md is the user's reference.
//
// The comments below give each field's meaning and, for the reader, its
// default; the default that is filled (when the field is absent) and the
// range that is checked are the field's line in the settings table
// (labKnobs, knobs.go), which docs/labfile.md is checked against.
package labfile

import (
	"time"

	"github.com/lblab/lblab/internal/core/balance"
)

// Lab is one lab file, after defaults are applied. Top-level keys starting
// with "x-" are ignored by labyaml.Parse (a place for YAML anchors to
// reuse).
type Lab struct {
	Name        string        `yaml:"name"`
	Description string        `yaml:"description"` // one line, shown by `lab scenarios`
	Narration   string        `yaml:"narration"`   // what to watch, shown when the scenario runs
	Captions    []Caption     `yaml:"captions"`    // timed captions: what to look at when (captions.go)
	Seed        uint64        `yaml:"seed"`        // default 1
	Duration    time.Duration `yaml:"duration"`    // default 20s
	// Zones are where servers, balancers and clients are (zones.go); none:
	// one zone, every hop network.hop.
	Zones     []Zone        `yaml:"zones,omitempty"`
	Network   Network       `yaml:"network"`
	Clients   Clients       `yaml:"clients"`
	Balancers Balancers     `yaml:"balancers"`
	Servers   []ServerGroup `yaml:"servers"` // default: one group of 5 servers
	Compare   []Setting     `yaml:"compare"` // settings a compare runs the same stream through
	Events    []Event       `yaml:"events"`  // the timed script, in time order
	Report    ReportSpec    `yaml:"report"`  // how the report presents the result (report.go)
}

// Network is the per-hop one-way delay (client -> balancer -> server and
// back) and the cost of opening connections (see Connections).
type Network struct {
	Hop    time.Duration `yaml:"hop"`    // default 5ms
	Jitter time.Duration `yaml:"jitter"` // uniform extra in [0, jitter], default 0

	// The hops between zones (zones.go): between two zones of one region,
	// and between two regions (hop and jitter each, as above); filled only
	// in a lab that declares zones (10ms and 40ms).
	CrossZone   Link `yaml:"cross_zone,omitempty"`
	CrossRegion Link `yaml:"cross_region,omitempty"`
	// Partition cuts every link between zones: an attempt whose next hop
	// would cross one fails there at once (zones.go; the partition and
	// heal drills set it). Default false.
	Partition bool `yaml:"partition,omitempty"`

	Handshake Handshake     `yaml:"handshake"` // what opening a connection costs: round trips of its hop (2) or a duration (30ms); default 0 (free)
	Keepalive time.Duration `yaml:"keepalive"` // an idle connection is closed after this long; default 10s; 0 = a new connection per request
	MaxConns  int           `yaml:"max_conns"` // connections per pair (client -> balancer, client -> server, balancer -> server); 0 = no limit
	TLS       bool          `yaml:"tls"`       // live: the lb and the backends serve TLS with a certificate lab makes at start
}

// Connections reports whether connections are modelled: a handshake cost,
// a connection limit or TLS is set. Otherwise every attempt rides a warm
// connection for free, as before connections were modelled.
func (n Network) Connections() bool { return !n.Handshake.Zero() || n.MaxConns > 0 || n.TLS }

// Dist describes a work (service-time) distribution at speed 1.
type Dist struct {
	Kind string        `yaml:"dist"` // constant | exponential | lognormal | mixture; default exponential (mixture when Mix is given)
	Mean time.Duration `yaml:"mean"` // constant, exponential, lognormal; default 10ms
	CV   float64       `yaml:"cv"`   // lognormal coefficient of variation; default 1
	Mix  []MixPart     `yaml:"mix"`  // mixture parts; probabilities are normalised to sum to 1
}

// MixPart is one value of a mixture distribution with its probability.
type MixPart struct {
	P     float64       `yaml:"p"`
	Value time.Duration `yaml:"value"`
}

// Clients is the request source: arrivals, keys, and the client-side policy.
type Clients struct {
	Mode     LoopMode      `yaml:"mode"`     // open (Poisson) | closed; default open
	Rate     float64       `yaml:"rate"`     // open: requests/s, default 100
	Users    int           `yaml:"users"`    // closed: concurrent users, default 10
	Think    time.Duration `yaml:"think"`    // closed: mean exponential think time, default 100ms
	Count    int           `yaml:"count"`    // client ids, default 20
	WorkAt   WorkAt        `yaml:"work_at"`  // client (requests carry their work) | server (each server draws per attempt); default client
	Activity Activity      `yaml:"activity"` // even | zipf; default even
	Keys     int           `yaml:"keys"`     // key space, default 1000
	Zipf     float64       `yaml:"zipf"`     // Zipf exponent s over keys (0 = uniform); default 1.1
	Work     Dist          `yaml:"work"`
	// Profile makes the load change with time: the open-loop rate, or in
	// closed loop the number of users (profile.go). nil = a constant rate
	// (users).
	Profile *Profile `yaml:"profile"`
	// Faults mark shares of the requests with a fault that each of their
	// attempts asks the server for (profile.go).
	Faults []FaultShare `yaml:"faults"`

	Timeout        time.Duration `yaml:"timeout"`         // whole request deadline; 0 = none
	AttemptTimeout time.Duration `yaml:"attempt_timeout"` // client per-attempt timeout; 0 = none
	Retries        int           `yaml:"retries"`         // retries after an error or timeout; default 0
	Backoff        Backoff       `yaml:"backoff"`
	Budget         float64       `yaml:"budget"` // retry budget ratio (0.1 = 10%); 0 = no budget
	Hedge          string        `yaml:"hedge"`  // "" (off) | a duration like 50ms | p95 (or pNN)

	// Client-side balancing: when Algorithm is set, clients pick servers themselves
	// and no balancer sits in between.
	Algorithm string `yaml:"algorithm"`
	Subset    int    `yaml:"subset"`   // each client uses a fixed random subset of this many servers; 0 = all
	Aperture  int    `yaml:"aperture"` // p2c family: each client draws from a window of about this many servers of a ring shared by all clients; 0 = off
	// ApertureLoad sizes the aperture to keep about this many outstanding
	// requests per server of the window (aperture is then the smallest); 0 = fixed
	ApertureLoad float64       `yaml:"aperture_load"`
	Refresh      time.Duration `yaml:"refresh"`     // client-side: how often shared load reports arrive; 0 = from responses only
	Sticky       int           `yaml:"sticky"`      // client-side: a client (closed loop: a user) sends this many requests in a row to the server it picked; 0 = a pick per attempt
	StickyAge    time.Duration `yaml:"sticky_age"`  // with sticky: a run also ends once it is this old, within 10% (a maximum connection age); 0 = by count only
	RetryOther   bool          `yaml:"retry_other"` // client-side: a retry avoids the server its request was last sent to, if another is eligible; default false

	// Zones places the client ids: client c is in Zones[c mod len(Zones)]
	// (zones.go); default: the first zone the lab declares.
	Zones []string `yaml:"zones,omitempty"`
}

// Backoff is the wait before retry i: base x 2^(i-1), capped at 10 s.
type Backoff struct {
	Base   time.Duration `yaml:"base"`   // default 10ms
	Jitter BackoffJitter `yaml:"jitter"` // full | none; default full
}

// Balancers configures the balancer tier (the lb processes).
type Balancers struct {
	// Kind is what runs the tier live: "" or lb (lblab's own), or an
	// external proxy, haproxy | nginx | caddy, whose configuration lab run
	// and lab up write from this lab (internal/proxies, docs/external.md).
	Kind string `yaml:"kind"`
	// Command is kind: command's own proxy: a configuration template and
	// the command line that runs it (internal/proxies).
	Command   ExternalCommand `yaml:"command"`
	Count     int             `yaml:"count"`     // default 1
	Algorithm string          `yaml:"algorithm"` // default p2c; see `lab algorithms`
	Load      LoadMode        `yaml:"load"`      // local | shared; default local
	Refresh   time.Duration   `yaml:"refresh"`   // shared load refresh period; default 500ms
	Timeout   time.Duration   `yaml:"timeout"`   // per-attempt timeout -> 504; 0 = none
	Subset    int             `yaml:"subset"`    // servers per balancer; 0 = all
	Aperture  int             `yaml:"aperture"`  // p2c family: each balancer draws from a window of about this many servers of a ring shared by all balancers; 0 = off
	// ApertureLoad sizes the aperture to keep about this many outstanding
	// requests per server of the window (aperture is then the smallest); 0 = fixed
	ApertureLoad float64 `yaml:"aperture_load"`
	Choices      int     `yaml:"choices"` // random choices for p2c-family; default 2
	// Replacement draws the p2c family's choices with replacement (they may
	// be the same server, as Envoy's least-request did); default false
	Replacement bool `yaml:"replacement"`
	// FailurePenalty: a failed answer enters the latency averages as at
	// least this long, so a server failing fast does not look fast; 0 = as it came
	FailurePenalty time.Duration `yaml:"failure_penalty"`
	// DefaultRTT is the latency p2c-latency-load and p2c-peak-ewma assume
	// for a server no answer has come back from; 0 = free while idle
	DefaultRTT time.Duration `yaml:"default_rtt"`
	HashOn     HashOn        `yaml:"hash_on"` // key | client; default key
	VNodes     int           `yaml:"vnodes"`  // ring-hash virtual nodes per server; default 100
	Epsilon    float64       `yaml:"epsilon"` // ring-hash-bounded; default 0.25
	Decay      time.Duration `yaml:"decay"`   // EWMA decay time; default 1s
	Breaker    Breaker       `yaml:"breaker"`
	Outlier    Outlier       `yaml:"outlier"`
	SlowStart  SlowStart     `yaml:"slow_start"`
	Health     Health        `yaml:"health"`
	ORCA       ORCA          `yaml:"orca"`    // wrr-orca's settings
	Prequal    Prequal       `yaml:"prequal"` // prequal's settings
	JIQ        JIQ           `yaml:"jiq"`     // jiq's settings
	// Locality is the zone layer over the algorithm: which zones a pick
	// may take (needs zones; the clients' own balancers use it too)
	Locality Locality `yaml:"locality"`

	// Zones places the balancers: balancer b is in Zones[b mod len(Zones)]
	// (zones.go); default: the first zone the lab declares.
	Zones []string `yaml:"zones,omitempty"`
}

// Locality is the zone layer over the balancers' (or the clients')
// algorithm: it chooses the zones a pick may take, the algorithm picks in
// them (docs/model.md#locality).
type Locality struct {
	Policy           balance.Locality `yaml:"policy"`           // none | local | zone-aware | failover | rings; default none
	MinClusterSize   int              `yaml:"min_cluster_size"` // zone-aware: off below this many servers; default 6
	Overprovisioning float64          `yaml:"overprovisioning"` // failover: a level takes its healthy share times this; default 1.4
	Threshold        float64          `yaml:"threshold"`        // rings: a ring spills at this many requests in flight per server; default 4
}

// JIQ is jiq's configuration (join-the-idle-queue, Lu et al. 2011): which
// balancer's idle queue a server that falls idle joins.
type JIQ struct {
	Join    balance.JoinRule `yaml:"join"`    // random | shortest (the shortest of choices sampled queues); default random
	Choices int              `yaml:"choices"` // d, the queues shortest samples; default 2
}

// Prequal is prequal's configuration (Google's Prequal, NSDI 2024), with the
// paper's testbed defaults.
type Prequal struct {
	ProbeRate  float64       `yaml:"probe_rate"`  // probes per pick on average, a fractional part by a draw; default 3
	PoolSize   int           `yaml:"pool_size"`   // most probe answers kept; default 16
	MaxAge     time.Duration `yaml:"max_age"`     // an answer this old leaves the pool; default 1s
	QRIF       float64       `yaml:"q_rif"`       // hot above this quantile of the pool's requests in flight; default 0.84
	ReuseDelta float64       `yaml:"reuse_delta"` // δ of the reuse budget; default 1
}

// ORCA is wrr-orca's configuration, gRPC's weighted_round_robin (gRFC A58),
// by A58's names; the periodic reports of enable_oob_load_report come every
// balancers.refresh.
type ORCA struct {
	Blackout     time.Duration `yaml:"blackout_period"`           // a weight counts this long after the first report; default 10s
	Expiration   time.Duration `yaml:"weight_expiration_period"`  // a weight with no report for this long expires; default 3m
	Update       time.Duration `yaml:"weight_update_period"`      // the scheduler is rebuilt this often; default 1s, at least 100ms
	ErrorPenalty float64       `yaml:"error_utilization_penalty"` // weight = rps / (utilization + eps/rps x this); default 1
	OutOfBand    bool          `yaml:"enable_oob_load_report"`    // weights from the periodic reports, not the answers'; default false
}

// ExternalCommand is a proxy of the user's own (balancers.kind: command):
// Config and Run are Go text/templates given the lab's servers and the
// proxy's addresses (docs/external.md); Run is split at spaces.
type ExternalCommand struct {
	Config string `yaml:"config"` // the proxy's configuration, a template
	File   string `yaml:"file"`   // the name it is written as in the proxy's directory; default proxy.conf
	Run    string `yaml:"run"`    // the command line, a template: haproxy -db -f {{.Config}}
}

// Breaker is the per-server circuit breaker at each balancer.
type Breaker struct {
	Enabled   bool          `yaml:"enabled"`
	Window    int           `yaml:"window"`    // last N results, >= 10; default 20
	Threshold float64       `yaml:"threshold"` // failure share that opens it; default 0.5
	Open      time.Duration `yaml:"open"`      // how long it stays open; default 1s
	Probes    int           `yaml:"probes"`    // half-open probes; default 3
}

// Outlier is outlier ejection at each balancer (package outlier): a server
// whose answers set it apart is taken out of rotation for a while.
type Outlier struct {
	Enabled             bool          `yaml:"enabled"`
	ConsecutiveFailures int           `yaml:"consecutive_failures"` // failures in a row that eject; default 5; 0 = off
	Interval            time.Duration `yaml:"interval"`             // statistics period; default 1s
	BaseEjection        time.Duration `yaml:"base_ejection"`        // first ejection, the k-th lasts k times it; default 5s
	MaxEjection         time.Duration `yaml:"max_ejection"`         // longest ejection; default 60s
	MaxEjectionShare    float64       `yaml:"max_ejection_share"`   // share of the servers that may be out at once; default 0.2
	SuccessRateK        float64       `yaml:"success_rate_k"`       // eject below mean - k x stddev of success rates; default 1.9; 0 = off
	LatencyK            float64       `yaml:"latency_k"`            // eject above mean + k x stddev of latencies; default 1.9; 0 = off
	MinRequests         int           `yaml:"min_requests"`         // answers in an interval to be judged; default 10
}

// SlowStart ramps up the weight of a server that joins or comes back
// (package slowstart).
type SlowStart struct {
	Enabled    bool          `yaml:"enabled"`
	Window     time.Duration `yaml:"window"`     // ramp length; default 10s
	Floor      float64       `yaml:"floor"`      // least weight factor; default 0.1
	Aggression float64       `yaml:"aggression"` // curve exponent, 1 = linear; default 1
}

// Health is the optional active health check.
type Health struct {
	Enabled  bool          `yaml:"enabled"`
	Interval time.Duration `yaml:"interval"` // default 1s
	Fails    int           `yaml:"fails"`    // default 2
	Passes   int           `yaml:"passes"`   // default 2
}

// ServerGroup is Count identical servers. Servers are named s1, s2, ... by
// their position in the whole fleet, in file order, unless a group of one has
// a Name (see Lab.ExpandServers). A Name may not look like a generated one.
type ServerGroup struct {
	Count int    `yaml:"count"` // default 1
	Name  string `yaml:"name"`  // only for a group of one
	// Zone is the group's zone, one the lab declares; default the first.
	Zone   string `yaml:"zone,omitempty"`
	Server `yaml:",inline"`
}

// Server holds every knob of one emulated server.
type Server struct {
	Workers        int           `yaml:"workers"` // default 1
	Queue          Queue         `yaml:"queue"`
	DropExpired    bool          `yaml:"drop_expired"`
	MaxOutstanding int           `yaml:"max_outstanding"` // queued + in service; 0 = no limit
	QueueTimeout   time.Duration `yaml:"queue_timeout"`   // 0 = none
	Speed          float64       `yaml:"speed"`           // default 1
	Work           *Dist         `yaml:"work"`            // for requests that carry none; nil = the clients' work (see Lab.ServerWork)
	GC             GC            `yaml:"gc"`
	Errors         float64       `yaml:"errors"`     // share of fast 500s
	Fail           bool          `yaml:"fail"`       // every request a fast 500
	ErrorTime      time.Duration `yaml:"error_time"` // how fast an error answers; default 1ms
	Cache          Cache         `yaml:"cache"`
	Limiter        Limiter       `yaml:"limiter"`
}

// Queue is the server's waiting line.
type Queue struct {
	Capacity   int        `yaml:"capacity"`   // 0 = unbounded
	Discipline Discipline `yaml:"discipline"` // fifo | lifo; default fifo
}

// GC is a periodic stop-the-world pause; zero Every means none.
type GC struct {
	Every time.Duration `yaml:"every"`
	Pause time.Duration `yaml:"pause"`
}

// Cache is an LRU of request keys; a hit costs HitFactor of the work.
type Cache struct {
	Size      int     `yaml:"size"`       // 0 = no cache
	HitFactor float64 `yaml:"hit_factor"` // default 0.2
}

// Limiter is an adaptive concurrency limit on queued + in service.
type Limiter struct {
	Kind    string `yaml:"kind"`    // "" (none) | aimd | gradient2
	Initial int    `yaml:"initial"` // default 20
	Min     int    `yaml:"min"`     // default 1
	Max     int    `yaml:"max"`     // default 200
}

// Setting is one arm of a compare: a name plus settings applied on top of
// the lab (dotted paths as in Event.Set), or just an algorithm.
type Setting struct {
	Name      string            `yaml:"name"`
	Algorithm string            `yaml:"algorithm"` // shorthand for balancers.algorithm (or clients.algorithm when client-side)
	Set       map[string]string `yaml:"set"`
}

// Event is one timed step of the script.
type Event struct {
	At     time.Duration `yaml:"at"`
	Action Action        `yaml:"action"` // see Actions
	Target string        `yaml:"target"` // a server name, or "all"; add-server: the new name, default s<N+k> for the k-th added of N in the file
	// The example tags are the values a one-click control sends
	// (Drill.Example: the dashboard's buttons).
	Speed     float64           `yaml:"speed" example:"0.25"`    // slow; add-server: the new server's (0: the last server's)
	Workers   int               `yaml:"workers" example:"4"`     // add-server: the new server's (0: the last server's)
	Pause     time.Duration     `yaml:"pause" example:"300ms"`   // gc
	Share     float64           `yaml:"share" example:"0.1"`     // errors
	Rate      float64           `yaml:"rate" example:"800"`      // rate
	Algorithm string            `yaml:"algorithm" example:"p2c"` // algorithm
	Set       map[string]string `yaml:"set"`                     // set: dotted path -> value, e.g. clients.budget: "0.1"
	Hop       time.Duration     `yaml:"hop" example:"40ms"`      // link-delay: the hop between two zones of a region from now on
	// For time-boxes the event: its undo (Undo) applies at At + For. 0 = it
	// stays in force.
	For time.Duration `yaml:"for"`
}
