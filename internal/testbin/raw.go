package testbin

import (
	"bufio"
	"net"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// Raw is an answer to a request sent by SendRaw.
type Raw struct {
	Code        int
	ContentType string
	Body        string
}

// SendRaw writes a raw HTTP/1.1 request on a fresh connection from dial
// and reads the answer. It writes while it reads, so a server that answers
// before taking all of a large body (413) is seen answering rather than
// as a failed write.
func SendRaw(t testing.TB, dial func() (net.Conn, error), raw string) Raw {
	t.Helper()
	c, err := dial()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	go func() { _, _ = c.Write([]byte(raw)) }()
	var resp fasthttp.Response
	if err := resp.Read(bufio.NewReader(c)); err != nil {
		t.Fatalf("reading the answer to %.60q: %v", raw, err)
	}
	return Raw{Code: resp.StatusCode(), ContentType: string(resp.Header.ContentType()), Body: string(resp.Body())}
}
