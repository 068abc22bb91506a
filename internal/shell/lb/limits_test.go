package lb

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/testbin"
)

// The lb takes bodies up to 1 MiB and headers up to 8 KiB, as its docs
// say; beyond them it answers 413 or 431 with a JSON reason naming the
// limit. Its admin listener takes 64 KiB.
func TestRequestSizeLimits(t *testing.T) {
	f := startFake(t, "s1")
	l, _ := startLB(t, testLab(t), f)
	post := func(size int) string {
		return "POST /x HTTP/1.1\r\nHost: lb\r\nContent-Length: " + strconv.Itoa(size) + "\r\n\r\n" + strings.Repeat("b", size)
	}
	dial := func(addr string) func() (net.Conn, error) {
		return func() (net.Conn, error) { return net.Dial("tcp", addr) }
	}
	cases := []struct {
		what, addr, raw string
		code            int
		msg             string
	}{
		{"100 KiB body", l.Addr(), post(100 << 10), 200, `"server":"s1"`},
		{"1 MiB body", l.Addr(), post(1 << 20), 200, `"server":"s1"`},
		{"1 MiB + 1 body", l.Addr(), post(1<<20 + 1), 413, `"request body too large: the limit is 1 MiB"`},
		{"9 KiB of headers", l.Addr(), "GET /x HTTP/1.1\r\nHost: lb\r\nX-Big: " + strings.Repeat("h", 9<<10) + "\r\n\r\n", 431,
			`"request headers too large: the limit is 8 KiB"`},
		{"admin: 65 KiB body", l.AdminAddr(), "POST /admin/set HTTP/1.1\r\nHost: " + l.AdminAddr() + "\r\nContent-Length: 66560\r\n\r\n" + strings.Repeat("a", 66560),
			413, `"request body too large: the limit is 64 KiB"`},
	}
	for _, c := range cases {
		a := testbin.SendRaw(t, dial(c.addr), c.raw)
		if a.Code != c.code || !strings.Contains(a.Body, c.msg) || c.code != 200 && a.ContentType != "application/json" {
			t.Errorf("%s: %d %s %.120q; want %d and %s", c.what, a.Code, a.ContentType, a.Body, c.code, c.msg)
		}
	}
}
