// Package wire is the HTTP contract between lblab's processes (the headers
// are documented in docs/admin-api.md): header names, the reply and error
// bodies, how an answer is classified, JSON helpers for the admin APIs, the
// readiness line and logging.
package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/core/server"
	"github.com/lblab/lblab/internal/shell/state"
)

// Request headers, set by loadgen (and honoured when a user sets them).
const (
	HRequest  = "X-Lab-Request"  // request id
	HClient   = "X-Lab-Client"   // client id
	HKey      = "X-Lab-Key"      // cache / hashing key
	HWork     = "X-Lab-Work"     // work at speed 1, a Go duration such as 12.5ms
	HAttempt  = "X-Lab-Attempt"  // first | retry | hedge | probe
	HTry      = "X-Lab-Try"      // the attempt's number in its request (1, 2, ...): with X-Lab-Request it makes the pick number
	HDeadline = "X-Lab-Deadline" // the client's deadline, unix nanoseconds
	HExclude  = "X-Lab-Exclude"  // a server the balancer must avoid (a hedge's sibling)
	HFault    = "X-Lab-Fault"    // a fault for the backend: status=503:10,delay=50ms:25 (server.ParseFault)
)

// Response headers.
const (
	HServer    = "X-Lab-Server"
	HQueueMs   = "X-Lab-Queue-Ms"
	HServiceMs = "X-Lab-Service-Ms"
	HBalancer  = "X-Lab-Balancer"
	HReason    = "X-Lab-Reason" // why a request was not served (queue-full, limit, ...)
	HHit       = "X-Lab-Cache-Hit"
)

// Reply is the small JSON body of every backend answer.
type Reply struct {
	Server    string  `json:"server"`
	Balancer  string  `json:"balancer,omitempty"`
	Request   string  `json:"request,omitempty"`
	Attempt   string  `json:"attempt"`
	Status    int     `json:"status"`
	Reason    string  `json:"reason,omitempty"`
	QueueMs   float64 `json:"queue_ms"`
	ServiceMs float64 `json:"service_ms"`
	CacheHit  bool    `json:"cache_hit,omitempty"`
}

// ErrorBody is the JSON body of every error: {"error": "...", "code": 400};
// a value out of its range also names its field.
type ErrorBody struct {
	Error string `json:"error"`
	Code  int    `json:"code"`
	Field string `json:"field,omitempty"`
}

// WriteJSON answers with code and v as JSON.
func WriteJSON(ctx *fasthttp.RequestCtx, code int, v any) {
	ctx.SetStatusCode(code)
	ctx.SetContentType("application/json")
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(`{"error":"cannot encode reply","code":500}`)
		ctx.SetStatusCode(fasthttp.StatusInternalServerError)
	}
	ctx.SetBody(append(data, '\n'))
}

// WriteError answers with code and {"error": msg, "code": code}.
func WriteError(ctx *fasthttp.RequestCtx, code int, format string, args ...any) {
	WriteJSON(ctx, code, ErrorBody{Error: fmt.Sprintf(format, args...), Code: code})
}

// Allow reports whether the request's method is one of methods (a HEAD
// is a GET without the body); if not it answers 405 naming them, in the
// body and the Allow header, as every admin API does for a wrong method.
func Allow(ctx *fasthttp.RequestCtx, methods ...string) bool {
	got := string(ctx.Method())
	if slices.Contains(methods, got) || got == fasthttp.MethodHead && slices.Contains(methods, fasthttp.MethodGet) {
		return true
	}
	if slices.Contains(methods, fasthttp.MethodGet) && !slices.Contains(methods, fasthttp.MethodHead) {
		methods = append(slices.Clone(methods), fasthttp.MethodHead)
	}
	allow := strings.Join(methods, ", ")
	ctx.Response.Header.Set("Allow", allow)
	WriteError(ctx, fasthttp.StatusMethodNotAllowed, "%s %s: use %s", got, ctx.Path(), allow)
	return false
}

// Invalid answers 400 for a value out of its range: msg says what is
// allowed ("speed: must be in (0, 100], got 1e+308"), field names it.
func Invalid(ctx *fasthttp.RequestCtx, field, msg string) {
	WriteJSON(ctx, fasthttp.StatusBadRequest, ErrorBody{Error: msg, Code: fasthttp.StatusBadRequest, Field: field})
}

// BadRequest answers 400 with a reason.
func BadRequest(ctx *fasthttp.RequestCtx, format string, args ...any) {
	WriteError(ctx, fasthttp.StatusBadRequest, format, args...)
}

// DecodeJSON strictly decodes the request body into v (state.DecodeStrict: one
// value, no unknown field, no key twice; an empty body is {}); on failure
// it answers 400 naming the problem and returns false.
func DecodeJSON(ctx *fasthttp.RequestCtx, v any) bool {
	body := ctx.PostBody()
	if len(body) == 0 {
		body = []byte("{}")
	}
	if err := state.DecodeStrict(body, v); err != nil {
		BadRequest(ctx, "bad JSON body: %v", err)
		return false
	}
	return true
}

// ParseWork reads an X-Lab-Work value; ok is false when absent or invalid.
func ParseWork(b []byte) (time.Duration, bool) {
	if len(b) == 0 {
		return 0, false
	}
	d, err := time.ParseDuration(string(b))
	if err != nil || d < 0 {
		return 0, false
	}
	return d, true
}

// FormatWork writes a duration for X-Lab-Work.
func FormatWork(d time.Duration) string { return d.String() }

// ParseKind reads an X-Lab-Attempt value (first when absent or unknown).
func ParseKind(b []byte) server.Kind {
	switch string(b) {
	case "retry":
		return server.Retry
	case "hedge":
		return server.Hedge
	case "probe":
		return server.Probe
	}
	return server.First
}

// ParseUint reads a decimal header value; ok is false when absent or invalid.
func ParseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b), 10, 64)
	return v, err == nil
}
