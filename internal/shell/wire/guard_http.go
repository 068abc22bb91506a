package wire

import (
	"encoding/json"
	"net/http"

	"github.com/valyala/fasthttp"
)

// Fasthttp wraps an admin handler: a refused request gets 403 or 401 with
// a JSON body and never reaches h.
func (g *Guard) Fasthttp(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		hd := &ctx.Request.Header
		v := g.judge(call{method: string(ctx.Method()), path: string(ctx.Path()), host: string(hd.Host()),
			origin: string(hd.Peek("Origin")), site: string(hd.Peek("Sec-Fetch-Site")),
			mode: string(hd.Peek("Sec-Fetch-Mode")), dest: string(hd.Peek("Sec-Fetch-Dest")),
			auth: string(hd.Peek("Authorization")), xtoken: string(hd.Peek(HToken)),
			cookie: string(hd.Cookie(TokenCookie)), query: string(ctx.URI().QueryString())})
		switch {
		case v.location != "":
			ctx.Response.Header.Set("Set-Cookie", v.setCookie)
			ctx.Redirect(v.location, fasthttp.StatusSeeOther)
		case v.code != 0:
			if v.code == fasthttp.StatusUnauthorized {
				ctx.Response.Header.Set("WWW-Authenticate", `Bearer realm="lblab"`)
			}
			WriteError(ctx, v.code, "%s", v.msg)
		default:
			h(ctx)
		}
	}
}

// HTTP wraps a net/http admin handler (lab's controller) the same way.
func (g *Guard) HTTP(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := call{method: r.Method, path: r.URL.Path, host: r.Host, origin: r.Header.Get("Origin"),
			site: r.Header.Get("Sec-Fetch-Site"), mode: r.Header.Get("Sec-Fetch-Mode"),
			dest: r.Header.Get("Sec-Fetch-Dest"), auth: r.Header.Get("Authorization"),
			xtoken: r.Header.Get(HToken), query: r.URL.RawQuery}
		if ck, err := r.Cookie(TokenCookie); err == nil {
			c.cookie = ck.Value
		}
		v := g.judge(c)
		switch {
		case v.location != "":
			w.Header().Set("Set-Cookie", v.setCookie)
			http.Redirect(w, r, v.location, http.StatusSeeOther)
		case v.code != 0:
			if v.code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="lblab"`)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(v.code)
			_ = json.NewEncoder(w).Encode(ErrorBody{Error: v.msg, Code: v.code})
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// Authorize makes a request present token to a peer's admin API. The
// processes of one lab share its token (lab up and lab run hand theirs to
// every process they start; compose and Kubernetes set LBLAB_TOKEN on
// each), so each presents its own: the lb to the backends' GET /load and
// POST /admin/cancel, the loadgen to the balancers' and servers' POST
// /admin/cancel. An empty token sends nothing.
func Authorize(h *fasthttp.RequestHeader, token string) {
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
}
