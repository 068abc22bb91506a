package backend

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/assemble"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/limit"
	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/wire"
)

// adminLimiter replaces the concurrency limiter (a fresh one: it learns anew).
func (b *Backend) adminLimiter(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Kind    string `json:"kind"`
		Initial int    `json:"initial"`
		Min     int    `json:"min"`
		Max     int    `json:"max"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	if req.Kind != "none" && !slices.Contains(limit.Kinds, req.Kind) {
		wire.BadRequest(ctx, "kind: required, one of none, %s; got %q", strings.Join(limit.Kinds, ", "), req.Kind)
		return false
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"initial", req.Initial}, {"min", req.Min}, {"max", req.Max}} {
		if f.v > labfile.Bounds.Limit.Max { // the lower bounds are the limiter's own (below)
			return inBounds(ctx, labfile.Bounds.Limit.Check(f.name, f.v))
		}
	}
	var spec limit.Spec
	if req.Kind != "none" {
		b.mu.Lock()
		spec = limit.Spec{Kind: req.Kind, Initial: req.Initial, Min: req.Min, Max: req.Max,
			MeanService: b.lab.ServerWork(b.spec.Server).Mean()}
		b.mu.Unlock()
	}
	lim, err := limit.New(spec)
	if err != nil {
		// limit's messages name Initial, Min and Max: the JSON fields.
		wire.BadRequest(ctx, "limiter: %s", strings.ToLower(err.Error()))
		return false
	}
	return b.change(ctx, func(now clock.Instant) { b.setLimitLocked(now, spec, lim) })
}

func (b *Backend) setLimitLocked(now clock.Instant, spec limit.Spec, lim limit.Limit) {
	b.core.SetLimit(now, lim)
	b.limiter = spec
}

// adminQueue changes the queue; fields left out keep their value.
func (b *Backend) adminQueue(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Capacity    *int                `json:"capacity"`
		Discipline  *labfile.Discipline `json:"discipline"`
		DropExpired *bool               `json:"drop_expired"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	if req.Capacity != nil && !inBounds(ctx, labfile.Bounds.QueueCapacity.Check("capacity", *req.Capacity)) {
		return false
	}
	if d := req.Discipline; d != nil && *d != labfile.FIFO && *d != labfile.LIFO {
		wire.BadRequest(ctx, "discipline: must be fifo or lifo; got %q", *req.Discipline)
		return false
	}
	return b.change(ctx, func(now clock.Instant) {
		q := b.queue
		if req.Capacity != nil {
			q.capacity = *req.Capacity
		}
		if req.Discipline != nil {
			q.lifo = *req.Discipline == labfile.LIFO
		}
		if req.DropExpired != nil {
			q.dropExpired = *req.DropExpired
		}
		b.setQueueLocked(now, q)
	})
}

func (b *Backend) setQueueLocked(now clock.Instant, q queueSettings) {
	_ = b.core.SetQueue(now, q.capacity, q.lifo, q.dropExpired) // capacity is checked against labfile.Bounds
	b.queue = q
}

// SetResult is the answer to POST /admin/set.
type SetResult struct {
	Path  string `json:"path"`
	Value string `json:"value"`
	// Applied lists this server's settings the change altered, each
	// carried out on the running server (assemble.ServerSettings, the
	// table the simulator applies a set event from). A setting a running
	// lab cannot change is refused (400) instead.
	Applied []string `json:"applied"`
}

// adminSet applies a lab-file dotted path to the process's lab copy and
// re-applies this server's settings that the path changed.
func (b *Backend) adminSet(ctx *fasthttp.RequestCtx) bool {
	var req struct {
		Path  string          `json:"path"`
		Value json.RawMessage `json:"value"`
	}
	if !wire.DecodeJSON(ctx, &req) {
		return false
	}
	value, err := scalarText(req.Value)
	if req.Path == "" || err != nil {
		wire.BadRequest(ctx, "path and value: required, e.g. {\"path\":\"servers.queue.capacity\",\"value\":\"20\"}")
		return false
	}
	var res SetResult
	b.apply(func(now clock.Instant, out []server.Reply) []server.Reply {
		res, err = b.setLocked(now, req.Path, value)
		return out
	})
	if err != nil {
		wire.BadRequest(ctx, "%v", err)
		return false
	}
	wire.WriteJSON(ctx, fasthttp.StatusOK, res)
	return true
}

// setLocked does adminSet's work: all checks first, then the changes,
// through assemble.ApplyServer as the simulator's set event does.
func (b *Backend) setLocked(now clock.Instant, path, value string) (SetResult, error) {
	res := SetResult{Path: path, Value: value, Applied: []string{}}
	lab := b.lab.Clone()
	if err := lab.Apply(path, value); err != nil {
		return res, err
	}
	if err := b.lab.FixedChange(lab, path); err != nil {
		return res, err
	}
	ns, err := FindServer(lab, b.cfg.Server)
	if err != nil {
		return res, fmt.Errorf("%s: after this change %v", path, err)
	}
	applied, err := assemble.ApplyServer(b.core, now, lab, b.spec, ns) // builds the config first: a bad limiter changes nothing
	if err != nil {
		return res, fmt.Errorf("%s: %w", path, err)
	}
	res.Applied = applied
	if slices.Contains(applied, "queue") {
		b.queue = queueSettings{capacity: ns.Queue.Capacity, lifo: ns.Queue.Discipline == labfile.LIFO, dropExpired: ns.DropExpired}
	}
	if slices.Contains(applied, "limiter") {
		b.limiter = assemble.LimitSpec(lab, ns)
	}
	// The server -> balancer hop is this process's leg of network.hop and
	// jitter; one given on the command line instead of the lab's stays.
	if n := lab.Network; b.cfg.Hop == b.lab.Network.Hop && n.Hop != b.cfg.Hop {
		b.cfg.Hop = n.Hop
		res.Applied = append(res.Applied, "hop")
	}
	if n := lab.Network; b.cfg.Jitter == b.lab.Network.Jitter && n.Jitter != b.cfg.Jitter {
		b.cfg.Jitter = n.Jitter
		res.Applied = append(res.Applied, "jitter")
	}
	b.lab, b.spec = lab, ns
	b.zones.Store(assemble.Zones(lab))
	return res, nil
}

// scalarText is a set value as text: a JSON string, number or boolean.
func scalarText(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v := v.(type) {
	case string:
		return v, nil
	case float64, bool:
		return string(raw), nil
	}
	return "", fmt.Errorf("not a string, number or boolean")
}
