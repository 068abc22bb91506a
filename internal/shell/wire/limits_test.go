package wire

import (
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/lblab/lblab/internal/testbin"
)

// A request over a limit gets 413 or 431 with the JSON error body naming
// the limit; an unreadable one a JSON 400.
func TestLimitErrors(t *testing.T) {
	ln := fasthttputil.NewInmemoryListener()
	srv := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetBodyString("ok") },
		MaxRequestBodySize: 64 << 10, ReadBufferSize: 4 << 10}
	done := Serve(srv, ln, Limits{}, nil) // Serve installs LimitErrors itself
	defer func() { srv.Shutdown(); <-done }()
	big := strings.Repeat("x", 65<<10)
	cases := []struct {
		raw  string
		code int
		msg  string
	}{
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi", 200, ""},
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big, 413, `"request body too large: the limit is 64 KiB"`},
		{"GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + strings.Repeat("y", 5000) + "\r\n\r\n", 431, `"request headers too large: the limit is 4 KiB"`},
		{"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: nope\r\n\r\n", 400, `"cannot read the request`},
	}
	for _, c := range cases {
		a := testbin.SendRaw(t, ln.Dial, c.raw)
		if a.Code != c.code || c.msg != "" && (!strings.Contains(a.Body, c.msg) || a.ContentType != "application/json" ||
			!strings.Contains(a.Body, `"code":`+strconv.Itoa(c.code))) {
			t.Errorf("%.40q: %d %s %q, want %d with a JSON error %s", c.raw, a.Code, a.ContentType, a.Body, c.code, c.msg)
		}
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int]string{1 << 20: "1 MiB", 64 << 10: "64 KiB", 1500: "1500 bytes", 16 << 10: "16 KiB"} {
		if got := ByteSize(n); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}
