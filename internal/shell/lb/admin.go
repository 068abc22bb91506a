package lb

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// serveAdmin routes the admin API (docs/admin-api-lb.md).
func (l *LB) serveAdmin(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	if name, ok := strings.CutPrefix(path, "/admin/backends/"); ok {
		if wire.Allow(ctx, "DELETE") {
			l.deleteBackend(ctx, name)
		}
		return
	}
	r, ok := l.routes[path]
	if !ok {
		wire.WriteError(ctx, fasthttp.StatusNotFound, "no such endpoint %s (see docs/admin-api-lb.md)", path)
		return
	}
	if wire.Allow(ctx, r.method) {
		r.h(ctx)
	}
}

// route is one admin endpoint.
type route struct {
	method string
	h      fasthttp.RequestHandler
}

func (l *LB) adminRoutes() map[string]route {
	return map[string]route{
		"/healthz":         {"GET", func(ctx *fasthttp.RequestCtx) { wire.WriteJSON(ctx, 200, map[string]bool{"ok": true}) }},
		"/admin/state":     {"GET", func(ctx *fasthttp.RequestCtx) { wire.WriteJSON(ctx, 200, l.State()) }},
		"/admin/events":    {"GET", l.serveEvents},
		"/admin/algorithm": {"PUT", l.putAlgorithm},
		"/admin/settings":  {"PUT", l.putSettings},
		"/admin/set":       {"POST", l.postSet},
		"/admin/backends":  {"POST", l.postBackend},
		"/admin/cancel":    {"POST", l.postCancel},
		wire.IdlePath:      {"POST", l.postIdle},
		wire.IdleQueuePath: {"GET", l.getIdleQueue},
		"/metrics":         {"GET", l.met.Handler()},
	}
}

// reply answers an error by its kind (400, 409, else 500), or v with 200.
func reply(ctx *fasthttp.RequestCtx, err error, v func() any) {
	var bad badInput
	var conflict errConflict
	switch {
	case err == nil:
		wire.WriteJSON(ctx, fasthttp.StatusOK, v())
	case errors.As(err, &bad):
		var field string
		if le := (*labfile.Error)(nil); errors.As(err, &le) {
			field = le.Field
		}
		wire.Invalid(ctx, field, err.Error())
	case errors.As(err, &conflict):
		wire.WriteError(ctx, fasthttp.StatusConflict, "%v", err)
	default:
		wire.WriteError(ctx, fasthttp.StatusInternalServerError, "%v", err)
	}
}

func (l *LB) putAlgorithm(ctx *fasthttp.RequestCtx) {
	var in struct {
		Algorithm string `json:"algorithm"`
	}
	if !wire.DecodeJSON(ctx, &in) {
		return
	}
	if in.Algorithm == "" {
		wire.BadRequest(ctx, "algorithm: required, e.g. {\"algorithm\":\"p2c\"}")
		return
	}
	was := l.Algorithm()
	err := l.change([]change{{"algorithm", "balancers.algorithm", in.Algorithm}})
	reply(ctx, err, func() any { return map[string]string{"algorithm": l.Algorithm(), "previous": was} })
}

func (l *LB) putSettings(ctx *fasthttp.RequestCtx) {
	var in map[string]json.RawMessage
	if !wire.DecodeJSON(ctx, &in) {
		return
	}
	cs, err := settingsChanges(in)
	if err != nil {
		wire.BadRequest(ctx, "%v", err)
		return
	}
	err = l.change(cs)
	reply(ctx, err, func() any { return l.State().Settings })
}

// postSet applies one lab-file path. Paths this process does not own are
// accepted and ignored: the lab controller sends every set to everyone.
func (l *LB) postSet(ctx *fasthttp.RequestCtx) {
	var in struct {
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if !wire.DecodeJSON(ctx, &in) {
		return
	}
	value, ok := scalarText(in.Value)
	switch {
	case in.Path == "":
		wire.BadRequest(ctx, "path: required, e.g. balancers.timeout")
		return
	case !ok:
		wire.BadRequest(ctx, "value: want a string, number or boolean")
		return
	}
	applied := ownsPath(in.Path)
	var err error
	if applied {
		err = l.change([]change{{in.Path, in.Path, value}})
	}
	reply(ctx, err, func() any {
		return map[string]any{"path": in.Path, "value": value, "applied": applied}
	})
}

// scalarText turns a JSON string, number or boolean into lab-file text.
func scalarText(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	switch v.(type) {
	case float64, bool:
		return string(raw), true
	}
	return "", false
}

func (l *LB) postBackend(ctx *fasthttp.RequestCtx) {
	var in BackendSpec
	if !wire.DecodeJSON(ctx, &in) {
		return
	}
	err := l.addBackend(in)
	var conflict errConflict
	if err != nil && !errors.As(err, &conflict) {
		err = badInput{err}
	}
	reply(ctx, err, func() any { return l.backendState(in.Name) })
}

func (l *LB) deleteBackend(ctx *fasthttp.RequestCtx, name string) {
	if !l.removeBackend(name) {
		wire.WriteError(ctx, fasthttp.StatusNotFound, "name: no backend %q", name)
		return
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, map[string]any{"removed": name})
}
