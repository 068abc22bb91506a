package dash

import (
	"math"
	"strconv"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
)

// Snapshot is GET /api/snapshot and every event of GET /api/stream: the lab
// as the controller saw it at its last 250 ms reading, with the figures the
// dashboard draws. docs/dashboard.md says where each number comes from.
type Snapshot struct {
	Lab         string    `json:"lab"`
	Mode        string    `json:"mode"`   // up | run | attach
	Status      string    `json:"status"` // running | starting | stopped
	Error       string    `json:"error,omitempty"`
	Scenario    string    `json:"scenario,omitempty"`
	Setting     string    `json:"setting,omitempty"`
	Description string    `json:"description,omitempty"`
	Narration   string    `json:"narration,omitempty"`
	Captions    []Caption `json:"captions"` // the lab's timed captions; the page shows the last one passed
	Changes     []string  `json:"changes"`  // the controls' settings changed since the lab started (see changes)
	T           num       `json:"t_s"`      // seconds since this lab started
	AtUnixMs    int64     `json:"at_unix_ms"`
	Features    Features  `json:"features"`
	Algorithms  []string  `json:"algorithms"`
	// Controls are the settings the page's controls edit, in force now;
	// Settings the same values as an object by their keys.
	Controls Controls `json:"controls"`
	Settings Settings `json:"settings"`
	// Drills are the drills the page offers, as labfile.Drills declares
	// them (PageDrills): every snapshot carries them, however built.
	Drills    DrillTable     `json:"drills"`
	Clients   ClientsView    `json:"clients"`
	Balancers []BalancerView `json:"balancers"`
	Servers   []ServerView   `json:"servers"`
	Zones     []ZoneView     `json:"zones,omitempty"` // the lab's zones, when it declares some
	Window    Window         `json:"window"`
	Series    Series         `json:"series"`
	// Figures are the figures the page shows, as report.Figures declares
	// them (PageFigures): every snapshot carries them, however built.
	Figures FigureTable `json:"figures"`
	// LatencySource is "histogram" when the loadgen's /metrics latency
	// histogram gives per-bin percentiles, else "little" (see Series).
	LatencySource string           `json:"latency_source"`
	Log           []report.LogLine `json:"log"`       // the last logKeep lines
	LogTotal      int              `json:"log_total"` // lines so far
}

// Caption is one of the lab's timed captions (labfile captions): what to
// look at from t_s on.
type Caption struct {
	T    num    `json:"t_s"`
	Text string `json:"text"`
}

// captionsOf are lab's captions as the snapshot carries them.
func captionsOf(lab *labfile.Lab) []Caption {
	out := []Caption{}
	for _, c := range lab.Captions {
		out = append(out, Caption{T: num(c.At.Seconds()), Text: c.Text})
	}
	return out
}

// Features says which controls work in this mode, and why not.
type Features struct {
	AddServer bool   `json:"add_server"`
	Scenarios bool   `json:"scenarios"`
	Reason    string `json:"reason,omitempty"`
}

// ClientsView is the loadgen.
type ClientsView struct {
	Mode    string `json:"mode"`    // open | closed
	Rate    num    `json:"rate"`    // target arrivals per second
	Offered num    `json:"offered"` // achieved arrivals per second, last 2 s
	Users   int    `json:"users,omitempty"`
	Pending int    `json:"pending"` // requests started and not finished
	Late    uint64 `json:"late"`
	Error   string `json:"error,omitempty"`
}

// BalancerView is one lb.
type BalancerView struct {
	Name      string          `json:"name"`
	Algorithm string          `json:"algorithm"`
	Picks     uint64          `json:"picks"`
	Rate      num             `json:"rate"` // picks per second, last 1 s
	Settings  *state.Settings `json:"settings,omitempty"`
	Error     string          `json:"error,omitempty"`
	Exited    string          `json:"exited,omitempty"` // its process ended unasked: how ("signal: killed")
	// Proxy is set when the balancer is an external proxy (balancers.kind
	// haproxy, nginx, caddy or command): its own figures, as far as its
	// stats interface gives them. Its per-server figures are also in each
	// server's balancers view (outstanding, breaker, picks).
	Proxy *Proxy `json:"proxy,omitempty"`
	// Idle is its idle queue when its algorithm keeps one (jiq): the
	// announcements it took, its picks from the queue, the queue now.
	Idle *state.LBIdle `json:"idle,omitempty"`
	Zone string        `json:"zone,omitempty"` // its zone (a lab with zones)
}

// Proxy is an external proxy's own figures at one reading.
type Proxy struct {
	Kind      string `json:"kind"`      // haproxy | nginx | caddy | command
	Name      string `json:"name"`      // HAProxy, nginx, Caddy, or the program of kind: command
	Directive string `json:"directive"` // the algorithm in its configuration ("balance leastconn")
	Source    string `json:"source"`    // where the figures come from ("" = nowhere: kind: command)
	// Note says what the proxy's stats interface does not give (nginx's
	// stub_status: no per-server figures).
	Note string `json:"note,omitempty"`
	// Active and Requests are nginx's stub_status: active client
	// connections and requests handled (null for the others).
	Active   *int          `json:"active_connections"`
	Requests *uint64       `json:"requests"`
	Servers  []ProxyServer `json:"servers"` // per server, where the proxy counts them ([] for nginx)
}

// ProxyServer is one server as the proxy's stats interface counts it.
type ProxyServer struct {
	Name   string  `json:"name"`   // the lab's server name
	Status string  `json:"status"` // HAProxy's UP, DOWN, MAINT, "DOWN 1/2", ...; Caddy's up or down ("" where the proxy does not say)
	Now    int     `json:"now"`    // its requests in flight (HAProxy: current sessions; Caddy: requests)
	Sent   *uint64 `json:"sent"`   // the requests it sent there so far (HAProxy's stot; null for Caddy)
	Fails  int     `json:"fails"`  // Caddy's recent failures counted by its passive health checks
}

// ServerView is one backend, with what the balancers think of it.
type ServerView struct {
	Name    string            `json:"name"`
	Error   string            `json:"error,omitempty"`  // its state could not be read
	Exited  string            `json:"exited,omitempty"` // its process ended unasked: how ("signal: killed")
	Backend *state.Backend    `json:"backend"`          // its GET /admin/state
	Views   []state.LBBackend `json:"balancers"`        // each balancer's view of it, in lb order
	Rate    num               `json:"rate"`             // requests/s sent to it, last 1 s
	Share   num               `json:"share"`            // its share of the requests sent, last 2 s
	// CacheHitRatio is over the last 2 s (null: no lookups in that time).
	CacheHitRatio num     `json:"cache_hit_ratio"`
	EWMAMs        num     `json:"ewma_ms"`     // the first balancer's latency estimate
	Outstanding   int     `json:"outstanding"` // summed over the balancers
	Breaker       string  `json:"breaker"`     // the worst state over the balancers
	Badges        []Badge `json:"badges"`
	Zone          string  `json:"zone,omitempty"` // its zone (a lab with zones)
}

// Badge is a mark on a server card: exited, down, slowed, gc, failing,
// open, half-open, unhealthy or removed.
type Badge struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Window holds the counters over the last 2 s.
type Window struct {
	Seconds            num    `json:"seconds"`
	Offered            uint64 `json:"offered"`
	OfferedPerS        num    `json:"offered_per_s"`
	Goodput            num    `json:"goodput"` // report.Goodput over the last 2 s (null: nothing started or ended)
	AttemptsPerRequest num    `json:"attempts_per_request"`
	P50Ms              num    `json:"p50_ms"`
	P99Ms              num    `json:"p99_ms"`
	LatencyNote        string `json:"latency_note"`
	// Beyond names the latency fields (p50_ms, p99_ms) whose quantile lies
	// beyond the latency histogram's largest bucket: their value is that
	// bound (the loadgen's is 30 s), a lower bound, not a measurement.
	Beyond   []string `json:"beyond,omitempty"`
	Timeouts uint64   `json:"timeouts"`
	Errors   uint64   `json:"errors"`
	Rejected uint64   `json:"rejected"`
	Retries  uint64   `json:"retries"`
	Hedges   uint64   `json:"hedges"`
	Wasted   uint64   `json:"wasted"`
	Failed   uint64   `json:"failed"`
	// CrossZone is the share of the attempts that crossed a zone (a lab
	// with zones only: absent otherwise, and its tile with it).
	CrossZone *num `json:"cross_zone_share,omitempty"`
}

// Series are the last 20 s, one point per 250 ms reading, as columns. Rates
// are per second; latencies in ms (null when unknown). With
// latency_source "histogram", P50/P95/P99 are per-bin percentiles; with
// "little", P50 and P99 are the loadgen's figures since it started, P95 is
// null, and Mean is Little's law (pending / completions per second).
type Series struct {
	T        []num    `json:"t"`
	P50      []num    `json:"p50"`
	P95      []num    `json:"p95"`
	P99      []num    `json:"p99"`
	Mean     []num    `json:"mean"`
	Offered  []num    `json:"offered"`
	Target   []num    `json:"target"` // the rate the loadgen aims at (a profile's rate(t)); null in closed loop
	Attempts []num    `json:"attempts"`
	Success  []num    `json:"goodput"` // successful requests per second: the rate the chart calls goodput, not report.Goodput's share
	Timeouts []num    `json:"timeouts"`
	Rejected []num    `json:"rejected"`
	Retries  []num    `json:"retries"`
	Failed   []num    `json:"failed"`
	Servers  []string `json:"servers"`
	InServer [][]num  `json:"in_server"` // queued + busy, per server (Servers order)
	Limit    [][]num  `json:"limit"`     // concurrency limit per server (0 = none)
}

// num is a float in JSON, rounded to 3 decimals; NaN is null (unknown).
type num float64

var null = num(math.NaN())

func (n num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, math.Round(f*1000)/1000, 'f', -1, 64), nil
}

// ratio is a/b, or null when b is 0.
func ratio(a, b float64) num {
	if b == 0 {
		return null
	}
	return num(a / b)
}
