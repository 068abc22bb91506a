package backend

import (
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// action is one POST /admin/... endpoint: it decodes and checks its body,
// answering 400 and changing nothing on bad input, and returns false then.
type action func(b *Backend, ctx *fasthttp.RequestCtx) bool

var actions = map[string]action{
	"/admin/slow":    (*Backend).adminSlow,
	"/admin/restore": (*Backend).adminRestore,
	"/admin/gc":      (*Backend).adminGC,
	"/admin/fail":    (*Backend).adminFail,
	"/admin/recover": (*Backend).adminRecover,
	"/admin/errors":  (*Backend).adminErrors,
	"/admin/kill":    (*Backend).adminKill,
	"/admin/restart": (*Backend).adminRestart,
	"/admin/limiter": (*Backend).adminLimiter,
	"/admin/queue":   (*Backend).adminQueue,
	"/admin/set":     (*Backend).adminSet,
	"/admin/cancel":  (*Backend).adminCancel,
}

// serveAdmin routes the admin API. Actions answer with the new state
// (except set and cancel, which say what they did).
func (b *Backend) serveAdmin(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch path {
	case "/healthz":
		wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]string{"status": "ok", "server": b.cfg.Name})
		return
	case "/admin/state", "/load", "/metrics":
		if !ctx.IsGet() && !ctx.IsHead() {
			wire.WriteError(ctx, fasthttp.StatusMethodNotAllowed, "%s takes GET", path)
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
	if !ctx.IsPost() {
		wire.WriteError(ctx, fasthttp.StatusMethodNotAllowed, "%s takes POST", path)
		return
	}
	if act(b, ctx) {
		b.note.Event(eventKind(path))
		lvl := zap.InfoLevel
		if path == "/admin/cancel" {
			lvl = zap.DebugLevel // routine hedge traffic, not a chaos action
		}
		if ce := b.log.Check(lvl, "admin"); ce != nil {
			ce.Write(zap.String("action", path), zap.ByteString("body", ctx.PostBody()))
		}
	}
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

func (b *Backend) adminSlow(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Speed *float64 `json:"speed"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	if req.Speed == nil {
		wire.BadRequest(ctx, "speed: required, a number in %s (1 = normal, 0.25 = quarter speed)", labfile.Bounds.Speed)
		return false
	}
	if !inBounds(ctx, labfile.Bounds.Speed.Check("speed", *req.Speed)) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) { _ = b.core.SetSpeed(now, *req.Speed) })
}

func (b *Backend) adminRestore(ctx *fasthttp.RequestCtx) bool {
	if !decodeEmpty(ctx) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) { _ = b.core.SetSpeed(now, b.spec.Speed) })
}

func (b *Backend) adminGC(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Pause string `json:"pause"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	d, err := time.ParseDuration(req.Pause)
	if err != nil {
		wire.BadRequest(ctx, "pause: required, a duration %s like 300ms; got %q", labfile.Bounds.Pause, req.Pause)
		return false
	}
	if !inBounds(ctx, labfile.Bounds.Pause.Check("pause", d)) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) { b.core.Pause(now, d) })
}

func (b *Backend) adminFail(ctx *fasthttp.RequestCtx) bool {
	if !decodeEmpty(ctx) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) { b.core.SetFail(now, true) })
}

// adminRecover ends fail mode and puts back the configured error share.
func (b *Backend) adminRecover(ctx *fasthttp.RequestCtx) bool {
	if !decodeEmpty(ctx) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) {
		b.core.SetFail(now, false)
		_ = b.core.SetErrors(now, b.spec.Errors)
	})
}

func (b *Backend) adminErrors(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Share *float64 `json:"share"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	if req.Share == nil {
		wire.BadRequest(ctx, "share: required, a number %s (0.1 = 10%% fast 500s)", labfile.Bounds.Share)
		return false
	}
	if !inBounds(ctx, labfile.Bounds.Share.Check("share", *req.Share)) {
		return false
	}
	return b.change(ctx, func(now clock.Instant) { _ = b.core.SetErrors(now, *req.Share) })
}

func (b *Backend) adminKill(ctx *fasthttp.RequestCtx) bool {
	if !decodeEmpty(ctx) {
		return false
	}
	if err := b.Kill(); err != nil {
		wire.WriteError(ctx, fasthttp.StatusServiceUnavailable, "%v", err)
		return false
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, b.State())
	return true
}

func (b *Backend) adminRestart(ctx *fasthttp.RequestCtx) bool {
	if !decodeEmpty(ctx) {
		return false
	}
	if err := b.Restart(); err != nil {
		wire.WriteError(ctx, fasthttp.StatusInternalServerError, "%v", err)
		return false
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, b.State())
	return true
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

// decodeEmpty accepts an empty body or {} and rejects any field.
func decodeEmpty(ctx *fasthttp.RequestCtx) bool {
	var req struct{}
	return wire.DecodeJSON(ctx, &req)
}

// inBounds answers 400 naming the field when e (a value out of the range
// labfile.Bounds gives it: the lab file's own) is not nil.
func inBounds(ctx *fasthttp.RequestCtx, e *labfile.Error) bool {
	if e != nil {
		wire.Invalid(ctx, e.Field, e.Error())
	}
	return e == nil
}
