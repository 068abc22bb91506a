package lab

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

// A lab address is taken with or without http:// and a trailing slash.
func TestDialAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8000": "127.0.0.1:8000", "http://127.0.0.1:8000": "127.0.0.1:8000",
		"http://127.0.0.1:8000/": "127.0.0.1:8000", "127.0.0.1:8000/": "127.0.0.1:8000",
		" localhost:9 ": "localhost:9", ":8000": "127.0.0.1:8000", "http://[::1]:8000/": "[::1]:8000",
		"HTTP://lb:9080": "lb:9080",
	} {
		if got, err := DialAddr("--lab-url", in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"127.0.0.1": "no port", "https://127.0.0.1:8000": "plain http", "http://127.0.0.1:8000/api/state": "only the host",
		"127.0.0.1:8000/x": "only the host", "127.0.0.1:0": "1..65535", "127.0.0.1:99999": "0..65535", "http//127.0.0.1:8000": "only the host",
	} {
		if _, err := DialAddr("--lab-url", in); err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "--lab-url") {
			t.Errorf("%q: %v; want an error naming the flag and %q", in, err, why)
		}
	}
	if got, err := ListenAddr("--listen", "http://0.0.0.0:0/"); err != nil || got != "0.0.0.0:0" {
		t.Errorf("ListenAddr: %q, %v", got, err)
	}
}

// A controller request body over 64 KiB is a 413 naming the limit, not a
// JSON syntax error about a body cut short.
func TestDecodeBodyLimit(t *testing.T) {
	for body, want := range map[string]int{
		`{"action":"kill","target":"s2"}`:                  200,
		`{"action":"` + strings.Repeat("x", 70<<10) + `"}`: 413,
		`{"action":"kill","bogus":1}`:                      400,
	} {
		rec := httptest.NewRecorder()
		var ev labfile.Event
		ok := decodeBody(rec, httptest.NewRequest("POST", "/api/chaos", strings.NewReader(body)), &ev)
		code := rec.Code
		if ok {
			code = 200
		}
		if code != want || want == 413 && !strings.Contains(rec.Body.String(), "the limit is 64 KiB") {
			t.Errorf("%.40s: %d %s, want %d", body, code, rec.Body.String(), want)
		}
	}
}

// The banner's changes: what differs from the first reading, said as the
// dashboard shows it.
func TestChanges(t *testing.T) {
	start := Settings{Rate: 200, Algorithm: "p2c", Discipline: "fifo"}
	if c := changes(start, start); len(c) != 0 {
		t.Errorf("no drill, changes %v", c)
	}
	now := start
	now.Algorithm, now.Rate, now.Breaker, now.Hedge = "round-robin", 400, true, "p95"
	got := strings.Join(changes(start, now), "; ")
	want := "algorithm round-robin (was p2c); rate 400/s (was 200/s); hedging p95 (was none); breakers on (was off)"
	if got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
}
