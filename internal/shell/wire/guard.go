package wire

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The admin token travels in these; the environment variables give the
// defaults of --token and --allow-host.
const (
	TokenEnv     = "LBLAB_TOKEN"
	AllowHostEnv = "LBLAB_ALLOW_HOST"
	HToken       = "X-Lab-Token"
	TokenCookie  = "lblab_token"
	TokenQuery   = "token" // ?token=T on a page: exchanged for the cookie
)

// Access says who may use an admin listener (docs/admin-api.md, "Who may
// call"): browsers only from the listener's own origin, only under a Host
// name the listener was bound to or that is allowed, and, when Token is
// set, only callers that present it.
type Access struct {
	Token string // "" = no token required
	// AllowHosts are further Host names to answer to: NAME (any port),
	// NAME:PORT, or "*" for any (only with a token). Compose and Kubernetes
	// need their service names here (lb:9101).
	AllowHosts []string
}

// NewAccess builds the Access of --token and --allow-host, each taken from
// its environment variable (LBLAB_TOKEN, LBLAB_ALLOW_HOST) when the flag is
// not given, and checks them.
func NewAccess(token string, allowHosts []string) (Access, error) {
	if token == "" {
		token = os.Getenv(TokenEnv)
	}
	if len(allowHosts) == 0 && os.Getenv(AllowHostEnv) != "" {
		allowHosts = []string{os.Getenv(AllowHostEnv)}
	}
	if token != "" {
		if err := CheckToken(token); err != nil {
			return Access{}, err
		}
	}
	hosts, err := ParseAllowHosts(allowHosts)
	return Access{Token: token, AllowHosts: hosts}, err
}

// ParseAllowHosts splits --allow-host values ("a,b" or repeated) into
// entries, refusing malformed ones.
func ParseAllowHosts(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			item = strings.ToLower(strings.TrimSpace(item))
			if item == "" {
				continue
			}
			if item != "*" {
				h, _ := splitHost(item, "")
				if h == "" || strings.ContainsAny(item, "/@?#* ") {
					return nil, fmt.Errorf("--allow-host: %q is not NAME, NAME:PORT or *", item)
				}
			}
			out = append(out, item)
		}
	}
	return out, nil
}

// Check refuses an Access that would leave the listener at addr open to
// anyone who can reach it: a non-loopback address (or "*" in AllowHosts)
// needs a token.
func (a Access) Check(flag, addr string) error {
	if a.Token != "" {
		return nil
	}
	if slices.Contains(a.AllowHosts, "*") {
		return fmt.Errorf("--allow-host *: answering to any Host name needs a token (--token or %s)", TokenEnv)
	}
	if !Loopback(addr) {
		return fmt.Errorf("%s %s: an admin listener on a non-loopback address needs a token (--token or %s)", flag, addr, TokenEnv)
	}
	return nil
}

// Loopback reports whether a listen address binds loopback only: an
// empty or unspecified host is every interface; a name counts as loopback
// only if every address it resolves to is.
func Loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.IsLoopback()
	}
	if host == "" {
		return false
	}
	ips, err := net.LookupIP(host)
	if err != nil || len(ips) == 0 {
		return false
	}
	for _, ip := range ips {
		if !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// Guard applies an Access to one bound listener.
type Guard struct {
	token     []byte
	anyHost   bool
	allow     map[string]bool // "name" (any port) and "name:port"
	boundIP   net.IP
	boundPort string
	noHost    bool // not an IP listener (a Unix socket, a test's pipe): no browser reaches it
}

// NewGuard is the guard of the listener bound at bound.
func NewGuard(a Access, bound net.Addr) *Guard {
	g := &Guard{allow: map[string]bool{}}
	if a.Token != "" {
		g.token = []byte(a.Token)
	}
	for _, h := range a.AllowHosts {
		h = strings.ToLower(h)
		if h == "*" {
			g.anyHost = true
			continue
		}
		if name, port, err := net.SplitHostPort(h); err == nil {
			g.allow[joinHost(strings.TrimSuffix(name, "."), port)] = true
		} else {
			g.allow[hostName(h)] = true
		}
	}
	if tcp, ok := bound.(*net.TCPAddr); ok {
		g.boundIP, g.boundPort = tcp.IP, strconv.Itoa(tcp.Port)
		if g.boundIP == nil {
			g.boundIP = net.IPv6unspecified // ":port" binds every interface
		}
	} else {
		g.noHost = true
	}
	return g
}

// TokenRequired says whether callers must present the token.
func (g *Guard) TokenRequired() bool { return g.token != nil }

// call is what the guard reads of a request.
type call struct {
	method, path, host, origin string
	site, mode, dest           string // Sec-Fetch-Site, -Mode, -Dest
	auth, xtoken, cookie       string // Authorization, X-Lab-Token, the token cookie
	query                      string // the raw query
}

// verdict is the guard's answer: allow (code 0), refuse (code and msg), or
// take a page's ?token= and set it as a cookie (setCookie, redirect to
// location).
type verdict struct {
	code      int
	msg       string
	setCookie string
	location  string
}

// judge decides on one request. Order: the Host (403), the browser origin
// (403), then the token (401).
func (g *Guard) judge(c call) verdict {
	host := normHost(c.host)
	if !g.hostOK(host) {
		return verdict{code: 403, msg: fmt.Sprintf("Host %q is not an address this listener is bound to; "+
			"allow a name with --allow-host (docs/admin-api.md)", c.host)}
	}
	if msg := g.browserRefusal(c, host); msg != "" {
		return verdict{code: 403, msg: msg}
	}
	if g.token == nil || tokenFree(c.method, c.path) {
		return verdict{}
	}
	if g.tokenOK(bearer(c.auth)) || g.tokenOK(c.xtoken) || g.tokenOK(c.cookie) {
		return verdict{}
	}
	if q, err := url.ParseQuery(c.query); err == nil && q.Has(TokenQuery) && (c.method == "GET" || c.method == "HEAD") {
		if !g.tokenOK(q.Get(TokenQuery)) {
			return verdict{code: 401, msg: "wrong token in ?" + TokenQuery + "="}
		}
		q.Del(TokenQuery)
		loc := c.path
		if len(q) > 0 {
			loc += "?" + q.Encode()
		}
		return verdict{setCookie: TokenCookie + "=" + string(g.token) + "; Path=/; HttpOnly; SameSite=Strict", location: loc}
	}
	return verdict{code: 401, msg: "this admin API needs its token: send Authorization: Bearer TOKEN (or " + HToken +
		": TOKEN); in a browser open the page once with ?" + TokenQuery + "=TOKEN"}
}

// tokenFree are the read-only endpoints probes and Prometheus use without
// a token: GET /healthz and GET /metrics.
func tokenFree(method, path string) bool {
	return (method == "GET" || method == "HEAD") && (path == "/healthz" || path == "/metrics")
}

func (g *Guard) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), g.token) == 1
}

func bearer(auth string) string {
	scheme, t, ok := strings.Cut(strings.TrimSpace(auth), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(t)
}

// CheckToken refuses a token too short to guess at or with characters
// that would not survive a header or a cookie.
func CheckToken(t string) error {
	if len(t) < 16 || len(t) > 256 {
		return fmt.Errorf("--token: must be 16 to 256 characters, got %d (try: openssl rand -hex 16)", len(t))
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/=", r)) {
			return fmt.Errorf("--token: use letters, digits and - . _ ~ + / = only")
		}
	}
	return nil
}

// hostOK accepts a Host that names the bound address: its IP (any IP when
// bound to every interface: an address literal cannot be re-pointed by
// DNS), localhost when bound to loopback or everywhere, with the bound
// port; or an allowed name.
func (g *Guard) hostOK(host string) bool {
	if g.noHost || g.anyHost || g.allow[host] {
		return true
	}
	name, port := splitHost(host, "80")
	if g.allow[name] {
		return true
	}
	if g.boundIP == nil || port != g.boundPort {
		return false
	}
	wild := g.boundIP.IsUnspecified()
	if name == "localhost" {
		return wild || g.boundIP.IsLoopback()
	}
	ip := net.ParseIP(name)
	if ip == nil {
		return false
	}
	return wild || ip.Equal(g.boundIP) || ip.IsLoopback() && g.boundIP.IsLoopback()
}

// browserRefusal says why a browser request from another origin is refused
// ("" = not refused). A request with an Origin must come from the page's
// own origin (the Host it asks) or an allowed name. Fetch metadata marks
// what other sites make a browser send without an Origin (images,
// scripts, forms): only a top-level GET navigation is let through, so a
// link to the dashboard still works.
func (g *Guard) browserRefusal(c call, host string) string {
	explicit := false
	if c.origin != "" {
		oh, ok := originHost(c.origin)
		switch {
		case !ok:
			return fmt.Sprintf("Origin %q: a browser request from another origin is refused", c.origin)
		case oh == host:
		case g.anyHost || g.allow[oh] || g.allow[hostName(oh)]:
			explicit = true
		default:
			return fmt.Sprintf("Origin %q: a browser request from another origin is refused "+
				"(this listener answers pages of its own origin, %s, and names given with --allow-host)", c.origin, c.host)
		}
	}
	switch c.site {
	case "", "same-origin", "none":
		return ""
	}
	if explicit {
		return ""
	}
	if c.mode == "navigate" && (c.method == "GET" || c.method == "HEAD") && (c.dest == "document" || c.dest == "") {
		return ""
	}
	return fmt.Sprintf("Sec-Fetch-Site %q: a %s request another site made the browser send is refused", c.site, c.method)
}

// originHost is an Origin's host:port (the scheme's port when none), lower
// case; ok is false for "null" and anything not an http(s) origin.
func originHost(origin string) (string, bool) {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", false
	}
	def := "80"
	if u.Scheme == "https" {
		def = "443"
	}
	name, port := splitHost(normHost(u.Host), def)
	return joinHost(name, port), true
}

// normHost is a Host header lower-cased, without a trailing dot, with the
// port (80 when none).
func normHost(h string) string {
	name, port := splitHost(strings.ToLower(strings.TrimSpace(h)), "80")
	return joinHost(name, port)
}

func hostName(h string) string { n, _ := splitHost(h, ""); return n }

// splitHost splits host[:port] ([v6]:port, bare v6 too); port is def when
// absent.
func splitHost(h, def string) (name, port string) {
	if n, p, err := net.SplitHostPort(h); err == nil {
		name, port = n, p
	} else {
		name, port = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), def
	}
	return strings.TrimSuffix(name, "."), port
}

func joinHost(name, port string) string {
	if port == "" {
		return name
	}
	return net.JoinHostPort(name, port)
}
