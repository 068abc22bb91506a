package client

import "github.com/lblab/lblab/internal/policy"

// Zones (policy.Zones, Live.Net): a client sends to a balancer of its own
// zone when its zone has one, and the runtime counts the attempts and the
// requests that crossed a zone. An attempt crossed when its first hop did
// (client -> balancer, or client -> server when clients balance
// themselves: known as it is sent) or, behind a balancer, when the server
// its answer names is in another zone than the balancer (known as the
// answer arrives); a request crossed when one of its attempts did.

// route is the balancer of the tier client id c sends to: c mod the tier,
// or with zones one of its own zone's (policy.Zones.Route).
func (rt *Runtime[N]) route(c int32) int32 {
	if z := rt.cfg.Net.Zones; z != nil {
		return z.Route(c, rt.cfg.Tier)
	}
	return c % int32(rt.cfg.Tier)
}

// FirstHop is the network of attempt a's first hop (and, without a
// balancer tier, its last): client -> balancer, or client -> server when
// the clients balance themselves (none picked: the client's own zone).
func (rt *Runtime[N]) FirstHop(net policy.Network, a *Attempt[N]) policy.Network {
	if rt.cfg.Balancers == nil {
		return net.ClientToBalancer(a.Client, a.Bal)
	}
	server := int32(-1)
	if a.Ticket.Valid {
		server = int32(a.Ticket.Server)
	}
	return net.ClientToServer(a.Client, server)
}

// FirstHopCut reports whether attempt a's first hop would cross a cut
// link (net.Cut, a partition): it fails at once, as a refused connection.
func (rt *Runtime[N]) FirstHopCut(net policy.Network, a *Attempt[N]) bool {
	z := net.Zones
	if z == nil || !net.Cut {
		return false
	}
	from := z.Client(a.Client)
	if rt.cfg.Balancers == nil {
		return net.Crosses(from, z.Balancer(a.Bal))
	}
	return a.Ticket.Valid && net.Crosses(from, z.Server(int32(a.Ticket.Server)))
}

// crossOut counts attempt a of call c as crossed when its first hop leaves
// the client's zone.
func (rt *Runtime[N]) crossOut(c *Call, a *Attempt[N]) {
	z := rt.cfg.Net.Zones
	if z == nil {
		return
	}
	from := z.Client(a.Client)
	switch {
	case rt.cfg.Balancers == nil:
		a.Crossed = z.Balancer(a.Bal) != from
	case a.Ticket.Valid:
		a.Crossed = z.Server(int32(a.Ticket.Server)) != from
	}
	if a.Crossed {
		rt.crossed(c)
	}
}

// crossBack counts attempt a, behind a balancer, as crossed when the server
// its answer names is in another zone than its balancer.
func (rt *Runtime[N]) crossBack(c *Call, a *Attempt[N], server string) {
	z := rt.cfg.Net.Zones
	if z == nil || a.Crossed || rt.cfg.Balancers != nil {
		return
	}
	if at, ok := z.ServerNamed(server); ok && at != z.Balancer(a.Bal) {
		a.Crossed = true
		rt.crossed(c)
	}
}

// crossed counts an attempt that crossed a zone, and marks its call (nil:
// already ended).
func (rt *Runtime[N]) crossed(c *Call) {
	rt.Rec.CrossedAttempt()
	if rt.atts != nil {
		rt.atts.Crossed()
	}
	if c != nil {
		c.Crossed = true
	}
}
