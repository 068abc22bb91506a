package lab

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/control"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/shell/state"
)

// Time-boxed drills and script events live: the lab applies the undo by
// itself (no dashboard open) and logs it as the event's end.
func TestTimedDrillsLive(t *testing.T) {
	lab := smallLab(t, "p2c", 3600)
	lab.Events = []labfile.Event{{At: 100 * time.Millisecond, Action: labfile.ActionKill, Target: "s2", For: 300 * time.Millisecond}}
	if err := lab.Validate(); err != nil {
		t.Fatal(err)
	}
	addr := startUp(t, lab)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	resp, err := http.Post("http://"+addr+"/api/chaos", "application/json",
		strings.NewReader(`{"action":"slow","target":"s1","speed":0.5,"for":"400ms"}`))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if resp.StatusCode != 200 || out["applied"] != "slow s1 speed=0.5 for=400ms" || out["undo"] != "restore s1" {
		t.Fatalf("timed drill: %d %v", resp.StatusCode, out)
	}
	for _, bad := range []struct{ body, says string }{
		{`{"action":"gc","target":"s1","pause":"100ms","for":"1s"}`, "for: gc has nothing to undo"},
		{`{"action":"slow","target":"s1","speed":0.5,"for":"-1s"}`, "for: must be > 0"},
		{`{"action":"slow","target":"s1","speed":0.5,"for":"soon"}`, "not a duration"},
	} {
		resp, err := http.Post("http://"+addr+"/api/chaos", "application/json", strings.NewReader(bad.body))
		if err != nil {
			t.Fatal(err)
		}
		var e map[string]any
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if msg, _ := e["error"].(string); resp.StatusCode != 400 || !strings.Contains(msg, bad.says) {
			t.Errorf("%s: %d %v; want 400 saying %q", bad.body, resp.StatusCode, e, bad.says)
		}
	}

	want := []string{"kill s2 for=300ms", "restart s2 (end of kill s2 for=300ms)",
		"chaos: slow s1 speed=0.5 for=400ms", "chaos: restore s1 (end of slow s1 speed=0.5 for=400ms)"}
	// The log says a restart when it starts the process; the backend is up
	// a moment later (on a loaded machine, seconds): wait for both.
	var st control.State
	var s1, s2 state.Backend
	for {
		if err := admin.Call(ctx, addr, "GET", "/api/state", nil, &st); err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, l := range st.Log {
			texts = append(texts, l.Text)
		}
		logged := all(texts, want)
		if logged && len(st.Servers) >= 2 {
			json.Unmarshal(st.Servers[0], &s1)
			json.Unmarshal(st.Servers[1], &s2)
			if s1.Speed == 1 && s2.Up {
				break
			}
		}
		if ctx.Err() != nil {
			if !logged {
				t.Fatalf("log %q lacks some of %q", texts, want)
			}
			t.Fatalf("after the undos: s1 speed %v, s2 up %v", s1.Speed, s2.Up)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func all(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// A drill line reads back what the event log writes, time box included.
func TestParseDrillFor(t *testing.T) {
	ev, err := labfile.ParseDrill([]string{"slow", "s1", "speed=0.5", "for=30s"})
	if err != nil || ev.For != 30*time.Second || ev.String() != "slow s1 speed=0.5 for=30s" {
		t.Fatalf("ParseDrill: %+v, %v", ev, err)
	}
	if _, err := labfile.ParseDrill([]string{"kill", "s1", "for=later"}); err == nil || !strings.Contains(err.Error(), `for: "later" is not a duration`) {
		t.Errorf("bad for: %v", err)
	}
}
