package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// lab watch end to end: it prints the dashboard's address, plays rr-slow
// (paused at 3 s for a drill) to its end at max, and the lab file it
// saves, under lab sim --series --json, gives the series of the page's
// last snapshot and has the drill in its script.
func TestWatchSavedLabReproducesUnderSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	w := exec.CommandContext(ctx, labBin, "watch", "rr-slow", "--listen", "127.0.0.1:0", "--paused")
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		w.Process.Signal(syscall.SIGINT)
		w.Wait()
	}()
	sc := bufio.NewScanner(stdout)
	base := ""
	for sc.Scan() {
		if u, ok := strings.CutPrefix(sc.Text(), "dashboard:  "); ok {
			base = strings.TrimSuffix(u, "/")
			break
		}
	}
	if base == "" {
		t.Fatal("lab watch printed no dashboard address")
	}
	post := func(path, body string) map[string]any {
		resp, err := http.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != 200 {
			t.Fatalf("POST %s %s: %d %v", path, body, resp.StatusCode, out)
		}
		return out
	}
	get := func(path string) []byte {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return data
	}
	post("/api/playback", `{"seek_s":3}`)
	if out := post("/api/chaos", `{"action":"errors","target":"s1","share":0.2}`); out["at_s"] != 3.0 {
		t.Fatalf("the drill was taken at %v, want 3", out["at_s"])
	}
	post("/api/playback", `{"max":true,"paused":false}`)
	for {
		var p struct{ Ended bool }
		json.Unmarshal(get("/api/playback"), &p)
		if p.Ended {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the run did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var page struct {
		Series map[string]any `json:"series"`
	}
	json.Unmarshal(get("/api/snapshot"), &page)
	saved := filepath.Join(t.TempDir(), "watched.yaml")
	if err := os.WriteFile(saved, get("/api/lab.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := lab(t, "sim", saved, "--series", "--json")
	if code != 0 {
		t.Fatalf("lab sim on the saved lab: exit %d: %s", code, errOut)
	}
	var rep struct {
		Runs []struct {
			Log    []struct{ Text string } `json:"log"`
			Series []struct {
				Offered, Failed uint64
				P99             float64
				Succeeded       uint64
			} `json:"series"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("lab sim's report: %v, %d runs", err, len(rep.Runs))
	}
	if log := rep.Runs[0].Log; len(log) == 0 || log[0].Text != "errors s1 share=0.2" {
		t.Errorf("the saved lab's first script event: %v, want the drill", log)
	}
	bins := rep.Runs[0].Series
	if n := len(bins) - 80; n > 0 {
		bins = bins[n:]
	}
	var offered, failed []any
	for _, b := range bins {
		offered = append(offered, float64(b.Offered)*4)
		failed = append(failed, float64(b.Failed)*4)
	}
	if !reflect.DeepEqual(page.Series["offered"], offered) || !reflect.DeepEqual(page.Series["failed"], failed) {
		t.Errorf("the page's last 20 s differ from lab sim's on the saved lab:\n page offered %v\n sim  offered %v\n page failed %v\n sim  failed %v",
			page.Series["offered"], offered, page.Series["failed"], failed)
	}
}
