package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/testbin"
)

// busyLab is 300 servers that least-response-time scans on each of
// 300,000 picks a second: a 250 ms bin is about 22 million visits, most of
// a second of one core.
func busyLab(t *testing.T) *labfile.Lab {
	t.Helper()
	l, err := labyaml.Parse("heavy.yaml", []byte("name: heavy\nduration: 10s\nclients: {rate: 300000}\nbalancers: {algorithm: least-response-time}\nservers:\n  - {count: 300}\n"))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// busy is the CPU pressure (testbin.CPUPressure) from which a single
// answer of lab watch's API may wait seconds for a CPU: the test alone
// measured 0.10-0.44 (other work on the machine), beside two CPU hogs and
// internal/lab's live tests 0.89-0.98.
const busy = 0.8

// lab watch keeps answering while a heavy lab plays and while long
// requests run, and a long request stops when its client goes away or a
// newer one replaces it (issue 33). The lab: busyLab.
func TestLongRunsLeaveTheAPIAnswering(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a heavy lab for seconds")
	}
	srv, err := New(Options{Lab: busyLab(t)})
	if err != nil {
		t.Fatal(err)
	}
	base := serveTest(t, srv)
	post := func(ctx context.Context, path, body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		return resp.StatusCode, buf.String()
	}
	// playback reads GET /api/playback and how long its answer took.
	playback := func() (dash.Playback, time.Duration) {
		start := time.Now()
		resp, err := http.Get(base + "/api/playback")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p dash.Playback
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
			t.Fatal(err)
		}
		return p, time.Since(start)
	}
	pressure := testbin.CPUPressure()
	// poll reads the playback until done says so (or 60 s), and returns
	// every answer's time.
	poll := func(done func(dash.Playback) bool) []time.Duration {
		var took []time.Duration
		for end := time.Now().Add(60 * time.Second); time.Now().Before(end); {
			p, d := playback()
			took = append(took, d)
			if done(p) {
				return took
			}
			time.Sleep(20 * time.Millisecond)
		}
		if starved := pressure(); starved >= testbin.Starved { // 2 s of this lab is about 8 s of CPU
			t.Skipf("the machine was starved (some task waited for a CPU %.0f%% of the time, over %.0f%%): gave up waiting after 60 s", 100*starved, 100*testbin.Starved)
		}
		t.Fatal("gave up waiting after 60 s")
		return nil
	}
	answers := func(what string, took []time.Duration) {
		// Each answer should come within 250 ms; on a 2-core machine
		// other work shares, the median must, and none may take 2 s (a
		// bin played under the lock holds every answer up about 1 s).
		// An answer waits for the slice of playback going on and the
		// snapshot its tick publishes (queueLock): measured at the
		// median 26-33 ms alone, 42-64 ms beside two CPU hogs and
		// internal/lab's live tests (122 and 230 ms when playback at
		// max took the lock back after each tick before the request).
		// The slowest alone 96-155 ms; beside them 0.66-3.0 s, at a
		// CPU pressure of 0.91-0.98: a snapshot published under the lock
		// while the machine starved the process (5 ms of CPU took up to
		// 0.74 s). So on a busy machine (busy) only the median counts;
		// TestAPIWaitsForOneTickAtMax and
		// TestTickEndsAfterItsSliceWhenARequestWaits check what an
		// answer waits for however busy the machine is.
		slices.Sort(took)
		median, worst := took[len(took)/2], took[len(took)-1]
		starved := pressure()
		t.Logf("%s: %d answers, half within %v, the slowest %v; CPU pressure so far %.2f", what, len(took), median, worst, starved)
		slow := worst > 2*time.Second && starved < busy
		if len(took) < 5 || median > 250*time.Millisecond || slow {
			msg := fmt.Sprintf("%s: %d answers of GET /api/playback, half within %v, the slowest %v: want each within 250 ms (half of them on a busy machine, and none over 2 s unless it was busy)", what, len(took), median, worst)
			if starved >= testbin.Starved { // the answers wait for a CPU, not for the lock
				t.Skipf("the machine was starved (some task waited for a CPU %.0f%% of the time, over %.0f%%): %s", 100*starved, 100*testbin.Starved, msg)
			}
			t.Error(msg)
		}
	}

	// Playback at max plays bins of most of a second each in slices.
	if code, body := post(context.Background(), "/api/playback", `{"max": true}`); code != 200 {
		t.Fatalf("max: %d %s", code, body)
	}
	answers("playing at max", poll(func(p dash.Playback) bool { return p.T >= 2 }))
	// A lab the fleet keeps up with, whose Compare all of 15 algorithms
	// is most of a minute of CPU (least-* scan 300 servers a pick),
	// posted as the page posts it: played from 0, paused.
	long, _ := json.Marshal(map[string]string{"yaml": "name: long\nduration: 60s\nclients: {rate: 10000}\nservers:\n  - {count: 300}\n"})
	if code, body := post(context.Background(), "/api/lab", string(long)); code != 200 {
		t.Fatalf("POST /api/lab: %d %s", code, body)
	}
	if code, body := post(context.Background(), "/api/playback", `{"paused": true}`); code != 200 {
		t.Fatalf("pause: %d %s", code, body)
	}

	// Compare all: its client goes away after it has started, and its
	// runs stop.
	gone, leave := context.WithCancel(context.Background())
	answered := make(chan int, 1)
	go func() { code, _ := post(gone, "/api/compare", `{}`); answered <- code }()
	most := 0.0
	took := poll(func(p dash.Playback) bool {
		if p.Work != nil {
			most = max(most, p.Work.Done)
			if p.Work.Done > 0 {
				leave()
			}
		}
		return p.Work == nil && most > 0
	})
	leave()
	<-answered
	answers("compare all, its client gone", took)
	if most >= 0.5 {
		t.Errorf("compare all went on to %.0f%% of its runs after its client went away", 100*most)
	}

	// A newer long request replaces the older one: the first answers 409.
	first := make(chan string, 1)
	go func() {
		code, body := post(context.Background(), "/api/compare", `{}`)
		first <- http.StatusText(code) + " " + body[:min(len(body), 300)]
	}()
	poll(func(p dash.Playback) bool { return p.Work != nil && p.Work.Done > 0 })
	second, stopSecond := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(second, "GET", base+"/api/report.json", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case got := <-first:
		if !strings.Contains(got, "replaced by a newer one") || !strings.Contains(got, "Conflict") {
			t.Errorf("the first compare all, replaced: %s", got)
		}
	case <-time.After(60 * time.Second):
		t.Error("the first compare all did not stop when the JSON report replaced it")
	}
	stopSecond()
}
