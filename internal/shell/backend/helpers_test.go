package backend

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/textproto"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
	"go.uber.org/goleak"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/pace"
	"github.com/lblab/lblab/internal/shell/wire"
)

func TestMain(m *testing.M) {
	// fasthttp's worker-pool cleaner sleeps this long before it notices a
	// shutdown; keep it short so goleak does not see it linger.
	maxIdleWorker = 10 * time.Millisecond
	goleak.VerifyTestMain(m,
		// the idle announcements' client (a test that announces to real
		// sockets): its idle-connection and host cleaners exit up to 10 s
		// after its last connection, the default dialer's address cleaner
		// never.
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*HostClient).connsCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*Client).mCleaner"),
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.(*TCPDialer).tcpAddrsClean"))
}

// memNet hands out in-memory listeners by name, so a restart can re-listen
// on the same "address".
type memNet struct {
	mu  sync.Mutex
	lns map[string]*fasthttputil.InmemoryListener
}

type memAddr string

func (a memAddr) Network() string { return "memory" }
func (a memAddr) String() string  { return string(a) }

func (n *memNet) listen(addr string) (net.Listener, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	ln := fasthttputil.NewInmemoryListener()
	ln.SetLocalAddr(memAddr(addr))
	n.lns[addr] = ln
	return ln, nil
}

func (n *memNet) dial(addr string) (net.Conn, error) {
	n.mu.Lock()
	ln := n.lns[addr]
	n.mu.Unlock()
	return ln.Dial()
}

// labWith is the default lab with the given dotted-path settings.
func labWith(t *testing.T, kv ...string) *labfile.Lab {
	t.Helper()
	lab := labfile.Default()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := lab.Apply(kv[i], kv[i+1]); err != nil {
			t.Fatalf("lab %s=%s: %v", kv[i], kv[i+1], err)
		}
	}
	return lab
}

// startMem starts a backend for s1 of lab on in-memory listeners "data"
// and "admin", with a 5ms hop, shut down when the test ends. Its waits are
// Go's timers (pace.Runtime): the synctest bubble's fake clock moves only those.
func startMem(t *testing.T, lab *labfile.Lab) (*Backend, *memNet) {
	t.Helper()
	return startMemWith(t, Config{Lab: lab, Name: "s1", Hop: 5 * time.Millisecond, Waits: pace.Runtime})
}

// startMemWith starts a backend of cfg as startMem does, on its own
// in-memory listeners "data" and "admin".
func startMemWith(t *testing.T, cfg Config) (*Backend, *memNet) {
	t.Helper()
	n := &memNet{lns: map[string]*fasthttputil.InmemoryListener{}}
	cfg.Addr, cfg.Admin, cfg.Listen = "data", "admin", n.listen
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Shutdown(context.Background()); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		// fasthttp's worker-pool cleaner notices the shutdown only after its
		// sleep; the bubble's clock stops when the test's goroutine ends, so
		// let (fake) time pass here.
		time.Sleep(time.Second)
	})
	return b, n
}

// result is one answer seen by a test client.
type result struct {
	code    int
	headers map[string]string
	body    []byte
	err     error // a connection error instead of an answer
	took    time.Duration
}

func (r result) header(name string) string { return r.headers[textproto.CanonicalMIMEHeaderKey(name)] }

// do sends one request on a fresh connection from dial and reads the answer.
func do(dial func() (net.Conn, error), method, path string, body string, hdr ...string) result {
	start := time.Now()
	c, err := dial()
	if err != nil {
		return result{err: err}
	}
	defer c.Close()
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	req.Header.SetMethod(method)
	req.SetRequestURI(path)
	req.Header.SetHost("backend")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if body != "" {
		req.SetBodyString(body)
	}
	w := bufio.NewWriter(c)
	if err := req.Write(w); err != nil {
		return result{err: err}
	}
	if err := w.Flush(); err != nil {
		return result{err: err}
	}
	var resp fasthttp.Response
	if err := resp.Read(bufio.NewReader(c)); err != nil {
		return result{err: err, took: time.Since(start)}
	}
	r := result{code: resp.StatusCode(), headers: map[string]string{}, body: append([]byte(nil), resp.Body()...), took: time.Since(start)}
	for k, v := range resp.Header.All() {
		r.headers[string(k)] = string(v)
	}
	return r
}

// client talks to a memNet backend.
type client struct {
	t *testing.T
	n *memNet
}

func (c client) data(method, path string, hdr ...string) result {
	return do(func() (net.Conn, error) { return c.n.dial("data") }, method, path, "", hdr...)
}

func (c client) admin(method, path, body string) result {
	return do(func() (net.Conn, error) { return c.n.dial("admin") }, method, path, body)
}

// post sends an admin action that must succeed and returns its JSON.
func (c client) post(path, body string, v any) {
	c.t.Helper()
	r := c.admin("POST", path, body)
	if r.err != nil || r.code != 200 {
		c.t.Fatalf("POST %s %s: %d %s %v", path, body, r.code, r.body, r.err)
	}
	if v != nil {
		reflect.ValueOf(v).Elem().SetZero() // omitted fields must not keep old values
		mustJSON(c.t, r.body, v)
	}
}

func (c client) state() State {
	c.t.Helper()
	r := c.admin("GET", "/admin/state", "")
	var st State
	mustJSON(c.t, r.body, &st)
	return st
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("bad JSON %q: %v", data, err)
	}
}

// errorBody decodes a wire.ErrorBody or fails.
func errorBody(t *testing.T, r result) wire.ErrorBody {
	t.Helper()
	var e wire.ErrorBody
	mustJSON(t, r.body, &e)
	if e.Code != r.code || e.Error == "" {
		t.Fatalf("error body %s does not match status %d", r.body, r.code)
	}
	return e
}

// async runs f in a goroutine and returns a channel with its result.
func async(f func() result) <-chan result {
	ch := make(chan result, 1)
	go func() { ch <- f() }()
	return ch
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
