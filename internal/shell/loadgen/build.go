package loadgen

import (
	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/core/balance"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/policy"
)

// The lab -> policy mapping is internal/assemble's, shared with the
// simulator, so a live run replays the simulator's requests with its policies.

// buildBalancers makes one pipeline per client id over servers, salted like
// the simulator's (salt = client id + 1).
func buildBalancers(lab *labfile.Lab, servers []balance.Server) ([]*policy.Balancer, error) {
	bals := make([]*policy.Balancer, lab.Clients.Count)
	for i := range bals {
		b, err := assemble.Balancer(lab, i, servers)
		if err != nil {
			return nil, err
		}
		bals[i] = b
	}
	return bals, nil
}

// serverWeights lists the client-side servers with their lab speed as
// weight (1 for a name the lab does not have).
func serverWeights(lab *labfile.Lab, servers []Backend) []balance.Server {
	speed := map[string]float64{}
	for _, ns := range lab.ExpandServers() {
		speed[ns.Name] = ns.Speed
	}
	out := make([]balance.Server, len(servers))
	for i, s := range servers {
		w, ok := speed[s.Name]
		if !ok {
			w = 1
		}
		out[i] = balance.Server{Name: s.Name, Weight: w}
	}
	return out
}
