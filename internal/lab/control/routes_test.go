package control

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// Every error of the live controller's API is JSON: a request no route
// takes answered net/http's plain text ("404 page not found", "Method Not
// Allowed"). A wrong method is a 405 naming the methods its path takes in
// the Allow header, an unknown path under /api/ a 404, both {"error",
// "code"}; the page is still served. (No run is needed: the routes answer
// before any handler reads one.)
func TestControllerUnroutedRequestsAnswerJSON(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := New(ctx, ln, Options{Mode: "up", Log: zap.NewNop()})
	t.Cleanup(func() { cancel(); c.Close() })
	base := "http://" + c.Addr()
	for _, tc := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"GET", "/api/chaos", 405, "POST"},
		{"PUT", "/api/scenario", 405, "POST"},
		{"POST", "/api/state", 405, "GET, HEAD"},
		{"DELETE", "/healthz", 405, "GET, HEAD"},
		{"POST", "/", 405, "GET, HEAD"},
		{"GET", "/api/nope", 404, ""},
		{"POST", "/api/lab", 404, ""}, // lab watch's, not the controller's
		{"GET", "/api/", 404, ""},
	} {
		req, err := http.NewRequest(tc.method, base+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var body struct {
			Error *string
			Code  int
		}
		what := tc.method + " " + tc.path
		if err := json.Unmarshal(data, &body); resp.StatusCode != tc.code || resp.Header.Get("Content-Type") != "application/json" ||
			err != nil || body.Error == nil || *body.Error == "" || body.Code != tc.code {
			t.Errorf("%s: %d %q %q, want %d and {\"error\": ..., \"code\": %d}", what, resp.StatusCode, resp.Header.Get("Content-Type"), data, tc.code, tc.code)
		}
		if got := resp.Header.Get("Allow"); got != tc.allow {
			t.Errorf("%s: Allow %q, want %q", what, got, tc.allow)
		}
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /: %d %q, want the page", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
