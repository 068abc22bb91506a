package lab

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/discover"
)

// dnsFleet follows, for lab dashboard, the backends behind a DNS name (a
// compose service with replicas, a Kubernetes headless service): an address
// that appears is attached as a backend, one that goes is dropped, and the
// lab drills are checked against gets one server per backend, each like
// its first. Membership is what DNS says: a change also forgets
// remove-server drills recorded before it.
type dnsFleet struct {
	w    *discover.Watcher
	f    *fleet
	lbs  int
	name string
	log  *zap.Logger

	mu  sync.Mutex
	run *liveRun     // nil until the run exists
	lab *labfile.Lab // the lab until then
}

// followDNS resolves o.BackendsDNS until it yields at least one backend
// (telling o.Out it waits), and returns the fleet follower and the lab of
// what it found. A nil follower means ctx ended first.
func followDNS(ctx context.Context, o AttachOptions, f *fleet) (*dnsFleet, *labfile.Lab, error) {
	d := &dnsFleet{f: f, lbs: len(o.LBs), lab: f.lab, log: o.Log}
	if d.log == nil {
		d.log = zap.NewNop()
	}
	w, err := discover.New(*o.BackendsDNS, d)
	if err != nil {
		return nil, nil, fmt.Errorf("--backends-dns: %w", err)
	}
	d.w, d.name = w, w.Status().Name
	every := o.BackendsDNS.Every
	if every == 0 {
		every = discover.DefaultEvery
	}
	for waited := false; ; waited = true {
		err := w.Round(ctx)
		if len(backendNames(f)) > 0 {
			break
		}
		if !waited && o.Out != nil {
			fmt.Fprintf(o.Out, "waiting for backends at %s (%v)\n", d.name, err)
		}
		select {
		case <-ctx.Done():
			return nil, nil, nil
		case <-time.After(every):
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d, d.lab, nil
}

// start hands the follower the run and re-resolves every interval until ctx ends.
func (d *dnsFleet) start(ctx context.Context, r *liveRun) {
	d.mu.Lock()
	d.run = r
	d.mu.Unlock()
	go d.w.Run(ctx, func(err error) {
		d.log.Warn("backends-dns", zap.Error(err))
		r.sc.events.Add(time.Now(), "dns "+d.name+": "+err.Error())
	})
}

// Add attaches a discovered backend, unless the lab refuses its name.
func (d *dnsFleet) Add(m discover.Member) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.relab(append(backendNames(d.f), m.Name)); err != nil {
		return err
	}
	d.f.mu.Lock()
	d.f.backends = append(d.f.backends, proc.Attached("backend", m.Name, m.Admin))
	d.f.mu.Unlock()
	d.note(fmt.Sprintf("dns %s: backend %s joined at %s", d.name, m.Name, m.Admin))
	return nil
}

// Remove drops a backend that left. The last one's server stays in the lab
// (a lab has at least one), though no process answers for it.
func (d *dnsFleet) Remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.f.mu.Lock()
	d.f.backends = slices.DeleteFunc(d.f.backends, func(p *proc.Proc) bool { return p.Name == name })
	d.f.mu.Unlock()
	if names := backendNames(d.f); len(names) > 0 {
		if err := d.relab(names); err != nil {
			d.log.Warn("backends-dns: the lab without "+name, zap.Error(err))
		}
	}
	d.note(fmt.Sprintf("dns %s: backend %s left", d.name, name))
}

// relab sets the servers of the run's lab (or of the lab before the run)
// to names. Caller holds d.mu.
func (d *dnsFleet) relab(names []string) error {
	if d.run == nil {
		lab, err := fleetLab(d.lab, names, d.lbs)
		if err == nil {
			d.lab = lab
		}
		return err
	}
	r := d.run
	r.mu.Lock()
	defer r.mu.Unlock()
	lab, err := fleetLab(r.lab, names, d.lbs)
	if err == nil {
		r.lab = lab
	}
	return err
}

// note logs a membership change in the run's event log. Caller holds d.mu.
func (d *dnsFleet) note(text string) {
	d.log.Info(text)
	if d.run != nil {
		d.run.sc.events.Add(time.Now(), text)
	}
}

// backendNames are the fleet's backends' names, in fleet order.
func backendNames(f *fleet) []string {
	var out []string
	for _, p := range f.all() {
		if p.Role == "backend" {
			out = append(out, p.Name)
		}
	}
	return out
}
