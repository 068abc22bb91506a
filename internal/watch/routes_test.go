package watch

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An API error is JSON wherever it comes from: a request no route takes
// answered net/http's plain text ("404 page not found", "Method Not
// Allowed"). Over lab watch's HTTP handler a wrong method is a 405 naming
// the methods its path takes in the Allow header, an unknown path under
// /api/ a 404, both {"error", "code"}; the page is still served.
func TestUnroutedRequestsAnswerJSON(t *testing.T) {
	h := watching(t, "rr-slow").Handler()
	for _, c := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"GET", "/api/chaos", 405, "POST"},
		{"GET", "/api/lab", 405, "POST"},
		{"PUT", "/api/playback", 405, "GET, HEAD, POST"},
		{"DELETE", "/api/snapshot", 405, "GET, HEAD"},
		{"POST", "/api/stream", 405, "GET, HEAD"},
		{"POST", "/healthz", 405, "GET, HEAD"},
		{"POST", "/index.html", 405, "GET, HEAD"}, // the page's: GET only
		{"GET", "/api/nope", 404, ""},
		{"PUT", "/api/nope", 404, ""},
		{"GET", "/api/", 404, ""},
		{"GET", "/api", 404, ""},
	} {
		what := c.method + " " + c.path
		checkJSONError(t, what, serve(h, c.method, c.path), c.code, c.allow)
	}
	if rec := serve(h, "GET", "/"); rec.Code != 200 || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("GET /: %d %q, want the page", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func serve(h http.Handler, method, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}

// checkJSONError checks an API error: its status, a JSON body of
// {"error": a text, "code": the status}, and a 405's Allow header.
func checkJSONError(t *testing.T, what string, rec *httptest.ResponseRecorder, code int, allow string) {
	t.Helper()
	var body struct {
		Error *string
		Code  int
	}
	err := json.Unmarshal(rec.Body.Bytes(), &body)
	if rec.Code != code || rec.Header().Get("Content-Type") != "application/json" || err != nil || body.Error == nil || *body.Error == "" || body.Code != code {
		t.Errorf("%s: %d %q %q, want %d and {\"error\": ..., \"code\": %d}", what, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String(), code, code)
	}
	if got := rec.Header().Get("Allow"); got != allow {
		t.Errorf("%s: Allow %q, want %q", what, got, allow)
	}
}
