package report

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Connections is what opening connections cost a run, when its lab models
// connections (network.handshake, max_conns or tls; docs/model.md
// "Connections"). Every leg counts: a client's connections to its balancer
// or to the servers it picks, and the balancers' connections to the servers.
type Connections struct {
	Handshakes  uint64  `json:"handshakes"`   // connections opened, every leg
	ByClients   uint64  `json:"by_clients"`   // ... by the clients (to a balancer, or to the servers they pick)
	ByBalancers uint64  `json:"by_balancers"` // ... by the balancers, to the servers
	PerRequest  float64 `json:"per_request"`  // handshakes ÷ requests
	// HandshakeMs is the time the handshakes added to the attempts that
	// opened connections, summed; PerRequestMs divides it by the requests.
	HandshakeMs  float64 `json:"handshake_ms"`
	PerRequestMs float64 `json:"handshake_ms_per_request"`
	Waits        uint64  `json:"waits"`   // attempts that waited for a connection (at max_conns)
	WaitMs       float64 `json:"wait_ms"` // the time they waited, summed
}

// Side is whose connection: a client's or a balancer's.
type Side uint8

// The sides of a connection.
const (
	ClientSide   Side = iota // a client's, to its balancer or to a server it picked
	BalancerSide             // a balancer's, to a server
)

// connCounts are a recorder's connection figures.
type connCounts struct {
	on        bool
	opened    [2]uint64
	handshake time.Duration
	waits     uint64
	wait      time.Duration
}

// ModelConnections makes Fill report connections (the lab models them),
// even when none was opened.
func (r *Recorder) ModelConnections() { r.conns.on = true }

// Handshake counts a connection side opened, which added d to its attempt.
func (r *Recorder) Handshake(side Side, d time.Duration) {
	r.conns.on = true
	r.conns.opened[side]++
	r.conns.handshake += d
}

// ConnWait counts an attempt that waited d for a connection at max_conns.
func (r *Recorder) ConnWait(d time.Duration) {
	r.conns.on = true
	r.conns.waits++
	r.conns.wait += d
}

// fillConnections writes the connection figures into run.
func (r *Recorder) fillConnections(run *Run) {
	if !r.conns.on {
		return
	}
	c := r.conns
	run.Connections = &Connections{ByClients: c.opened[ClientSide], ByBalancers: c.opened[BalancerSide],
		HandshakeMs: Ms(c.handshake), Waits: c.waits, WaitMs: Ms(c.wait)}
	run.Connections.Total(run.Requests)
}

// Add adds balancer-side figures gathered elsewhere (a live lb's counters)
// and recomputes the totals over requests.
func (c *Connections) Add(byBalancers uint64, handshakeMs float64, waits uint64, waitMs float64, requests uint64) {
	c.ByBalancers += byBalancers
	c.HandshakeMs += handshakeMs
	c.Waits += waits
	c.WaitMs += waitMs
	c.Total(requests)
}

// Total recomputes the sums and the per-request figures.
func (c *Connections) Total(requests uint64) {
	c.Handshakes = c.ByClients + c.ByBalancers
	c.PerRequest, c.PerRequestMs = 0, 0
	if requests > 0 {
		c.PerRequest = float64(c.Handshakes) / float64(requests)
		c.PerRequestMs = c.HandshakeMs / float64(requests)
	}
}

// writeConnections prints, when the lab models connections, what opening
// them cost each setting.
func (r *Report) writeConnections(w io.Writer) {
	any := false
	for _, run := range r.Runs {
		any = any || run.Connections != nil
	}
	if !any {
		return
	}
	fmt.Fprintln(w, "\nconnections (handshakes opened by clients and balancers, and the time they added)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\thandshakes\tby clients\tby balancers\tper request\tms per request\twaits\twait ms\t")
	for _, run := range r.Ranked() {
		c := run.Connections
		if c == nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\t\n", run.Name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3f\t%.2f\t%d\t%.1f\t\n", run.Name, c.Handshakes, c.ByClients, c.ByBalancers,
			c.PerRequest, c.PerRequestMs, c.Waits, c.WaitMs)
	}
	tw.Flush()
}
