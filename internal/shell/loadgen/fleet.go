package loadgen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// The client-side fleet, live. When the clients balance themselves
// (Config.Servers or Config.Discover) the loadgen holds the server list the
// lb holds otherwise, and takes the lb's two admin calls to change it:
// POST /admin/backends adds a server to every client's balancer, DELETE
// /admin/backends/NAME takes one out for good (attempts out finish) — what
// the simulator's add-server and remove-server events do to client-side
// balancers. DNS discovery (discover.go) goes through the same two calls.
//
// A server's index is the same in every client's balancer, in t.eps,
// t.tmpls and t.servers: the balancers number servers in the order they
// are added and never reuse a number, and so does the target. A name that
// comes back after a removal (a restarted container) is a new server.

// addEndpoint appends a client-side server to t's endpoints, templates and
// server rows and returns its index.
func (t *target) addEndpoint(name, addr string) int {
	i := len(t.eps)
	t.servers = append(t.servers, srvStat{name: name})
	t.byName[name] = i
	spec := endpointSpec{addr: addr, uri: "/", host: addr}
	t.eps = append(t.eps, t.l.tr.endpoint(name, spec, t.l.cfg.Connections))
	t.tmpls = append(t.tmpls, template{ep: i, method: t.l.cfg.HTTP.method(), uri: spec.uri, host: spec.host,
		header: t.l.cfg.HTTP.Header, body: t.l.cfg.HTTP.Body})
	t.present[name] = i
	return i
}

// presentNames lists the servers in the balancers now, in fleet order (nil
// when a balancer tier holds them).
func (t *target) presentNames() []string {
	if t.present == nil {
		return nil
	}
	names := make([]string, 0, len(t.present))
	for i, s := range t.servers {
		if j, ok := t.present[s.name]; ok && j == i {
			names = append(names, s.name)
		}
	}
	return names
}

// errConflict marks a fleet change answered 409.
type errConflict struct{ error }

// addServer adds s to every client-side target (the one there is).
func (l *loop) addServer(now clock.Instant, s wire.BackendSpec) error {
	if err := l.clientSideOnly(); err != nil {
		return err
	}
	if err := s.Check(); err != nil {
		return err
	}
	for _, t := range l.targets {
		if _, ok := t.present[s.Name]; ok {
			return errConflict{fmt.Errorf("name: server %q already exists", s.Name)}
		}
		if max := labfile.Bounds.Servers.Max; len(t.eps) >= max { // removed ones keep their number
			return fmt.Errorf("name: this run has had %d servers, the most a lab may have", max)
		}
	}
	weight := serverWeights(l.lab, []Backend{{Name: s.Name}})[0]
	if s.Admin != "" {
		if l.cfg.Admins == nil {
			l.cfg.Admins = map[string]string{}
		}
		l.cfg.Admins[s.Addr] = s.Admin
	}
	for _, t := range l.targets {
		i := t.addEndpoint(s.Name, s.Addr)
		for _, b := range t.rt.Balancers() {
			if got := b.AddServer(weight); got != i {
				panic(fmt.Sprintf("loadgen: server %s is %d in a balancer and %d in the target", s.Name, got, i))
			}
		}
	}
	l.note.Event("add-server")
	l.logAll(now, fmt.Sprintf("server %s added at %s", s.Name, s.Addr))
	return nil
}

// removeServer takes the server called name out of every client's balancer.
func (l *loop) removeServer(now clock.Instant, name string) error {
	if err := l.clientSideOnly(); err != nil {
		return err
	}
	found := false
	for _, t := range l.targets {
		i, ok := t.present[name]
		if !ok {
			continue
		}
		found = true
		delete(t.present, name)
		for _, b := range t.rt.Balancers() {
			b.RemoveServer(i)
		}
		t.eps[i].pool.CloseIdleConnections()
	}
	if !found {
		return errNotFound{fmt.Errorf("name: no server %q", name)}
	}
	l.note.Event("remove-server")
	l.logAll(now, "server "+name+" removed")
	return nil
}

// errNotFound marks a fleet change answered 404.
type errNotFound struct{ error }

func (l *loop) clientSideOnly() error {
	if len(l.targets) == 0 || !l.targets[0].rt.ClientSide() {
		return errConflict{fmt.Errorf("this loadgen sends to balancers, which hold the servers: add and remove them there")}
	}
	return nil
}

// fleetReply is the admin answer to a fleet change.
func fleetReply(err error, ok any) reply {
	var conflict errConflict
	var missing errNotFound
	switch {
	case err == nil:
		return reply{fasthttp.StatusOK, ok}
	case errors.As(err, &conflict):
		return reply{fasthttp.StatusConflict, wire.ErrorBody{Error: err.Error(), Code: fasthttp.StatusConflict}}
	case errors.As(err, &missing):
		return reply{fasthttp.StatusNotFound, wire.ErrorBody{Error: err.Error(), Code: fasthttp.StatusNotFound}}
	}
	field, _, _ := strings.Cut(err.Error(), ":") // Check's errors start with the JSON field
	return reply{fasthttp.StatusBadRequest, wire.ErrorBody{Error: err.Error(), Code: fasthttp.StatusBadRequest, Field: field}}
}

// serversCommand decodes POST /admin/backends; on bad JSON it answers 400.
func serversCommand(ctx *fasthttp.RequestCtx) (command, bool) {
	var s wire.BackendSpec
	if !wire.DecodeJSON(ctx, &s) {
		return command{}, false
	}
	return command{op: "add-server", server: s}, true
}
