package wire

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

func addr(s string) net.Addr {
	a, err := net.ResolveTCPAddr("tcp", s)
	if err != nil {
		panic(err)
	}
	return a
}

const tok = "0123456789abcdef0123"

// TestGuardJudge is the guard's whole decision table: the Host against the
// bound address and the allow-list, the browser's origin and fetch
// metadata, and the token.
func TestGuardJudge(t *testing.T) {
	loop := NewGuard(Access{}, addr("127.0.0.1:8000"))
	wild := NewGuard(Access{Token: tok, AllowHosts: []string{"lb:9101", "dash"}}, addr("0.0.0.0:9101"))
	anyHost := NewGuard(Access{Token: tok, AllowHosts: []string{"*"}}, addr("0.0.0.0:9101"))
	post := func(host string) call { return call{method: "POST", path: "/admin/slow", host: host} }
	with := func(c call, f func(*call)) call { f(&c); return c }
	cases := []struct {
		name string
		g    *Guard
		c    call
		code int
	}{
		{"own address", loop, post("127.0.0.1:8000"), 0},
		{"localhost", loop, post("localhost:8000"), 0},
		{"localhost upper case, trailing dot", loop, post("LocalHost.:8000"), 0},
		{"ipv6 loopback", loop, post("[::1]:8000"), 0},
		{"rebinding name", loop, post("evil.example:8000"), 403},
		{"rebinding name, no port", loop, post("evil.example"), 403},
		{"other port", loop, post("127.0.0.1:8001"), 403},
		{"no Host", loop, post(""), 403},
		{"cross-site POST", loop, with(post("127.0.0.1:8000"), func(c *call) {
			c.origin, c.site = "http://evil.example", "cross-site"
		}), 403},
		{"cross-site POST, no fetch metadata", loop, with(post("127.0.0.1:8000"), func(c *call) { c.origin = "http://evil.example" }), 403},
		{"Origin null", loop, with(post("127.0.0.1:8000"), func(c *call) { c.origin = "null" }), 403},
		{"other localhost port", loop, with(post("127.0.0.1:8000"), func(c *call) {
			c.origin, c.site = "http://127.0.0.1:3000", "same-site"
		}), 403},
		{"same origin", loop, with(post("127.0.0.1:8000"), func(c *call) {
			c.origin, c.site = "http://127.0.0.1:8000", "same-origin"
		}), 0},
		{"cross-site image, no Origin", loop, call{method: "GET", path: "/api/state", host: "127.0.0.1:8000",
			site: "cross-site", mode: "no-cors", dest: "image"}, 403},
		{"a link to the dashboard", loop, call{method: "GET", path: "/", host: "127.0.0.1:8000",
			site: "cross-site", mode: "navigate", dest: "document"}, 0},
		{"a form POST navigation", loop, with(post("127.0.0.1:8000"), func(c *call) {
			c.site, c.mode, c.dest = "cross-site", "navigate", "document"
		}), 403},
		{"typed in the address bar", loop, call{method: "GET", path: "/", host: "127.0.0.1:8000", site: "none", mode: "navigate"}, 0},

		{"wildcard bind, any address literal", wild, with(post("10.1.2.3:9101"), func(c *call) { c.auth = "Bearer " + tok }), 0},
		{"wildcard bind, allowed name", wild, with(post("lb:9101"), func(c *call) { c.auth = "Bearer " + tok }), 0},
		{"wildcard bind, allowed name, any port", wild, with(post("dash:8000"), func(c *call) { c.xtoken = tok }), 0},
		{"wildcard bind, allowed name, other port", wild, with(post("lb:9999"), func(c *call) { c.auth = "Bearer " + tok }), 403},
		{"wildcard bind, unknown name", wild, with(post("evil.example:9101"), func(c *call) { c.auth = "Bearer " + tok }), 403},
		{"no token", wild, post("lb:9101"), 401},
		{"wrong token", wild, with(post("lb:9101"), func(c *call) { c.auth = "Bearer " + tok + "x" }), 401},
		{"token as cookie", wild, with(post("lb:9101"), func(c *call) { c.cookie = tok }), 0},
		{"token scheme not bearer", wild, with(post("lb:9101"), func(c *call) { c.auth = "Basic " + tok }), 401},
		{"metrics without a token", wild, call{method: "GET", path: "/metrics", host: "lb:9101"}, 0},
		{"healthz without a token", wild, call{method: "GET", path: "/healthz", host: "10.0.0.5:9101"}, 0},
		{"metrics from an unknown Host", wild, call{method: "GET", path: "/metrics", host: "evil.example:9101"}, 403},
		{"POST healthz still needs the token", wild, call{method: "POST", path: "/healthz", host: "lb:9101"}, 401},
		{"allowed origin", wild, with(post("lb:9101"), func(c *call) {
			c.origin, c.site, c.auth = "http://dash:8000", "cross-site", "Bearer "+tok
		}), 0},
		{"any host", anyHost, with(post("whatever.internal:1"), func(c *call) { c.auth = "Bearer " + tok }), 0},
		{"any host, any origin, still the token", anyHost, with(post("whatever.internal:1"), func(c *call) { c.origin = "http://evil.example" }), 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.g.judge(tc.c)
			if v.code != tc.code || v.location != "" {
				t.Fatalf("judge(%+v) = %+v, want code %d", tc.c, v, tc.code)
			}
			if v.code != 0 && v.msg == "" {
				t.Fatal("a refusal without a reason")
			}
		})
	}
}

// TestGuardTokenLink: ?token= on a page sets the cookie and redirects to
// the page without it; a wrong one is refused.
func TestGuardTokenLink(t *testing.T) {
	g := NewGuard(Access{Token: tok}, addr("127.0.0.1:8000"))
	v := g.judge(call{method: "GET", path: "/", host: "127.0.0.1:8000", query: "token=" + tok + "&x=1"})
	if v.location != "/?x=1" || !strings.HasPrefix(v.setCookie, TokenCookie+"="+tok+";") ||
		!strings.Contains(v.setCookie, "HttpOnly") || !strings.Contains(v.setCookie, "SameSite=Strict") {
		t.Fatalf("got %+v", v)
	}
	if v := g.judge(call{method: "GET", path: "/", host: "127.0.0.1:8000", query: "token=nope"}); v.code != 401 {
		t.Fatalf("wrong token: %+v", v)
	}
	if v := g.judge(call{method: "POST", path: "/api/chaos", host: "127.0.0.1:8000", query: "token=" + tok}); v.code != 401 {
		t.Fatalf("a POST may not carry the token in its URL: %+v", v)
	}
}

func TestAccessCheck(t *testing.T) {
	cases := []struct {
		a    Access
		addr string
		ok   bool
	}{
		{Access{}, "127.0.0.1:0", true},
		{Access{}, "localhost:9000", true},
		{Access{}, "[::1]:9000", true},
		{Access{}, "0.0.0.0:9100", false},
		{Access{}, ":9100", false},
		{Access{}, "10.0.0.1:9100", false},
		{Access{Token: tok}, "0.0.0.0:9100", true},
		{Access{AllowHosts: []string{"lb"}}, "127.0.0.1:0", true},
		{Access{AllowHosts: []string{"*"}}, "127.0.0.1:0", false},
		{Access{Token: tok, AllowHosts: []string{"*"}}, "127.0.0.1:0", true},
	}
	for _, tc := range cases {
		if err := tc.a.Check("--admin", tc.addr); (err == nil) != tc.ok {
			t.Errorf("%+v at %s: err %v, want ok %v", tc.a, tc.addr, err, tc.ok)
		}
	}
}

func TestNewAccess(t *testing.T) {
	t.Setenv(TokenEnv, tok)
	t.Setenv(AllowHostEnv, "lb:9101, S1")
	a, err := NewAccess("", nil)
	if err != nil || a.Token != tok || strings.Join(a.AllowHosts, ",") != "lb:9101,s1" {
		t.Fatalf("from the environment: %+v, %v", a, err)
	}
	if a, err = NewAccess("", []string{"x", "y:1"}); err != nil || strings.Join(a.AllowHosts, ",") != "x,y:1" {
		t.Fatalf("a flag overrides the environment: %+v, %v", a, err)
	}
	for _, bad := range []string{"short", strings.Repeat("a", 20) + " b", strings.Repeat("a", 300)} {
		if _, err := NewAccess(bad, nil); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
	for _, bad := range []string{"http://x", "a/b", "*.example", "user@host"} {
		if _, err := NewAccess("", []string{bad}); err == nil {
			t.Errorf("--allow-host %q accepted", bad)
		}
	}
}

// TestGuardAdapters runs the two adapters on real requests: a cross-site
// POST and a rebinding Host are refused with a JSON body and never reach
// the handler.
func TestGuardAdapters(t *testing.T) {
	reached := 0
	g := NewGuard(Access{Token: tok}, addr("127.0.0.1:8000"))
	h := g.HTTP(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached++ }))
	send := func(host, origin, token string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("POST", "http://127.0.0.1:8000/api/chaos", strings.NewReader(`{}`))
		r.Host = host
		r.Header.Set("Content-Type", "text/plain")
		if origin != "" {
			r.Header.Set("Origin", origin)
			r.Header.Set("Sec-Fetch-Site", "cross-site")
		}
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	if w := send("127.0.0.1:8000", "http://evil.example", tok); w.Code != 403 || !strings.Contains(w.Body.String(), `"code":403`) {
		t.Fatalf("cross-site: %d %s", w.Code, w.Body)
	}
	if w := send("evil.example:8000", "", tok); w.Code != 403 {
		t.Fatalf("rebinding: %d %s", w.Code, w.Body)
	}
	if w := send("127.0.0.1:8000", "", ""); w.Code != 401 || w.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("no token: %d %s", w.Code, w.Body)
	}
	if reached != 0 {
		t.Fatalf("refused requests reached the handler %d times", reached)
	}
	if w := send("127.0.0.1:8000", "", tok); w.Code != 200 || reached != 1 {
		t.Fatalf("good request: %d, reached %d", w.Code, reached)
	}

	fh := g.Fasthttp(func(ctx *fasthttp.RequestCtx) { reached++ })
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("POST")
	ctx.Request.SetRequestURI("/admin/slow")
	ctx.Request.Header.SetHost("127.0.0.1:8000")
	ctx.Request.Header.Set("Origin", "http://evil.example")
	ctx.Request.Header.Set("Authorization", "Bearer "+tok)
	fh(&ctx)
	if ctx.Response.StatusCode() != 403 || reached != 1 {
		t.Fatalf("fasthttp cross-site: %d, reached %d", ctx.Response.StatusCode(), reached)
	}
	ctx.Request.Header.Del("Origin")
	ctx.Response.Reset()
	fh(&ctx)
	if ctx.Response.StatusCode() != 200 || reached != 2 {
		t.Fatalf("fasthttp good: %d, reached %d", ctx.Response.StatusCode(), reached)
	}
}
