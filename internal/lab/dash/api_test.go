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
// dashboard shows it, in the controls' order.
func TestChanges(t *testing.T) {
	start := labfile.Default()
	first := controlsNow(start, &Reading{})
	if c := changes(first, first); len(c) != 0 {
		t.Errorf("no drill, changes %v", c)
	}
	now := start.Clone()
	for _, kv := range [][2]string{{"balancers.algorithm", "round-robin"}, {"clients.rate", "400"},
		{"balancers.breaker.enabled", "true"}, {"clients.hedge", "p95"}} {
		if err := now.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(changes(first, controlsNow(now, &Reading{})), "; ")
	want := "rate 400/s (was 200/s); algorithm round-robin (was p2c); hedging p95 (was none); circuit breakers on (was off)"
	if got != want {
		t.Errorf("changes:\n got %s\nwant %s", got, want)
	}
}
