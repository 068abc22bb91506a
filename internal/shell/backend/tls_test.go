package backend

import (
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/shell/conns"
)

// With network.tls the data listener speaks TLS with the certificate it is
// given, and counts every connection it accepts; without a certificate the
// backend refuses to start.
func TestTLSDataListener(t *testing.T) {
	lab := labWith(t, "network.tls", "true", "network.hop", "0s")
	if _, err := New(Config{Lab: lab}); err == nil || !strings.Contains(err.Error(), "--tls-cert") {
		t.Fatalf("network.tls without a certificate: %v", err)
	}
	cert, key, err := conns.WriteCert(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srvTLS, err := conns.ServerTLS(cert, key)
	if err != nil {
		t.Fatal(err)
	}
	cliTLS, err := conns.ClientTLS(cert)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(Config{Lab: lab, Name: "s1", Hop: 0, TLS: srvTLS})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	defer b.Shutdown(t.Context())
	d := &conns.Dialer{TLS: cliTLS}
	for i := range 2 { // two connections, two requests each
		c := conns.New(b.Addr())
		if err := c.Open(d, time.Now().Add(5*time.Second)); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			req.SetRequestURI("/")
			req.SetHost("s1")
			if err := c.Do(req, resp, time.Now().Add(5*time.Second), 0); err != nil || resp.StatusCode() != 200 {
				t.Fatalf("connection %d: %d %v", i, resp.StatusCode(), err)
			}
			fasthttp.ReleaseRequest(req)
			fasthttp.ReleaseResponse(resp)
		}
		c.Close()
	}
	if n := b.State().AcceptedConnections; n != 2 {
		t.Fatalf("accepted %d connections, want 2", n)
	}
}
