package lab

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/discover"
)

// Endpoint is a process `lab dashboard` attaches to: its name and admin
// address.
type Endpoint struct {
	Name  string
	Admin string
}

// AttachOptions configure `lab dashboard`, which serves the dashboard and
// the chaos API for processes it did not start (the compose lab).
type AttachOptions struct {
	Options
	Listen   string
	LBs      []Endpoint
	Backends []Endpoint
	Loadgen  string // the loadgen's admin address
	// BackendsDNS, if set, follows the backends behind a DNS name (their
	// admin port), besides Backends.
	BackendsDNS *discover.Config
	Lab         *labfile.Lab // what the processes run, to check drills (nil: the playground)
	Out         io.Writer
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
// backends only, or none (Attach completes it).
func (o AttachOptions) Check() (*labfile.Lab, error) {
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

// Attach serves the dashboard and chaos API for running processes until
// ctx ends. Nothing is started or stopped: add-server and scenario switching
// answer 400. With BackendsDNS it first waits until the name resolves to at
// least one backend, then follows it (attachdns.go).
func Attach(ctx context.Context, o AttachOptions) error {
	lab, err := o.Check()
	if err != nil {
		return err
	}
	ctx = admin.WithToken(ctx, o.Token)
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", o.Listen, err)
	}
	f := &fleet{opts: o.Options, lab: lab}
	for _, e := range o.Backends {
		f.backends = append(f.backends, proc.Attached("backend", e.Name, e.Admin))
	}
	for _, e := range o.LBs {
		f.lbs = append(f.lbs, proc.Attached("lb", e.Name, e.Admin))
	}
	var dns *dnsFleet
	if o.BackendsDNS != nil {
		if dns, lab, err = followDNS(ctx, o, f); err != nil || dns == nil {
			ln.Close()
			return err // nil: ctx ended while waiting
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	r := newRun(rctx, cancel, "attach", lab, f, proc.Attached("loadgen", "loadgen", o.Loadgen))
	r.attached = true
	r.sc.followBalancers(rctx)
	if dns != nil {
		dns.start(rctx, r)
	}
	c := control.New(ctx, ln, controlOptions("attach", o.Options))
	c.SetRun(r)
	lastControllerAddr.Store(c.Addr())
	if o.Out != nil {
		fmt.Fprintf(o.Out, "dashboard:  %s\n", c.DashboardURL())
		fmt.Fprintf(o.Out, "attached to %d balancers, %d backends and the loadgen at %s\n", len(o.LBs), len(r.backends()), o.Loadgen)
	}
	<-ctx.Done()
	c.Close()
	r.Stop()
	return nil
}
