package attach

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/discover"
)

// Members are the attached fleet's backends, which the DNS follower keeps.
type Members interface {
	Names() []string         // the backends' names, in fleet order
	Join(name, admin string) // attach a backend at the end
	Leave(name string)       // drop a backend
}

// Run is the running lab once it exists: the lab drills are checked
// against, and its event log.
type Run interface {
	// Relab replaces the run's lab by next(its lab), unless next fails.
	Relab(next func(*labfile.Lab) (*labfile.Lab, error)) error
	// Note adds a line to the run's event log.
	Note(text string)
}

// DNS follows, for lab dashboard, the backends behind a DNS name (a
// compose service with replicas, a Kubernetes headless service): an address
// that appears is attached as a backend, one that goes is dropped, and the
// lab drills are checked against gets one server per backend, each like
// its first. Membership is what DNS says: a change also forgets
// remove-server drills recorded before it.
type DNS struct {
	w    *discover.Watcher
	m    Members
	lbs  int
	name string
	log  *zap.Logger

	mu  sync.Mutex
	run Run          // nil until Start
	lab *labfile.Lab // the lab until then
}

// FollowDNS resolves o.BackendsDNS until it yields at least one backend
// of m (telling out it waits), and returns the follower and the lab of
// what it found, lab (o.Check's) with one server per backend. A nil
// follower means ctx ended first.
func (o Spec) FollowDNS(ctx context.Context, m Members, lab *labfile.Lab, out io.Writer, log *zap.Logger) (*DNS, *labfile.Lab, error) {
	d := &DNS{m: m, lbs: len(o.LBs), lab: lab, log: log}
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
		if len(m.Names()) > 0 {
			break
		}
		if !waited && out != nil {
			fmt.Fprintf(out, "waiting for backends at %s (%v)\n", d.name, err)
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

// Start hands the follower the run and re-resolves every interval until ctx ends.
func (d *DNS) Start(ctx context.Context, r Run) {
	d.mu.Lock()
	d.run = r
	d.mu.Unlock()
	go d.w.Run(ctx, func(err error) {
		d.log.Warn("backends-dns", zap.Error(err))
		r.Note("dns " + d.name + ": " + err.Error())
	})
}

// Add attaches a discovered backend, unless the lab refuses its name.
func (d *DNS) Add(m discover.Member) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.relab(append(d.m.Names(), m.Name)); err != nil {
		return err
	}
	d.m.Join(m.Name, m.Admin)
	d.note(fmt.Sprintf("dns %s: backend %s joined at %s", d.name, m.Name, m.Admin))
	return nil
}

// Remove drops a backend that left. The last one's server stays in the lab
// (a lab has at least one), though no process answers for it.
func (d *DNS) Remove(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m.Leave(name)
	if names := d.m.Names(); len(names) > 0 {
		if err := d.relab(names); err != nil {
			d.log.Warn("backends-dns: the lab without "+name, zap.Error(err))
		}
	}
	d.note(fmt.Sprintf("dns %s: backend %s left", d.name, name))
}

// relab sets the servers of the run's lab (or of the lab before the run)
// to names. Caller holds d.mu.
func (d *DNS) relab(names []string) error {
	next := func(lab *labfile.Lab) (*labfile.Lab, error) { return fleetLab(lab, names, d.lbs) }
	if d.run == nil {
		lab, err := next(d.lab)
		if err == nil {
			d.lab = lab
		}
		return err
	}
	return d.run.Relab(next)
}

// note logs a membership change in the run's event log. Caller holds d.mu.
func (d *DNS) note(text string) {
	d.log.Info(text)
	if d.run != nil {
		d.run.Note(text)
	}
}
