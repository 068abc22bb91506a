package labfile_test

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

func TestCaptions(t *testing.T) {
	good := "name: c\nduration: 10s\ncaptions:\n  - {at: 0s, text: at first}\n  - {at: 5s, text: then}\n"
	l, err := labyaml.Parse("c.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Captions) != 2 || l.Captions[1].At.Seconds() != 5 || l.Captions[1].Text != "then" {
		t.Errorf("captions: %+v", l.Captions)
	}
	c := l.Clone()
	c.Captions[0].Text = "changed"
	if l.Captions[0].Text != "at first" {
		t.Error("a clone shares its captions with the lab")
	}
	for bad, want := range map[string]string{
		"  - {at: 2s, text: fine}\n  - {at: 1s, text: early}\n": "c.yaml:5:",
		"  - {at: 5s, text: a}\n  - {at: 2s, text: b}\n":        "captions must be in time order",
		"  - {at: 1s, text: \"\"}\n":                            "captions[0].text: is empty",
		"  - {at: -1s, text: x}\n":                              "captions[0].at: must be >= 0",
		"  - {at: 1s, txt: x}\n":                                "txt",
	} {
		_, err := labyaml.Parse("c.yaml", []byte("name: c\nduration: 10s\ncaptions:\n"+bad))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("captions\n%s: %v, want an error with %q", bad, err, want)
		}
	}
}

// A caption past the end is never shown but allowed: a shorter duration
// (lab sim --duration) keeps the lab valid.
func TestCaptionPastTheEndIsAllowed(t *testing.T) {
	if _, err := labyaml.Parse("c.yaml", []byte("name: c\nduration: 10s\ncaptions:\n  - {at: 30s, text: never shown}\n")); err != nil {
		t.Error(err)
	}
}
