package loadgen

import (
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// command is an admin request for the loop; the loop answers on reply.
type command struct {
	op     string // state | rate | set | metrics | add-server | remove-server
	rate   float64
	path   string
	value  string
	server wire.BackendSpec // add-server; remove-server names server.Name
	reply  chan reply
}

type reply struct {
	code int
	body any
}

// State is state.Loadgen.
type State = state.Loadgen

// TargetState is state.Target.
type TargetState = state.Target

type rateBody struct {
	Rate *float64 `json:"rate"`
}

type setBody struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Admin is the admin API handler: GET /admin/state, PUT /admin/rate,
// POST /admin/set, POST and DELETE /admin/backends (client-side: fleet.go),
// GET /healthz. Commands reach the loop through a channel.
func (r *Runner) Admin() fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		path, method := string(ctx.Path()), string(ctx.Method())
		switch {
		case path == "/healthz":
			if wire.Allow(ctx, fasthttp.MethodGet) {
				wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]string{"status": "ok"})
			}
		case path == "/metrics":
			if wire.Allow(ctx, fasthttp.MethodGet) {
				r.met.Handler()(ctx)
			}
		case path == "/admin/state":
			if wire.Allow(ctx, fasthttp.MethodGet) {
				r.answer(ctx, command{op: "state"})
			}
		case path == "/admin/rate":
			if !wire.Allow(ctx, fasthttp.MethodPut, fasthttp.MethodPost) {
				return
			}
			if c, ok := rateCommand(ctx); ok {
				r.answer(ctx, c)
			}
		case path == "/admin/set":
			if !wire.Allow(ctx, fasthttp.MethodPost) {
				return
			}
			if c, ok := setCommand(ctx); ok {
				r.answer(ctx, c)
			}
		case path == "/admin/backends":
			if !wire.Allow(ctx, fasthttp.MethodPost) {
				return
			}
			if c, ok := serversCommand(ctx); ok {
				r.answer(ctx, c)
			}
		case strings.HasPrefix(path, "/admin/backends/"):
			if wire.Allow(ctx, fasthttp.MethodDelete) {
				r.answer(ctx, command{op: "remove-server", server: wire.BackendSpec{Name: strings.TrimPrefix(path, "/admin/backends/")}})
			}
		case strings.HasPrefix(path, "/admin/"):
			wire.WriteError(ctx, fasthttp.StatusNotFound, "no such endpoint: %s %s (GET /admin/state, PUT /admin/rate, POST /admin/set, POST /admin/backends, DELETE /admin/backends/NAME)", method, path)
		default:
			wire.WriteError(ctx, fasthttp.StatusNotFound, "not found: %s", path)
		}
	}
}

// rateCommand decodes {"rate": N}; on bad input it answers 400.
func rateCommand(ctx *fasthttp.RequestCtx) (command, bool) {
	var b rateBody
	if !wire.DecodeJSON(ctx, &b) {
		return command{}, false
	}
	if b.Rate == nil {
		wire.BadRequest(ctx, `want {"rate": N} with N a number %s (requests/s; 0 pauses)`, labfile.Bounds.Rate)
		return command{}, false
	}
	if e := labfile.Bounds.Rate.Check("rate", *b.Rate); e != nil {
		wire.Invalid(ctx, e.Field, e.Error())
		return command{}, false
	}
	return command{op: "rate", rate: *b.Rate}, true
}

// setCommand decodes {"path": ..., "value": ...}; on bad input it answers 400.
func setCommand(ctx *fasthttp.RequestCtx) (command, bool) {
	var b setBody
	if !wire.DecodeJSON(ctx, &b) {
		return command{}, false
	}
	if b.Path == "" {
		wire.BadRequest(ctx, `want {"path": "clients.budget", "value": "0.1"}`)
		return command{}, false
	}
	return command{op: "set", path: b.Path, value: b.Value}, true
}

func (r *Runner) answer(ctx *fasthttp.RequestCtx, c command) {
	rep := r.ask(c)
	wire.WriteJSON(ctx, rep.code, rep.body)
}

// ask hands c to the loop and waits for its answer.
func (r *Runner) ask(c command) reply {
	c.reply = make(chan reply, 1)
	unavailable := reply{fasthttp.StatusServiceUnavailable, wire.ErrorBody{Error: "the run is not running", Code: fasthttp.StatusServiceUnavailable}}
	select {
	case <-r.running:
	case <-r.done:
		return unavailable
	case <-time.After(5 * time.Second):
		return unavailable
	}
	select {
	case r.l.cmds <- c:
	case <-r.stopped:
		return unavailable
	}
	return <-c.reply
}

// onCommand runs an admin command on the loop.
func (l *loop) onCommand(now clock.Instant, c command) {
	switch c.op {
	case "state":
		c.reply <- reply{fasthttp.StatusOK, l.state(now)}
	case "rate":
		c.reply <- l.adminRate(now, c.rate)
	case "set":
		c.reply <- l.adminSet(now, c.path, c.value)
	case "metrics":
		c.reply <- reply{fasthttp.StatusOK, l.targetStates(now)}
	case "add-server":
		c.reply <- fleetReply(l.addServer(now, c.server), c.server)
	case "remove-server":
		c.reply <- fleetReply(l.removeServer(now, c.server.Name), map[string]string{"removed": c.server.Name})
	}
}

func bad(format string) reply {
	return reply{fasthttp.StatusBadRequest, wire.ErrorBody{Error: format, Code: fasthttp.StatusBadRequest}}
}

func (l *loop) adminRate(now clock.Instant, rate float64) reply {
	if l.users > 0 {
		return bad("clients.mode is closed: the load is set by users, not a rate")
	}
	l.lab.Record(labfile.Event{Action: labfile.ActionRate, Rate: rate}) // it replaces a profile
	l.setRate(now, rate)
	l.note.Event("rate")
	l.logAll(now, "rate "+trimFloat(rate))
	return reply{fasthttp.StatusOK, map[string]float64{"rate": rate}}
}

// adminSet applies a dotted-path setting to the run's lab copy and rebuilds
// the client policy, as the simulator's set event does. Paths outside
// clients.* and the hops (network.hop, network.jitter and the links between
// zones: the client -> balancer leg is this process's) belong to other
// processes: accepted and ignored.
// A setting fixed for a run is refused, wherever it belongs.
func (l *loop) adminSet(now clock.Instant, path, value string) reply {
	if why := labfile.FixedAtRunTime(path); why != "" {
		return bad(path + " is fixed for a run (" + why + ")")
	}
	if !strings.HasPrefix(path, "clients.") && !labfile.HopSetting(path) {
		return reply{fasthttp.StatusOK, map[string]any{"path": path, "applied": false}}
	}
	next := l.lab.Clone()
	if err := next.Apply(path, value); err != nil {
		return bad(err.Error())
	}
	if err := l.lab.FixedChange(next, path); err != nil { // clients.algorithm on or off
		return bad(err.Error())
	}
	old := l.lab
	l.lab = next
	if err := l.reconfigure(now, path == "clients.rate"); err != nil {
		l.lab = old
		return bad(err.Error())
	}
	if !l.cfg.HTTP.Plain { // a real service over a real network: nothing to inject
		l.net = assemble.Network(l.lab)
	}
	l.note.Event("set")
	l.logAll(now, "set "+path+"="+value)
	return reply{fasthttp.StatusOK, map[string]any{"path": path, "value": value, "applied": true}}
}

// reconfigure brings the client policies in line with l.lab (the
// simulator's reconfigure, client half). Unlike the simulator it redraws the
// arrivals only when the rate itself was set, so a set does not undo a
// PUT /admin/rate (and never starts arrivals in closed loop).
func (l *loop) reconfigure(now clock.Instant, rate bool) error {
	for _, t := range l.targets {
		cfg, err := assemble.ClientConfig(l.lab)
		if err != nil {
			return err
		}
		t.rt.Reconfigure(cfg)
		if err := t.rebalance(l); err != nil {
			return err
		}
	}
	if rate && l.users == 0 {
		l.setRate(now, l.lab.Clients.Rate)
	}
	return nil
}

// rebalance applies the balancer settings to t's client-side balancers, as
// the simulator does.
func (t *target) rebalance(l *loop) error {
	for i, b := range t.rt.Balancers() {
		if err := b.Reconfigure(assemble.BalancerConfig(l.lab, i)); err != nil {
			return err
		}
	}
	t.algo = l.lab.Clients.Algorithm
	return nil
}

func (l *loop) state(now clock.Instant) State {
	s := State{Mode: "open", Rate: l.stream.RateAt(now), ElapsedS: now.Seconds(), Late: l.late}
	if p := l.lab.Clients.Profile; p != nil {
		s.Profile = p.String()
	}
	if l.users > 0 {
		s.Mode, s.Users, s.Rate = "closed", l.targets[0].rt.UsersAt(now), 0
	}
	for _, t := range l.targets {
		rec := t.rt.Rec
		c := rec.Total
		s.Targets = append(s.Targets, TargetState{Name: t.name, Requests: c.Offered, Pending: t.rt.Pending(),
			Succeeded: c.Succeeded, Failed: c.Failed, Attempts: c.Attempts, Timeouts: c.Timeouts,
			Rejected: c.Rejected, Errors: c.Errors, Retries: c.Retries, Hedges: c.Hedges, Wasted: c.Wasted, Crossed: c.Crossed,
			P50: report.Ms(rec.Lat.Quantile(0.5)), P99: report.Ms(rec.Lat.Quantile(0.99)), Servers: t.presentNames()})
	}
	if l.disc != nil {
		st := l.disc.Status()
		s.Discovery = &st
	}
	return s
}

func (l *loop) logAll(now clock.Instant, text string) {
	for _, t := range l.targets {
		t.logf(now, text)
	}
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
