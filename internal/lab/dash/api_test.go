package dash

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

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
