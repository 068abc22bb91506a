package policy

import "time"

// Link is the one-way hop between two zones: Hop plus a uniform share of
// Jitter, drawn as Network's own.
type Link struct{ Hop, Jitter time.Duration }

// Zones places a lab's clients, balancers and servers in zones (numbered
// from 0) and joins each pair of zones: a zone to itself by the Network's
// own hop, two zones of one region by Cross, two regions by Far. A nil
// *Zones is a lab of one zone. Build one with NewZones; it is not changed
// after, so Networks share it.
type Zones struct {
	region    []int32 // by zone: its region
	clients   []int32 // client id c is in clients[c mod len]
	balancers []int32 // balancer b is in balancers[b mod len]
	servers   []int32 // by server; one past the end (added by a script) is in the last one's zone
	byName    map[string]int32
	Cross     Link
	Far       Link

	// For routing a client to a balancer of its zone: by zone, its
	// balancers (among the tier's); by position p of clients, how many
	// positions before it hold its zone; by zone, how many positions do.
	local  [][]int32
	before []int32
	count  []int32
}

// ZonePlaces is where everything is, as zone numbers: each zone's region,
// the clients' and the balancers' lists (member m in list[m mod len]),
// each server's zone with its name, and the tier's size.
type ZonePlaces struct {
	Regions            []int
	Clients, Balancers []int
	Servers            []int
	ServerNames        []string
	Tier               int
	Cross, Far         Link
}

// NewZones builds the zones of p; nil when p has no zones.
func NewZones(p ZonePlaces) *Zones {
	if len(p.Regions) == 0 {
		return nil
	}
	z := &Zones{region: ints(p.Regions), clients: ints(p.Clients), balancers: ints(p.Balancers),
		servers: ints(p.Servers), byName: map[string]int32{}, Cross: p.Cross, Far: p.Far}
	if len(z.clients) == 0 {
		z.clients = []int32{0}
	}
	if len(z.balancers) == 0 {
		z.balancers = []int32{0}
	}
	for i, n := range p.ServerNames {
		if i < len(z.servers) {
			z.byName[n] = z.servers[i]
		}
	}
	zones := len(z.region)
	z.local, z.count = make([][]int32, zones), make([]int32, zones)
	for b := range max(p.Tier, 1) {
		zb := z.Balancer(int32(b))
		z.local[zb] = append(z.local[zb], int32(b))
	}
	z.before = make([]int32, len(z.clients))
	for i, zc := range z.clients {
		z.before[i] = z.count[zc]
		z.count[zc]++
	}
	return z
}

func ints(in []int) []int32 {
	out := make([]int32, len(in))
	for i, v := range in {
		out[i] = int32(v)
	}
	return out
}

// Client is client id c's zone.
func (z *Zones) Client(c int32) int32 { return z.clients[int(c)%len(z.clients)] }

// Balancer is balancer b's zone.
func (z *Zones) Balancer(b int32) int32 { return z.balancers[int(b)%len(z.balancers)] }

// Server is server i's zone (a server added past the lab's is in the last
// one's zone).
func (z *Zones) Server(i int32) int32 {
	if len(z.servers) == 0 {
		return 0
	}
	return z.servers[min(int(i), len(z.servers)-1)]
}

// ServerNamed is the zone of the server called name (a name the lab does
// not have, a server a script added, is in the last server's zone), and
// whether name is a server's at all ("" is not).
func (z *Zones) ServerNamed(name string) (int32, bool) {
	if name == "" {
		return 0, false
	}
	if zone, ok := z.byName[name]; ok {
		return zone, true
	}
	return z.Server(int32(len(z.servers))), true
}

// Route is the balancer client id c sends to: one of its own zone's,
// spreading the clients of a zone over its balancers in turn; when its
// zone has none, c mod tier (a balancer of another zone).
func (z *Zones) Route(c int32, tier int) int32 {
	p := int(c) % len(z.clients)
	zone := z.clients[p]
	local := z.local[zone]
	if len(local) == 0 {
		return c % int32(tier)
	}
	rank := int(c)/len(z.clients)*int(z.count[zone]) + int(z.before[p])
	return local[rank%len(local)]
}

// link is the hop between zones a and b: ok is false within one zone.
func (z *Zones) link(a, b int32) (Link, bool) {
	switch {
	case a == b:
		return Link{}, false
	case z.region[a] != z.region[b]:
		return z.Far, true
	}
	return z.Cross, true
}

// Between is the network from zone a to zone b: the lab's own hop within
// a zone, the link's between two; the same draws either way (Delay).
func (n Network) Between(a, b int32) Network {
	if n.Zones == nil {
		return n
	}
	if l, ok := n.Zones.link(a, b); ok {
		return Network{Hop: l.Hop, Jitter: l.Jitter, Seed: n.Seed}
	}
	return Network{Hop: n.Hop, Jitter: n.Jitter, Seed: n.Seed}
}

// Crosses reports whether the hop between zones a and b crosses a cut link
// (a partition).
func (n Network) Crosses(a, b int32) bool { return n.Cut && n.Zones != nil && a != b }

// ClientToBalancer is the network between client id client and balancer
// bal: the first hop of an attempt behind a balancer tier, and its last.
func (n Network) ClientToBalancer(client, bal int32) Network {
	if z := n.Zones; z != nil {
		return n.Between(z.Client(client), z.Balancer(bal))
	}
	return n
}

// ClientToServer is the network between client id client and server
// number server (a client that balances itself); server < 0 (none picked)
// is the client's own zone.
func (n Network) ClientToServer(client, server int32) Network {
	if z := n.Zones; z != nil && server >= 0 {
		return n.Between(z.Client(client), z.Server(server))
	}
	return n
}

// Count is how many zones the lab declares.
func (z *Zones) Count() int { return len(z.region) }

// Level is zone b's distance from zone a: 0 the same zone, 1 another zone
// of its region, 2 another region.
func (z *Zones) Level(a, b int32) int8 {
	switch {
	case a == b:
		return 0
	case z.region[a] == z.region[b]:
		return 1
	}
	return 2
}

// Callers is, by zone, the calling fleet's share in it: of the tier's
// balancers, or of the clients' places when the clients balance
// themselves (clients.zones, each entry one share).
func (z *Zones) Callers(clientSide bool) []float64 {
	out := make([]float64, len(z.region))
	if clientSide {
		for zone, n := range z.count {
			out[zone] = float64(n) / float64(len(z.clients))
		}
		return out
	}
	tier := 0
	for _, l := range z.local {
		tier += len(l)
	}
	for zone, l := range z.local {
		out[zone] = float64(len(l)) / float64(max(tier, 1))
	}
	return out
}
