package watch

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// TestWatchSavesDrillsAsWritten: a kill taken on the page is saved as a
// person writes it in a lab file (at, action, target), as is rr-slow's own
// slow, not with every field of every action at its zero; the file parses
// back with both (TestWatchDrillsSavedReproduceUnderSim runs it under lab
// sim).
func TestWatchSavesDrillsAsWritten(t *testing.T) {
	base := startWatch(t, "rr-slow", true)
	var out map[string]any
	if code := call(t, "POST", base+"/api/chaos", `{"action":"kill","target":"s1"}`, &out); code != 200 {
		t.Fatalf("kill s1: %d %v", code, out)
	}
	resp, err := http.Get(base + "/api/lab.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(data)
	i, j := strings.Index(text, "\nevents:\n"), strings.Index(text, "\nreport:")
	if i < 0 || j < i {
		t.Fatalf("no events in the saved lab:\n%s", text)
	}
	const want = "- at: 0s\n  action: kill\n  target: s1\n- at: 5s\n  action: slow\n  target: s2\n  speed: 0.25\n"
	if got := text[i+len("\nevents:\n") : j+1]; got != want {
		t.Errorf("the saved script:\n%s\nwant:\n%s", got, want)
	}
	saved, err := labyaml.Parse("saved.yaml", data)
	if err != nil {
		t.Fatalf("the saved lab does not parse: %v\n%s", err, text)
	}
	if got := len(saved.Events); got != 2 || saved.Events[0].String() != "kill s1" || saved.Events[1].String() != "slow s2 speed=0.25" {
		t.Errorf("the saved script reads %v", saved.Events)
	}
}
