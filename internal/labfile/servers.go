package labfile

import (
	"fmt"
	"strconv"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

// NamedServer is one server of the fleet with its name.
type NamedServer struct {
	Name string
	Server
}

// ExpandServers lists the servers of the lab's groups in file order. A
// server is named s<position> (s1, s2, ... counting every server before it)
// unless it is a group of one with a Name. Each NamedServer owns its copy of
// the settings (its Work is not shared with the lab). On a lab that does not
// validate it stops at the 10000 servers a lab may have.
func (l *Lab) ExpandServers() []NamedServer {
	var out []NamedServer
	for _, g := range l.Servers {
		for j := 0; j < g.Count && len(out) < maxServers; j++ {
			name := "s" + strconv.Itoa(len(out)+1)
			if g.Count == 1 && g.Name != "" {
				name = g.Name
			}
			s := g.Server
			if s.Work != nil {
				w := s.Work.clone()
				s.Work = &w
			}
			out = append(out, NamedServer{Name: name, Server: s})
		}
	}
	return out
}

// ServerSpeed is the speed the lab gives the server of that name, 1 when it
// has none (or no such server): the weight weighted round robin gives it,
// in lb and behind a proxy, as in the simulator.
func (l *Lab) ServerSpeed(name string) float64 {
	for _, ns := range l.ExpandServers() {
		if ns.Name == name && ns.Speed > 0 {
			return ns.Speed
		}
	}
	return 1
}

// ServerWork returns the work distribution of server s: its own Work, or
// else the clients' work (for requests that carry no work of their own). On a
// lab that does not validate it falls back to exponential with mean 10ms.
func (l *Lab) ServerWork(s Server) rng.Dist {
	w := l.Clients.Work
	if s.Work != nil {
		w = *s.Work
	}
	d, err := w.Build()
	if err != nil {
		return rng.Exponential{Avg: 10 * time.Millisecond}
	}
	return d
}

// Build returns the rng.Dist the description stands for. An empty Kind
// means exponential. It fails on a description Validate would reject.
func (d Dist) Build() (rng.Dist, error) {
	if d.Kind == "mixture" {
		values := make([]time.Duration, len(d.Mix))
		probs := make([]float64, len(d.Mix))
		for i, m := range d.Mix {
			if m.Value <= 0 {
				return nil, fmt.Errorf("mixture value %d is %v, must be > 0", i+1, m.Value)
			}
			values[i], probs[i] = m.Value, m.P
		}
		return rng.NewMixture(values, probs)
	}
	if d.Mean <= 0 {
		return nil, fmt.Errorf("%s distribution needs a mean > 0, got %v", d.Kind, d.Mean)
	}
	switch d.Kind {
	case "constant":
		return rng.Constant{Value: d.Mean}, nil
	case "", "exponential":
		return rng.Exponential{Avg: d.Mean}, nil
	case "lognormal":
		if !(d.CV >= 0) {
			return nil, fmt.Errorf("lognormal cv must be >= 0, got %g", d.CV)
		}
		return rng.NewLognormal(d.Mean, d.CV), nil
	}
	return nil, fmt.Errorf("unknown distribution %q (want constant, exponential, lognormal or mixture)", d.Kind)
}

// Capacity is server s's nominal capacity: the requests per second it
// serves with every worker busy, workers x speed / the mean work of its
// requests (ServerWork; a speed or worker count of 0 or less counts as 1).
// It is nominal: a request's own work, the key cache and the drills change
// what the server measures.
func (l *Lab) Capacity(s Server) float64 {
	speed, workers := s.Speed, float64(s.Workers)
	if speed <= 0 {
		speed = 1
	}
	if workers <= 0 {
		workers = 1
	}
	mean := l.ServerWork(s).Mean().Seconds()
	if mean <= 0 {
		mean = (10 * time.Millisecond).Seconds()
	}
	return workers * speed / mean
}

// FleetCapacity is the mean nominal capacity of the lab's servers
// (Capacity): the rate a backend's answer to HAProxy's agent check gives
// as 100% (load.AgentConfig.Scale), the same for every server of the lab,
// so that the answers are in one unit and their ratios are the servers'
// measured capacities'.
func (l *Lab) FleetCapacity() float64 {
	servers := l.ExpandServers()
	if len(servers) == 0 {
		return l.Capacity(Server{})
	}
	sum := 0.0
	for _, ns := range servers {
		sum += l.Capacity(ns.Server)
	}
	return sum / float64(len(servers))
}
