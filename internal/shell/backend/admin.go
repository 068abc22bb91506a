package backend

import (
	"errors"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// action is one POST /admin/... endpoint: it decodes and checks its body,
// answering 400 and changing nothing on bad input, and returns false then;
// kind is what it did, its lblab_events_total kind.
type action func(b *Backend, ctx *fasthttp.RequestCtx) (kind string, ok bool)

var actions = map[string]action{
	"/admin/drill":     (*Backend).adminDrill,
	"/admin/limiter":   named("limiter", (*Backend).adminLimiter),
	"/admin/queue":     named("queue", (*Backend).adminQueue),
	"/admin/set":       named("set", (*Backend).adminSet),
	"/admin/cancel":    named("cancel", (*Backend).adminCancel),
	wire.BalancersPath: named("balancers", (*Backend).adminBalancers),
}

// named is an endpoint that does one kind of thing.
func named(kind string, f func(*Backend, *fasthttp.RequestCtx) bool) action {
	return func(b *Backend, ctx *fasthttp.RequestCtx) (string, bool) { return kind, f(b, ctx) }
}

// eventKinds are the lblab_events_total kinds: every drill on a server, and
// the other endpoints'.
func eventKinds() []string {
	var kinds []string
	for _, d := range labfile.ServerDrills() {
		kinds = append(kinds, string(d.Action))
	}
	return append(kinds, "limiter", "queue", "set", "cancel", "balancers")
}

// serveAdmin routes the admin API. Actions answer with the new state
// (except set and cancel, which say what they did).
func (b *Backend) serveAdmin(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch path {
	case "/healthz":
		if wire.Allow(ctx, fasthttp.MethodGet) {
			wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]string{"status": "ok", "server": b.cfg.Name})
		}
		return
	case "/admin/state", "/load", "/metrics":
		if !wire.Allow(ctx, fasthttp.MethodGet) {
			return
		}
		switch path {
		case "/load":
			wire.WriteJSON(ctx, fasthttp.StatusOK, b.load())
		case "/metrics":
			b.met.Handler()(ctx)
		default:
			wire.WriteJSON(ctx, fasthttp.StatusOK, b.State())
		}
		return
	}
	act, ok := actions[path]
	if !ok {
		wire.WriteError(ctx, fasthttp.StatusNotFound, "no such endpoint %s", path)
		return
	}
	if !wire.Allow(ctx, fasthttp.MethodPost) {
		return
	}
	if kind, ok := act(b, ctx); ok {
		b.note.Event(kind)
		lvl := zap.InfoLevel
		if kind == "cancel" {
			lvl = zap.DebugLevel // routine hedge traffic, not a chaos action
		}
		if ce := b.log.Check(lvl, "admin"); ce != nil {
			ce.Write(zap.String("action", path), zap.ByteString("body", ctx.PostBody()))
		}
	}
}

// adminDrill applies a drill to this server: the event JSON of a lab
// file's script event, a drill on servers (labfile.CheckServerDrill).
func (b *Backend) adminDrill(ctx *fasthttp.RequestCtx) (string, bool) {
	var ev labfile.Event
	if !wire.DecodeJSON(ctx, &ev) {
		return "", false
	}
	d, err := labfile.CheckServerDrill(ev, b.cfg.Name, b.cfg.Server)
	if err != nil {
		e, _ := errors.AsType[*labfile.Error](err)
		wire.Invalid(ctx, e.Field, e.Error())
		return "", false
	}
	if err := b.Drill(d, ev); err != nil {
		code := fasthttp.StatusInternalServerError
		if errors.Is(err, errClosed) {
			code = fasthttp.StatusServiceUnavailable
		}
		wire.WriteError(ctx, code, "%v", err)
		return "", false
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, b.State())
	return string(d.Action), true
}

// Drill applies drill d to the server now: Drill.Apply on the core (with
// this server's lab settings, what restore and recover go back to), then,
// for a drill that takes the server down or brings it up, the data
// listener closed or opened again. A kill's lost jobs have their
// connections reset.
func (b *Backend) Drill(d *labfile.Drill, ev labfile.Event) error {
	if d.Down || d.Up {
		b.life.Lock()
		defer b.life.Unlock()
		if b.closed {
			return errClosed
		}
	}
	var err error
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		out, err = d.Apply(b.core, b.spec.Server, ev, now, out)
		return out
	})
	switch {
	case err != nil:
		return err
	case d.Down:
		b.closeData()
	case d.Up:
		return b.openData()
	}
	return nil
}

// adminCancel removes the queued jobs of X-Lab-Request id (hedge losers),
// only those of one attempt kind when "attempt" is given; jobs in service
// are left alone.
func (b *Backend) adminCancel(ctx *fasthttp.RequestCtx) bool {
	req, ok := wire.DecodeCancel(ctx)
	if !ok {
		return false
	}
	kind, only := req.Kind()
	res := cancelResult{ID: *req.ID, Cancelled: b.cancelRequest(*req.ID, kind, only)}
	if only {
		res.Attempt = kind.String()
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, res)
	return true
}

// cancelResult is the answer of POST /admin/cancel.
type cancelResult struct {
	ID        uint64 `json:"id"`
	Attempt   string `json:"attempt,omitempty"` // the filter, when one was given
	Cancelled int    `json:"cancelled"`
}

// change runs a setter on the core and answers with the new state.
func (b *Backend) change(ctx *fasthttp.RequestCtx, f func(now clock.Instant)) bool {
	var st State
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		f(now)
		out = b.core.Advance(now, out) // the state below must include what f caused
		st = b.stateLocked(now)
		return out
	})
	wire.WriteJSON(ctx, fasthttp.StatusOK, st)
	return true
}

// inBounds answers 400 naming the field when e (a value out of the range
// labfile.Bounds gives it: the lab file's own) is not nil.
func inBounds(ctx *fasthttp.RequestCtx, e *labfile.Error) bool {
	if e != nil {
		wire.Invalid(ctx, e.Field, e.Error())
	}
	return e == nil
}
