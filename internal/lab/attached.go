package lab

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/attach"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
)

// AttachOptions configure `lab dashboard`, which serves the dashboard and
// the chaos API for processes it did not start (the compose lab).
type AttachOptions struct {
	Options
	attach.Spec
	Listen string
	Out    io.Writer
}

// Attach serves the dashboard and chaos API for running processes until
// ctx ends. Nothing is started or stopped: add-server and scenario switching
// answer 400. With BackendsDNS it first waits until the name resolves to at
// least one backend, then follows it (attach.DNS).
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
	var dns *attach.DNS
	if o.BackendsDNS != nil {
		if dns, lab, err = o.FollowDNS(ctx, attachedBackends{f}, lab, o.Out, o.Log); err != nil || dns == nil {
			ln.Close()
			return err // nil: ctx ended while waiting
		}
	}
	rctx, cancel := context.WithCancel(ctx)
	r := newRun(rctx, cancel, "attach", lab, f, proc.Attached("loadgen", "loadgen", o.Loadgen))
	r.attached = true
	r.sc.followBalancers(rctx)
	if dns != nil {
		dns.Start(rctx, r)
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

// attachedBackends are the backends of an attached fleet as the DNS
// follower changes them (attach.Members).
type attachedBackends struct{ f *fleet }

func (a attachedBackends) Names() []string {
	var out []string
	for _, p := range a.f.servers() {
		out = append(out, p.Name)
	}
	return out
}

func (a attachedBackends) Join(name, admin string) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	a.f.backends = append(a.f.backends, proc.Attached("backend", name, admin))
}

func (a attachedBackends) Leave(name string) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	a.f.backends = slices.DeleteFunc(a.f.backends, func(p *proc.Proc) bool { return p.Name == name })
}

// Relab replaces the run's lab by next(its lab) unless that fails (the DNS
// follower's membership changes, attach.Run).
func (r *liveRun) Relab(next func(*labfile.Lab) (*labfile.Lab, error)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	lab, err := next(r.lab)
	if err == nil {
		r.lab = lab
	}
	return err
}

// Note adds text to the run's event log, now.
func (r *liveRun) Note(text string) { r.sc.events.Add(time.Now(), text) }
