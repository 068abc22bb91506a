//go:build !js

package dash

import (
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// A controller request body over maxBody is a 413 naming the limit, not a
// JSON syntax error about a body cut short.
func TestDecodeBodyLimit(t *testing.T) {
	for body, want := range map[string]int{
		`{"action":"kill","target":"s2"}`:                   200,
		`{"action":"` + strings.Repeat("x", maxBody) + `"}`: 413,
		`{"action":"kill","bogus":1}`:                       400,
	} {
		rec := httptest.NewRecorder()
		var ev labfile.Event
		refusal, ok := Decode(ReadRequest(rec, httptest.NewRequest("POST", "/api/chaos", strings.NewReader(body))), &ev)
		code := refusal.Status
		if ok {
			code = 200
		}
		if code != want || want == 413 && !strings.Contains(string(refusal.Body), fmt.Sprintf("the limit is %d KiB", maxBody>>10)) {
			t.Errorf("%.40s: %d %s, want %d", body, code, refusal.Body, want)
		}
	}
}

// A body read in memory (NewRequest, the page's wasm module) is refused as
// one read over HTTP (ReadRequest): the same status and bytes, 413 past
// maxBody included; a target's query is not part of its path.
func TestDecodeInMemoryIsOverHTTP(t *testing.T) {
	for _, body := range []string{`{"action":"kill","target":"s2"}`, `{"action":"` + strings.Repeat("x", 70<<10) + `"}`,
		`{"target":"` + strings.Repeat("x", maxBody-13) + `"}`, `{"action":"kill","bogus":1}`, `{`, ``, `[1]`} {
		var mem, web labfile.Event
		refusal, ok := Decode(NewRequest("POST", "/api/chaos", []byte(body)), &mem)
		rec := httptest.NewRecorder()
		webRefusal, webOK := Decode(ReadRequest(rec, httptest.NewRequest("POST", "/api/chaos", strings.NewReader(body))), &web)
		if !webOK {
			Write(rec, webRefusal)
		}
		if ok != webOK || !reflect.DeepEqual(mem, web) || !ok && (refusal.Status != rec.Code || string(refusal.Body) != rec.Body.String() ||
			refusal.Type != rec.Header().Get("Content-Type")) {
			t.Errorf("%.40s: in memory %v %d %q %s, over HTTP %v %d %q %s", body, ok, refusal.Status, refusal.Type, refusal.Body,
				webOK, rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
		if len(body) == maxBody && !ok {
			t.Errorf("a body of exactly maxBody refused: %s", refusal.Body)
		}
	}
	req := NewRequest("GET", "/api/report.json?seed=3&x", nil)
	if req.Path != "/api/report.json" || req.Query != "seed=3&x" {
		t.Errorf("GET /api/report.json?seed=3&x: path %q, query %q", req.Path, req.Query)
	}
}

// A client that reads nothing never holds up the publisher, and a new
// client gets the newest snapshot at once.
func TestHubSlowClient(t *testing.T) {
	h := newHub()
	slow := h.subscribe()
	done := make(chan struct{})
	go func() {
		for i := 0; i < 1000; i++ {
			h.publish([]byte{byte(i)})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("publishing blocked on a slow client")
	}
	if got := <-slow; got[0] != byte(999%256) {
		t.Errorf("slow client got %v, want the newest", got)
	}
	fresh := h.subscribe()
	if got := <-fresh; got[0] != byte(999%256) {
		t.Errorf("new client got %v, want the newest", got)
	}
	h.unsubscribe(slow)
	h.unsubscribe(fresh)
}
