package watch

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/lab/dash"
)

// overHTTP is what Handler answers req with (lab watch's server, the
// mux and the HTTP adapter of every route), as an Answer.
func overHTTP(h http.Handler, method, target, body string) dash.Answer {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, target, strings.NewReader(body)))
	return dash.Answer{Status: rec.Code, Type: rec.Header().Get("Content-Type"), Disposition: rec.Header().Get("Content-Disposition"),
		NoCache: rec.Header().Get("Cache-Control") == "no-cache", Allow: rec.Header().Get("Allow"), Body: rec.Body.Bytes()}
}

// atUnix is the wall-clock instant a snapshot was published at, the one
// field two servers playing in step differ in.
var atUnix = regexp.MustCompile(`"at_unix_ms":[0-9]+`)

func sameAnswer(t *testing.T, what string, got, want dash.Answer) {
	t.Helper()
	got.Body, want.Body = atUnix.ReplaceAll(got.Body, nil), atUnix.ReplaceAll(want.Body, nil)
	if got.Status != want.Status || got.Type != want.Type || got.Disposition != want.Disposition || got.NoCache != want.NoCache ||
		got.Allow != want.Allow || string(got.Body) != string(want.Body) {
		t.Errorf("%s: in memory %d %q %q no-cache %v allow %q %.300s\nover HTTP %d %q %q no-cache %v allow %q %.300s", what,
			got.Status, got.Type, got.Disposition, got.NoCache, got.Allow, got.Body, want.Status, want.Type, want.Disposition, want.NoCache, want.Allow, want.Body)
	}
}

// The page's wasm module (Answer, in memory) and lab watch's server
// (Handler, over HTTP) answer with the same routes: two servers of the same
// lab handed the same requests, one each way, give the same status, type,
// download name and bytes, refusals (400, 413 past the body cap) included.
func TestAnswerInMemoryIsHandlersOverHTTP(t *testing.T) {
	mem, web := watching(t, "rr-slow"), watching(t, "rr-slow")
	h := web.Handler()
	bad, _ := json.Marshal(labIn{File: "mine.yaml", YAML: "name: mine\nservers:\n  - name: s1\n    speed: fast\n"})
	steps := []struct {
		code                 int
		method, target, body string
	}{
		{200, "GET", "/healthz", ""},
		{503, "GET", "/api/snapshot", ""}, // none published yet
		{200, "GET", "/api/playback", ""},
		{200, "GET", "/api/playback?ignored=1", ""},
		{400, "POST", "/api/playback", `{"speed":5000}`},
		{400, "POST", "/api/playback", `{"spede":2}`},
		{400, "POST", "/api/playback", `{`},
		{400, "POST", "/api/playback", ""},
		{413, "POST", "/api/playback", `{"speed":"` + strings.Repeat("x", 3<<20) + `"}`},
		{200, "POST", "/api/playback", `{"step":true}`},
		{200, "POST", "/api/chaos", `{"action":"slow","target":"s1","speed":0.5,"for":"2s"}`},
		{400, "POST", "/api/chaos", `{"action":"kill","target":"s9"}`},
		{400, "POST", "/api/chaos", `{"action":"kill","target":"s2","bogus":1}`},
		{200, "GET", "/api/snapshot", ""},
		{200, "GET", "/api/lab.yaml", ""},
		{200, "GET", "/api/scenarios", ""},
		{200, "GET", "/api/source", ""},
		{400, "POST", "/api/lab", string(bad)},
		{400, "POST", "/api/fleet", `{"count":999}`},
		{200, "POST", "/api/fleet", `{"count":3,"distribution":"constant"}`},
		{400, "POST", "/api/scenario", `{"name":"nope"}`},
		{200, "POST", "/api/scenario", `{"name":"retry-storm"}`},
		{400, "POST", "/api/compare", `{"seeds":1}`},
		{200, "POST", "/api/compare", `{}`},
		{200, "GET", "/api/report.json", ""},
		{405, "POST", "/api/snapshot", ""}, // a path of the API, another method
		{405, "GET", "/api/chaos", ""},
		{405, "GET", "/api/lab", ""},
		{405, "PUT", "/api/playback", ""},
		{405, "POST", "/healthz", ""},
		{404, "DELETE", "/api/nope", ""}, // no route has the path
		{404, "GET", "/api/nope", ""},
		{404, "GET", "/api/", ""},
		{404, "GET", "/api/stream/x", ""},
	}
	for _, st := range steps {
		what := st.method + " " + st.target + " " + trim(st.body)
		got := mem.Answer(dash.NewRequest(st.method, st.target, []byte(st.body)))
		if got.Status != st.code {
			t.Errorf("%s: %d %.200s, want %d", what, got.Status, got.Body, st.code)
		}
		sameAnswer(t, what, got, overHTTP(h, st.method, st.target, st.body))
	}
	// a HEAD is a GET without the body
	if a := mem.Answer(dash.NewRequest("HEAD", "/healthz", nil)); a.Status != 200 || a.Type != "application/json" || len(a.Body) != 0 {
		t.Errorf("HEAD /healthz: %d %q %q, want 200, JSON, no body", a.Status, a.Type, a.Body)
	}
	if a := mem.Answer(dash.NewRequest("GET", "/api/lab.yaml", nil)); !strings.Contains(string(a.Body), "name: retry-storm") {
		t.Errorf("after the requests the lab playing is %.100s, want retry-storm", a.Body)
	}
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
