package lb

import (
	"bytes"

	"github.com/valyala/fasthttp"
)

// hopByHop are the header fields that describe one connection, not the
// message, so a proxy does not forward them (RFC 9110 section 7.6.1:
// Connection and the fields it names, Proxy-Connection, Keep-Alive, TE,
// Upgrade; Transfer-Encoding too, which fasthttp handles itself), nor the
// credentials meant for the proxy (Proxy-Authorization) or its challenge
// (Proxy-Authenticate).
var hopByHop = []string{fasthttp.HeaderConnection, "Proxy-Connection", fasthttp.HeaderKeepAlive,
	fasthttp.HeaderTE, fasthttp.HeaderUpgrade, fasthttp.HeaderProxyAuthorization, fasthttp.HeaderProxyAuthenticate}

// header is what stripping needs of a request's or a response's header.
type header interface {
	Peek(key string) []byte
	PeekAll(key string) [][]byte
	Del(key string)
}

// kept are the fields a Connection option may not remove: fasthttp frames
// the message with them.
var kept = [][]byte{[]byte(fasthttp.HeaderHost), []byte(fasthttp.HeaderContentLength),
	[]byte(fasthttp.HeaderTransferEncoding), []byte(fasthttp.HeaderContentType)}

// stripHopByHop removes the hop-by-hop fields from h: those of hopByHop
// and those a Connection field names. Most messages have none, so a look
// (no allocation) comes first.
func stripHopByHop(h header) {
	if !hasHopByHop(h) {
		return
	}
	for _, v := range h.PeekAll(fasthttp.HeaderConnection) {
		for opt := range bytes.SplitSeq(v, []byte{','}) {
			opt = bytes.TrimSpace(opt)
			if len(opt) == 0 || isKept(opt) {
				continue
			}
			h.Del(string(opt))
		}
	}
	for _, name := range hopByHop {
		h.Del(name)
	}
}

func hasHopByHop(h header) bool {
	for _, name := range hopByHop {
		if len(h.Peek(name)) > 0 {
			return true
		}
	}
	return false
}

func isKept(opt []byte) bool {
	for _, k := range kept {
		if bytes.EqualFold(opt, k) {
			return true
		}
	}
	return false
}
