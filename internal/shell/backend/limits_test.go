package backend

import (
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/shell/lb"
	"github.com/lblab/lblab/internal/testbin"
)

// A backend takes whatever an lb forwards (up to the lb's limits, plus the
// headers the lb adds), and answers 413 or 431 with a JSON reason beyond
// its own limits.
func TestRequestSizeLimits(t *testing.T) {
	if maxBodyBytes < lb.DefaultMaxBody || maxHeaderBytes < lb.DefaultMaxHeader+1024 {
		t.Fatalf("a backend's limits (%d body, %d headers) must exceed the lb's (%d, %d plus what it adds)",
			maxBodyBytes, maxHeaderBytes, lb.DefaultMaxBody, lb.DefaultMaxHeader)
	}
	_, n := startMem(t, labWith(t))
	data := func() (net.Conn, error) { return n.dial("data") }
	post := func(size int) string {
		return "POST /x HTTP/1.1\r\nHost: s1\r\nContent-Length: " + strconv.Itoa(size) + "\r\n\r\n" + strings.Repeat("b", size)
	}
	if a := testbin.SendRaw(t, data, post(100<<10)); a.Code != 200 || !strings.Contains(a.Body, `"server":"s1"`) {
		t.Errorf("100 KiB body: %d %q, want 200 (an lb forwards up to 1 MiB)", a.Code, a.Body)
	}
	a := testbin.SendRaw(t, data, post(1<<20+1))
	if a.Code != 413 || a.ContentType != "application/json" || !strings.Contains(a.Body, "the limit is 1 MiB") {
		t.Errorf("1 MiB + 1 body: %d %s %q, want 413 with a JSON reason", a.Code, a.ContentType, a.Body)
	}
	a = testbin.SendRaw(t, data, "GET /x HTTP/1.1\r\nHost: s1\r\nX-Big: "+strings.Repeat("h", 17<<10)+"\r\n\r\n")
	if a.Code != 431 || !strings.Contains(a.Body, "the limit is 16 KiB") {
		t.Errorf("17 KiB of headers: %d %q, want 431 with a JSON reason", a.Code, a.Body)
	}
}
