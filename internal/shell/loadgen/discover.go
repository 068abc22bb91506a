package loadgen

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/shell/discover"
	"github.com/lblab/lblab/internal/shell/wire"
)

// DNS discovery, client-side (Config.Discover): the servers behind a DNS
// name, a compose service with replicas or a Kubernetes headless service.
// A watcher re-resolves the name every interval and adds and removes
// servers through the path of POST and DELETE /admin/backends (fleet.go);
// each takes the name the server gives itself, and its admin address, when
// the config names the admin port, is where its hedge losers are cancelled.

// dnsFleet is the run as the watcher's fleet. Before the loop runs, the
// first round changes the target in place (the run starts with its fleet);
// after, every change is a command to the loop.
type dnsFleet struct {
	r      *Runner
	direct bool
}

func (f *dnsFleet) apply(c command) reply {
	if !f.direct {
		return f.r.ask(c)
	}
	c.reply = make(chan reply, 1)
	f.r.l.onCommand(0, c)
	return <-c.reply
}

func (f *dnsFleet) Add(m discover.Member) error {
	rep := f.apply(command{op: "add-server", server: wire.BackendSpec{Name: m.Name, Addr: m.Addr, Admin: m.Admin}})
	if body, ok := rep.body.(wire.ErrorBody); ok {
		return errors.New(body.Error)
	}
	return nil
}

func (f *dnsFleet) Remove(name string) {
	f.apply(command{op: "remove-server", server: wire.BackendSpec{Name: name}})
}

// startDiscovery runs the first round, refusing a run that would start
// with no server at all, then a round every interval on a goroutine until
// the returned stop is called.
func (r *Runner) startDiscovery() (stop func(), err error) {
	cfg := r.l.cfg.Discover
	if cfg == nil {
		return func() {}, nil
	}
	fleet := &dnsFleet{r: r, direct: true}
	w, err := discover.New(*cfg, fleet)
	if err != nil {
		return nil, fmt.Errorf("discover: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := w.Round(ctx); err != nil {
		r.l.log.Warn("discovery", zap.Error(err))
	}
	if len(r.l.cfg.Servers) == 0 && w.Status().Members == 0 {
		cancel()
		why := w.Status().Error
		if why == "" {
			why = "no address answered with its name"
		}
		return nil, fmt.Errorf("--servers-dns %s: no server to send to (%s)", cfg, why)
	}
	fleet.direct = false
	r.l.disc = w // read by the loop's state; set before the loop starts
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.Run(ctx, func(err error) { r.l.log.Warn("discovery", zap.Error(err)) })
	}()
	return func() { cancel(); wg.Wait() }, nil
}
