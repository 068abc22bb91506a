package backend

import (
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
	"github.com/lblab/lblab/internal/shell/wire"
	"github.com/valyala/fasthttp"
)

// With zones (policy.Zones), the hop back from this server is the link's
// between its zone and the sender's, as the simulator delays it: the
// balancer's that forwarded the request (X-Lab-Balancer, lb1, lb2, ...),
// or, from a client that balances itself, the client's (X-Lab-Client).

// sender is who sent a request: balancer number bal, else client id
// client, else (both -1) nobody the lab knows.
type sender struct {
	bal    int
	client int64
}

// senderOf reads who sent the request from its headers.
func senderOf(h *fasthttp.RequestHeader) sender {
	s := sender{bal: -1, client: -1}
	if i, ok := labfile.BalancerIndex(string(h.Peek(wire.HBalancer))); ok {
		s.bal = i
	} else if c, ok := wire.ParseUint(h.Peek(wire.HClient)); ok {
		s.client = int64(c % (1 << 31))
	}
	return s
}

// backTo is net, with the lab's zones, for the hop back to from: within
// a zone net's own hop, to another zone their link's.
func (b *Backend) backTo(from sender, net policy.Network) policy.Network {
	z := b.zones.Load()
	if z == nil {
		return net
	}
	var there int32
	switch {
	case from.bal >= 0:
		there = z.Balancer(int32(from.bal))
	case from.client >= 0:
		there = z.Client(int32(from.client))
	default:
		return net
	}
	net.Zones = z
	return net.Between(b.zoneIn(z), there)
}

// zoneIn is this server's zone among z's.
func (b *Backend) zoneIn(z *policy.Zones) int32 {
	name := b.cfg.Server
	if name == "" {
		name = b.cfg.Name
	}
	here, _ := z.ServerNamed(name)
	return here
}
