package lb

import "github.com/lblab/lblab/internal/policy"

// With zones (policy.Zones), each hop the lb injects is the link's between
// its own zone (balancer number Config.Index) and the zone at the hop's
// other end, as the simulator delays it: the server's, by its name, or
// the client's, by the request's client id.

// toServer is net between this balancer and the server called name.
func toServer(net policy.Network, index int, name string) policy.Network {
	z := net.Zones
	if z == nil {
		return net
	}
	at, _ := z.ServerNamed(name)
	return net.Between(z.Balancer(int32(index)), at)
}

// cutTo reports whether the link from this balancer to the server called
// name is cut (network.partition).
func cutTo(net policy.Network, index int, name string) bool {
	z := net.Zones
	if z == nil {
		return false
	}
	at, _ := z.ServerNamed(name)
	return net.Crosses(z.Balancer(int32(index)), at)
}

// toClient is net between this balancer and client id client (a client
// id that is a hash, not the loadgen's number, lands in some zone).
func toClient(net policy.Network, index int, client uint64) policy.Network {
	z := net.Zones
	if z == nil {
		return net
	}
	return net.Between(z.Balancer(int32(index)), z.Client(int32(client%(1<<31))))
}
