package dash

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

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
		ok := DecodeBody(rec, httptest.NewRequest("POST", "/api/chaos", strings.NewReader(body)), &ev)
		code := rec.Code
		if ok {
			code = 200
		}
		if code != want || want == 413 && !strings.Contains(rec.Body.String(), "the limit is 64 KiB") {
			t.Errorf("%.40s: %d %s, want %d", body, code, rec.Body.String(), want)
		}
	}
}

func TestNextServerName(t *testing.T) {
	lab := labfile.Default() // s1..s5
	if got := nextServerName(lab); got != "s6" {
		t.Errorf("first added to 5: %s, want s6", got)
	}
	lab.Events = []labfile.Event{{Action: "add-server", Target: "s6"}, {Action: "add-server", Target: "big"}}
	if got := nextServerName(lab); got != "s8" {
		t.Errorf("third added to 5: %s, want s8 (as a lab file would name it)", got)
	}
	lab.Events = append(lab.Events, labfile.Event{Action: "add-server", Target: "s9"})
	if got := nextServerName(lab); got != "s10" {
		t.Errorf("with s9 taken by hand: %s, want s10", got)
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
