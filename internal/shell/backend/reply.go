package backend

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/wire"
)

// The answer's headers, as fasthttp stores them (canonical already), so
// setting them skips its key normalization.
var (
	keyServer      = []byte(wire.HServer)
	keyQueueMs     = []byte(wire.HQueueMs)
	keyServiceMs   = []byte(wire.HServiceMs)
	keyReason      = []byte(wire.HReason)
	keyLoadMetrics = []byte(wire.HLoadMetrics)
	keyHit         = []byte(wire.HHit)
)

// writeReply answers code with r's JSON body: the bytes wire.WriteJSON
// writes for it, encoded without reflection (the body of every job's
// answer, so its cost counts: docs/BENCHMARKS.md "The backend next to
// nginx").
func writeReply(ctx *fasthttp.RequestCtx, code int, r *wire.Reply) {
	ctx.SetStatusCode(code)
	ctx.SetContentType("application/json")
	var scratch [256]byte
	ctx.SetBody(append(appendReply(scratch[:0], r), '\n'))
}

// appendReply appends r as encoding/json marshals it.
func appendReply(b []byte, r *wire.Reply) []byte {
	b = append(b, `{"server":`...)
	b = appendJSONString(b, r.Server)
	if r.Balancer != "" {
		b = append(b, `,"balancer":`...)
		b = appendJSONString(b, r.Balancer)
	}
	if r.Request != "" {
		b = append(b, `,"request":`...)
		b = appendJSONString(b, r.Request)
	}
	b = append(b, `,"attempt":`...)
	b = appendJSONString(b, r.Attempt)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(r.Status), 10)
	if r.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, r.Reason)
	}
	b = append(b, `,"queue_ms":`...)
	b = appendJSONFloat(b, r.QueueMs)
	b = append(b, `,"service_ms":`...)
	b = appendJSONFloat(b, r.ServiceMs)
	if r.CacheHit {
		b = append(b, `,"cache_hit":true`...)
	}
	return append(b, '}')
}

// appendJSONString appends s quoted as encoding/json does: printable ASCII
// that needs no escape as it is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONFloat appends f as encoding/json does; f is finite (a
// duration's milliseconds).
func appendJSONFloat(b []byte, f float64) []byte {
	fmtc := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		fmtc = 'e'
	}
	b = strconv.AppendFloat(b, f, fmtc, -1, 64)
	if fmtc == 'e' { // e-09 to e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
