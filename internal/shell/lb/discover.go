package lb

import (
	"context"
	"fmt"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/shell/discover"
)

// DNS discovery (Config.Discover): the backends behind a DNS name, a
// compose service with replicas or a Kubernetes headless service. A watcher
// re-resolves the name every interval and adds and removes backends through
// the same path as POST and DELETE /admin/backends; each takes the name the
// backend gives itself. Backends given by Config.Backends stay as they are.

// lbFleet is the balancer as the watcher's fleet.
type lbFleet struct{ l *LB }

func (f lbFleet) Add(m discover.Member) error {
	return f.l.addBackend(BackendSpec{Name: m.Name, Addr: m.Addr, Admin: m.Admin})
}

func (f lbFleet) Remove(name string) { f.l.removeBackend(name) }

// checkDiscover validates the discovery settings against the lab.
func (c Config) checkDiscover() error {
	if c.Discover == nil {
		return nil
	}
	if err := c.Discover.Check(); err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	if c.Discover.Port == 0 {
		return fmt.Errorf("discover: the backends' data port is needed")
	}
	if c.Discover.AdminPort == 0 && c.Lab.Balancers.Load == "shared" {
		return fmt.Errorf("discover: the backends' admin port is needed when balancers.load is shared")
	}
	return nil
}

// startDiscovery runs the first round before the balancer serves (so it
// starts with its fleet), then a round every interval until Shutdown.
func (l *LB) startDiscovery() error {
	if l.cfg.Discover == nil {
		return nil
	}
	w, err := discover.New(*l.cfg.Discover, lbFleet{l})
	if err != nil {
		return fmt.Errorf("discover: %w", err)
	}
	l.disc = w
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Round(ctx); err != nil {
		l.log.Warn("discovery", zap.Error(err))
	}
	l.wg.Add(2)
	go func() {
		defer l.wg.Done()
		<-l.done
		cancel()
	}()
	go func() {
		defer l.wg.Done()
		w.Run(ctx, func(err error) { l.log.Warn("discovery", zap.Error(err)) })
	}()
	return nil
}

// discoveryStatus is the watcher's status for GET /admin/state (nil without one).
func (l *LB) discoveryStatus() *discover.Status {
	if l.disc == nil {
		return nil
	}
	st := l.disc.Status()
	return &st
}
