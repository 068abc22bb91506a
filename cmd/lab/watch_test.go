package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/testbin"
)

// lab watch end to end: it prints the dashboard's address, plays rr-slow
// (paused at 3 s for a drill) to its end at max, and the lab file it
// saves, under lab sim --series --json, gives the series of the page's
// last snapshot and has the drill in its script.
func TestWatchSavedLabReproducesUnderSim(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	post, get := startLabWatch(t, ctx, "rr-slow")
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

// startLabWatch runs lab watch args... --listen 127.0.0.1:0 --paused until
// the test ends, and returns a POST (JSON answer, failing on a refusal) and
// a GET on its API.
func startLabWatch(t *testing.T, ctx context.Context, args ...string) (post func(path, body string) map[string]any, get func(path string) []byte) {
	t.Helper()
	w := exec.CommandContext(ctx, labBin, append(append([]string{"watch"}, args...), "--listen", "127.0.0.1:0", "--paused")...)
	stdout, err := w.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Process.Signal(syscall.SIGINT)
		w.Wait()
	})
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
	go io.Copy(io.Discard, stdout) // lab watch keeps writing; nobody reads it
	post = func(path, body string) map[string]any {
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
	get = func(path string) []byte {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return data
	}
	return post, get
}

// Three drills taken in lab watch (s2 killed at 2 s, restarted at 4 s, s3
// slowed at 6 s), saved, tell the same story under lab run, live, as
// under lab sim: the script is the three drills at their instants; no
// request fails before the kill; while s2 is down round robin's requests
// to it fail (about a third of them, live as simulated); once it is back
// none do; with s3 slowed the bins' median p99 is well above that before
// the kill.
func TestWatchSavedLabReplaysLive(t *testing.T) {
	dir := t.TempDir()
	labPath := filepath.Join(dir, "drilled.yaml")
	if err := os.WriteFile(labPath, []byte(`name: drilled
seed: 4
duration: 8s
clients: {rate: 120, work: {dist: exponential, mean: 8ms}}
balancers: {algorithm: round-robin}
servers: [{count: 3, workers: 2}]
network: {hop: 2ms}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	post, get := startLabWatch(t, ctx, labPath)
	for _, d := range []struct {
		at   float64
		body string
	}{{2, `{"action":"kill","target":"s2"}`}, {4, `{"action":"restart","target":"s2"}`}, {6, `{"action":"slow","target":"s3","speed":0.25}`}} {
		post("/api/playback", fmt.Sprintf(`{"seek_s":%g}`, d.at))
		if out := post("/api/chaos", d.body); out["at_s"] != d.at {
			t.Fatalf("drill %s taken at %v, want %v", d.body, out["at_s"], d.at)
		}
	}
	saved := filepath.Join(dir, "watched.yaml")
	if err := os.WriteFile(saved, get("/api/lab.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}

	type run struct {
		Log []struct {
			T    float64 `json:"t_s"`
			Text string
		} `json:"log"`
		Series []struct {
			T               float64 `json:"t_s"`
			Offered, Failed uint64
			P99             float64
		} `json:"series"`
	}
	report := func(args ...string) run {
		out, errOut, code := lab(t, args...)
		if code != 0 {
			t.Fatalf("lab %v: exit %d: %s", args, code, errOut)
		}
		var rep struct{ Runs []run }
		if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Runs) != 1 {
			t.Fatalf("lab %v: %v, %d runs", args, err, len(rep.Runs))
		}
		return rep.Runs[0]
	}
	simulated := report("sim", saved, "--series", "--json")
	pressure := testbin.CPUPressure()
	live := report("run", saved, "--series", "--json", "--dashboard", "")
	starved := pressure()

	// phases of the story: [from, to) in seconds, away from the drills' instants
	// phase sums the bins within [from, to) and gives the median of their
	// p99s (a median: one bin that a busy machine delays does not move it)
	phase := func(r run, from, to float64) (offered, failed uint64, p99 float64, bins int) {
		var p99s []float64
		for _, b := range r.Series {
			if b.T >= from && b.T+0.25 <= to {
				offered, failed, bins = offered+b.Offered, failed+b.Failed, bins+1
				p99s = append(p99s, b.P99)
			}
		}
		if len(p99s) > 0 {
			slices.Sort(p99s)
			p99 = p99s[len(p99s)/2]
		}
		return offered, failed, p99, bins
	}
	for name, r := range map[string]run{"lab sim": simulated, "lab run": live} {
		var script []string
		for _, l := range r.Log {
			if strings.HasPrefix(l.Text, "kill") || strings.HasPrefix(l.Text, "restart") || strings.HasPrefix(l.Text, "slow") {
				script = append(script, fmt.Sprintf("%.0f %s", l.T, l.Text))
			}
		}
		if got, want := strings.Join(script, "; "), "2 kill s2; 4 restart s2; 6 slow s3 speed=0.25"; got != want {
			t.Errorf("%s: the script ran as %q, want %q", name, got, want)
		}
		if o, f, _, n := phase(r, 0.25, 1.75); f != 0 || o < 100 || n != 6 {
			t.Errorf("%s: before the kill %d of %d requests failed (%d bins), want none of about 180", name, f, o, n)
		}
		if o, f, _, _ := phase(r, 2.5, 3.75); float64(f) < 0.2*float64(o) || float64(f) > 0.45*float64(o) {
			t.Errorf("%s: while s2 is down %d of %d requests failed, want about a third (round robin sends it its share)", name, f, o)
		}
		if o, f, _, _ := phase(r, 4.75, 5.75); f != 0 || o < 60 {
			t.Errorf("%s: after the restart %d of %d requests failed, want none", name, f, o)
		}
		_, _, before, _ := phase(r, 0.25, 1.75)
		if _, _, after, _ := phase(r, 6.5, 7.75); after < 1.5*before {
			msg := fmt.Sprintf("%s: p99 %.1f ms with s3 at quarter speed, %.1f ms before: want it slower", name, after, before)
			if name == "lab run" && starved >= testbin.Starved { // the machine's stalls, not s3, set the live p99 (measured 143 ms before the slowdown beside two CPU hogs)
				t.Skipf("the machine was starved over the live run (some task waited for a CPU %.0f%% of it): %s", 100*starved, msg)
			}
			t.Error(msg)
		}
	}
}

// lab watch FILE --setting S, S a compare setting with a set:, plays S as
// lab sim applies a compare setting, on the lab as the file gives it: the
// page's JSON report is lab sim FILE --json byte for byte, GET /api/source
// is the file's own bytes (its comments too), and Compare all is lab sim
// FILE's table, the no-breaker row without breakers. The setting used to
// be written into the lab: every compare setting then ran with breakers
// on (the no-breaker row: 1 failed, lab sim: 383) and the source was the
// lab marshalled again. The built-in scenario alike (lab watch breaker
// --setting breaker).
func TestWatchSettingIsAppliedAsASetting(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/breaker.yaml")
	if err != nil {
		t.Fatal(err)
	}
	data = append([]byte("# my breaker lab: a comment lab sim ignores\n"), data...)
	file := filepath.Join(t.TempDir(), "mine.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ arg, file string }{{file, "mine.yaml"}, {"breaker", "scenarios/breaker.yaml"}} {
		simJSON, errOut, code := lab(t, "sim", c.arg, "--json")
		if code != 0 {
			t.Fatalf("lab sim %s: exit %d: %s", c.arg, code, errOut)
		}
		var want struct {
			Runs []struct {
				Name   string
				Failed uint64
			}
		}
		if err := json.Unmarshal([]byte(simJSON), &want); err != nil || len(want.Runs) != 2 {
			t.Fatalf("lab sim %s: %v, %d runs", c.arg, err, len(want.Runs))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		post, get := startLabWatch(t, ctx, c.arg, "--setting", "breaker")
		if got := get("/api/report.json"); string(got) != simJSON {
			t.Errorf("lab watch %s --setting breaker: its JSON report (%d bytes) is not lab sim %s --json's (%d bytes)", c.arg, len(got), c.arg, len(simJSON))
		}
		var src struct{ File, YAML string }
		if err := json.Unmarshal(get("/api/source"), &src); err != nil {
			t.Fatal(err)
		}
		if c.arg == file && (src.YAML != string(data) || src.File != c.file) {
			t.Errorf("GET /api/source: %q, %d bytes; want %s's own %d bytes", src.File, len(src.YAML), c.file, len(data))
		}
		rows := map[string]uint64{}
		watched := ""
		for _, r := range post("/api/compare", `{}`)["ranking"].([]any) {
			row := r.(map[string]any)
			rows[row["name"].(string)] = uint64(row["failed"].(float64))
			if row["watched"] == true {
				watched = row["name"].(string)
			}
		}
		for _, w := range want.Runs {
			if rows[w.Name] != w.Failed {
				t.Errorf("lab watch %s --setting breaker: Compare all's %s row failed %d, lab sim's %d", c.arg, w.Name, rows[w.Name], w.Failed)
			}
		}
		if watched != "breaker" {
			t.Errorf("Compare all marks %q watched, want breaker", watched)
		}
	}
}
