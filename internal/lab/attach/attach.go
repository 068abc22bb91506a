// Package attach is what lab dashboard needs to attach to processes it did
// not start (a compose or Kubernetes lab): the endpoints it is given
// (ParseEndpoints), the lab drills are checked against, one server per
// backend (Spec.Check), and the follower that keeps the backends behind a
// DNS name up to date (FollowDNS). internal/lab's Attach wires them to a
// run and a controller.
package attach

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/discover"
)

// Endpoint is a process `lab dashboard` attaches to: its name and admin
// address.
type Endpoint struct {
	Name  string
	Admin string
}

// Spec is what lab dashboard is told of the processes it attaches to.
type Spec struct {
	LBs      []Endpoint
	Backends []Endpoint
	Loadgen  string // the loadgen's admin address
	// BackendsDNS, if set, follows the backends behind a DNS name (their
	// admin port), besides Backends.
	BackendsDNS *discover.Config
	Lab         *labfile.Lab // what the processes run, to check drills (nil: the playground)
}

// ParseEndpoints reads NAME=HOST:PORT,... (flag names the flag in errors);
// each address may also be a URL (see DialAddr).
func ParseEndpoints(flag, list string) ([]Endpoint, error) {
	var out []Endpoint
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		name, addr, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok || name == "" || addr == "" {
			return nil, fmt.Errorf("%s: %q: want NAME=HOST:PORT", flag, item)
		}
		addr, err := control.DialAddr(flag+" "+name, addr)
		if err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, fmt.Errorf("%s: %s is given twice", flag, name)
		}
		seen[name] = true
		out = append(out, Endpoint{Name: name, Admin: addr})
	}
	return out, nil
}

// Check validates the options and returns the lab drills are checked
// against: the given one (or the playground) with one server per backend,
// named as given, and one balancer per lb. With BackendsDNS the backends
// are not known before the name resolves: the lab then has the given
// backends only, or none (FollowDNS completes it).
func (o Spec) Check() (*labfile.Lab, error) {
	switch {
	case len(o.LBs) == 0:
		return nil, fmt.Errorf("--lb: give at least one balancer, NAME=ADMINADDR")
	case len(o.Backends) == 0 && o.BackendsDNS == nil:
		return nil, fmt.Errorf("--backends: give at least one backend, NAME=ADMINADDR (or --backends-dns)")
	case o.Loadgen == "":
		return nil, fmt.Errorf("--loadgen: give the loadgen's admin address")
	}
	if _, err := control.DialAddr("--loadgen", o.Loadgen); err != nil {
		return nil, err
	}
	if o.BackendsDNS != nil {
		if err := o.BackendsDNS.Check(); err != nil {
			return nil, fmt.Errorf("--backends-dns: %v", err)
		}
	}
	lab := o.Lab
	if lab == nil {
		lab = labfile.Default()
		lab.Name = "compose"
	}
	if len(o.Backends) == 0 {
		lab = lab.Clone()
		return lab, lab.Validate()
	}
	for i, b := range o.Backends {
		if n, err := strconv.Atoi(strings.TrimPrefix(b.Name, "s")); err == nil && strings.HasPrefix(b.Name, "s") && n != i+1 {
			return nil, fmt.Errorf("--backends: %s is given as backend %d: a name sN must be the N-th backend (list them in fleet order)", b.Name, i+1)
		}
	}
	return fleetLab(lab, endpointNames(o.Backends), len(o.LBs))
}

// fleetLab is lab with one server per name, each like lab's first server
// (s1, s2, ... positional, others named), and lbs balancers.
func fleetLab(lab *labfile.Lab, names []string, lbs int) (*labfile.Lab, error) {
	lab = lab.Clone()
	tmpl := lab.Servers[0]
	lab.Servers = nil
	for i, name := range names {
		g := tmpl
		g.Count, g.Name = 1, name
		if name == "s"+strconv.Itoa(i+1) {
			g.Name = "" // generated names are the positional ones
		}
		lab.Servers = append(lab.Servers, g)
	}
	lab.Balancers.Count, lab.Events, lab.Compare = lbs, nil, nil
	if err := lab.Validate(); err != nil {
		return nil, fmt.Errorf("--backends: %v", err)
	}
	return lab, nil
}

func endpointNames(es []Endpoint) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name
	}
	return out
}
