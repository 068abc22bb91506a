package labyaml

import (
	"errors"
	"strings"
	"testing"
)

// Locate gives a problem found after Parse (by Apply) the position of its
// field in the file, but not one of a field set from elsewhere; other
// errors pass through.
func TestLocate(t *testing.T) {
	text := "name: x\nduration: 20s\nclients: {rate: 100}\nevents:\n  - {at: 10s, action: kill, target: s1}\n"
	l, err := Parse("x.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	err = l.Apply("duration", "5s")
	if err == nil || strings.HasPrefix(err.Error(), "x.yaml") {
		t.Fatalf("Apply: %v; want an error without a position", err)
	}
	if got := Locate(err, "x.yaml", []byte(text), "duration").Error(); !strings.HasPrefix(got, "x.yaml:5:10: events[0].at: ") {
		t.Errorf("located: %s", got)
	}
	err = l.Apply("clients.rate", "-1")
	if got := Locate(err, "x.yaml", []byte(text), "clients.rate").Error(); strings.Contains(got, "x.yaml") {
		t.Errorf("a value set from a flag got the file's position: %s", got)
	}
	plain := errors.New("not a lab-file problem")
	if Locate(plain, "x.yaml", []byte(text)) != plain {
		t.Error("another error was changed")
	}
}
