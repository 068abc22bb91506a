package assert

import (
	"strings"
	"testing"
)

// A broken invariant panics, with what broke, while the checks are on (in
// every test binary), and passes unnoticed with them off (lab sim).
func TestThatPanicsOnlyWhenOn(t *testing.T) {
	if !On {
		t.Fatal("the checks are off in a test binary")
	}
	caught := func(f func()) (msg string) {
		defer func() {
			if p := recover(); p != nil {
				msg = p.(string)
			}
		}()
		f()
		return ""
	}
	if msg := caught(func() { That(false, "queue over capacity") }); msg != "invariant broken: queue over capacity" {
		t.Errorf("That: %q", msg)
	}
	if msg := caught(func() { Thatf(false, "weight %g", -1.0) }); !strings.Contains(msg, "weight -1") {
		t.Errorf("Thatf: %q", msg)
	}
	if msg := caught(func() { That(true, "holds") }); msg != "" {
		t.Errorf("a check that holds: %q", msg)
	}
	On = false
	defer func() { On = true }()
	if msg := caught(func() { That(false, "off") }); msg != "" {
		t.Errorf("with the checks off: %q", msg)
	}
}
