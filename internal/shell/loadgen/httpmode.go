package loadgen

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strings"
)

// Pointing the loadgen at any HTTP service: the request's method, headers
// and body, vegeta's targets file, and --plain (no X-Lab-* headers, no
// injected hop). The client policy (retries, budgets, hedging, deadlines,
// open-loop latency from the intended start) is the same as against lblab's
// own lb.

// HTTP is how every attempt looks on the wire.
type HTTP struct {
	Method string   // "" = GET
	Header []Header // sent with every attempt
	Body   []byte   // nil = none
	// Plain sends no X-Lab-* request headers and injects no network hop:
	// for a service that is not lblab's, over a real network. Answers are
	// classified by status alone (below 500 served, 503 rejected, 504
	// timeout, other 5xx errors), and the servers of the report are the
	// hosts that answered, unless an answer says X-Lab-Server.
	Plain bool
}

func (h HTTP) method() string {
	if h.Method == "" {
		return http.MethodGet
	}
	return h.Method
}

// Header is one request header.
type Header struct{ Name, Value string }

// Request is one entry of a targets file.
type Request struct {
	Method string
	URL    string
	Header []Header
	Body   []byte
}

// Bounds on a targets file.
const (
	maxRequests = 100_000
	maxBody     = 10 << 20
)

// template is an attempt's HTTP request: where it goes and what it says.
type template struct {
	ep     int // endpoint index in the target
	method string
	uri    string
	host   string
	header []Header
	body   []byte
}

// ParseHeader reads a "Name: value" header.
func ParseHeader(s string) (Header, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return Header{}, fmt.Errorf("header %q: want Name: value", s)
	}
	return Header{Name: name, Value: strings.TrimSpace(value)}, nil
}

var (
	requestLine = regexp.MustCompile(`^([A-Z]+)\s+(\S+)$`)
	methodName  = regexp.MustCompile(`^[A-Z]+$`)
)

// ReadTargetsFile reads a targets file in vegeta's text format: a target
// is a line `METHOD URL`, then optional `Name: value` header lines and an
// optional `@path` line naming a file whose content is the body (a relative
// path is taken from the working directory, as vegeta does); blank lines
// and # comments separate targets. Request n of the run goes to target
// n mod (number of targets), a pure function of the request number.
func ReadTargetsFile(path string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Request
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 64<<10)
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", path, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "" || strings.HasPrefix(text, "#"):
		case requestLine.MatchString(text):
			m := requestLine.FindStringSubmatch(text)
			if _, err := parseURL(m[2]); err != nil || !strings.HasPrefix(m[2], "http://") {
				return nil, fail("%q: want an http:// URL (https is not supported)", m[2])
			}
			if len(out) == maxRequests {
				return nil, fail("more than %d targets", maxRequests)
			}
			out = append(out, Request{Method: m[1], URL: m[2]})
		case len(out) == 0:
			return nil, fail("%q: a target starts with a line METHOD URL (GET http://host:port/path)", text)
		case strings.HasPrefix(text, "@"):
			if out[len(out)-1].Body != nil {
				return nil, fail("a second body for the target")
			}
			body, err := readBody(text[1:])
			if err != nil {
				return nil, fail("%v", err)
			}
			out[len(out)-1].Body = body
		default:
			h, err := ParseHeader(text)
			if err != nil {
				return nil, fail("%v (or a METHOD URL line, or @body-file)", err)
			}
			out[len(out)-1].Header = append(out[len(out)-1].Header, h)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %v", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no target in the file", path)
	}
	return out, nil
}

// ReadBody reads a body file (--body, @path in a targets file), at most 10 MiB.
func ReadBody(path string) ([]byte, error) { return readBody(path) }

func readBody(path string) ([]byte, error) {
	if path == "" {
		return nil, errors.New("no body file named")
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxBody {
		return nil, fmt.Errorf("body %s: %d bytes, at most %d", path, st.Size(), maxBody)
	}
	b, err := os.ReadFile(path)
	if b == nil && err == nil {
		b = []byte{}
	}
	return b, err
}

// checkHTTP validates the HTTP settings and the targets file's requests.
func checkHTTP(cfg *Config) error {
	if m := cfg.HTTP.Method; m != "" && !methodName.MatchString(m) {
		return fmt.Errorf("method %q: want an upper-case HTTP method such as GET or POST", m)
	}
	if len(cfg.Requests) > 0 {
		if len(cfg.Targets) > 0 || cfg.clientSide() {
			return errors.New("a targets file names its own URLs: give it without --target, --servers or --servers-dns")
		}
		cfg.Targets = []Target{{Name: "targets"}}
	}
	return nil
}

// templates are the requests of target tc: one per URL, or with a targets
// file one per entry; their endpoints are added to t (one per host:port).
func (l *loop) templates(t *target, tc Target) error {
	h := l.cfg.HTTP
	byAddr := map[string]int{}
	add := func(raw, method string, header []Header, body []byte) error {
		spec, err := parseURL(raw)
		if err != nil {
			return err
		}
		ep, ok := byAddr[spec.addr]
		if !ok || len(l.cfg.Requests) == 0 { // --target URLs stay one endpoint each (client c uses URL c mod n)
			ep = len(t.eps)
			byAddr[spec.addr] = ep
			t.eps = append(t.eps, l.tr.endpoint(raw, spec, l.cfg.Connections))
		}
		t.tmpls = append(t.tmpls, template{ep: ep, method: method, uri: spec.uri, host: spec.host,
			header: append(append([]Header(nil), h.Header...), header...), body: body})
		return nil
	}
	if len(l.cfg.Requests) == 0 {
		for _, u := range tc.URLs {
			if err := add(u, h.method(), nil, h.Body); err != nil {
				return err
			}
		}
		return nil
	}
	t.bySeq = true
	for _, r := range l.cfg.Requests {
		body := r.Body
		if body == nil {
			body = h.Body
		}
		if err := add(r.URL, r.Method, r.Header, body); err != nil {
			return err
		}
	}
	return nil
}
