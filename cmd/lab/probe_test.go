package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// lab probe: 0 for a 200 on the path, 1 for anything else (with what came
// back), 2 for bad input.
func TestProbe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			w.Write([]byte(`{"ok":true}`))
		case "/sick":
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	closed := httptest.NewServer(http.NotFoundHandler())
	gone := strings.TrimPrefix(closed.URL, "http://")
	closed.Close()

	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"probe", addr}, 0, "/healthz: 200 OK"},
		{[]string{"probe", "--path", "/sick", addr}, 1, "503 Service Unavailable"},
		{[]string{"probe", "--path", "/nowhere", addr}, 1, "404 Not Found"},
		{[]string{"probe", gone}, 1, "connection refused"},
		{[]string{"probe", "no-port"}, 2, "want HOST:PORT"},
		{[]string{"probe", "--path", "healthz", addr}, 2, "--path"},
		{[]string{"probe", "--timeout", "0s", addr}, 2, "--timeout"},
		{[]string{"probe"}, 2, "one HOST:PORT"},
	}
	for _, c := range cases {
		out, errOut, code := lab(t, c.args...)
		if code != c.code || !strings.Contains(out+errOut, c.want) {
			t.Errorf("lab %s: exit %d, output %q; want exit %d mentioning %q", strings.Join(c.args, " "), code, out+errOut, c.code, c.want)
		}
	}
}
