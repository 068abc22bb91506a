package watch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// inMemory hands one request to srv in memory, as the page's wasm module
// does (cmd/labwasm).
func inMemory(t *testing.T, srv *Server, method, path, body string) (int, string) {
	t.Helper()
	a := srv.Answer(dash.NewRequest(method, path, []byte(body)))
	return a.Status, string(a.Body)
}

func watching(t *testing.T, name string) *Server {
	t.Helper()
	l, setting := scenarioLab(t, name)
	srv, err := New(Options{Lab: l, Scenario: name, Setting: setting, Paused: true})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// GET /api/report.json of a scenario is lab sim SCENARIO --json: the
// scenario's file with every compare setting, not the one setting played.
func TestReportIsLabSimsOfTheScenario(t *testing.T) {
	srv := watching(t, "rr-slow")
	data, err := os.ReadFile("../../scenarios/rr-slow.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := labyaml.Parse("scenarios/rr-slow.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SimReport(l)
	if err != nil {
		t.Fatal(err)
	}
	code, got := inMemory(t, srv, "GET", "/api/report.json", "")
	if code != 200 || got != string(want) {
		t.Fatalf("GET /api/report.json: %d, %d bytes; want 200 and lab sim's %d bytes", code, len(got), len(want))
	}
	var rep struct {
		Runs []struct{ Name string } `json:"runs"`
	}
	if err := json.Unmarshal(want, &rep); err != nil || len(rep.Runs) != len(l.Compare) || len(rep.Runs) < 2 {
		t.Fatalf("lab sim's report of rr-slow has %d runs (%v), want its %d compare settings", len(rep.Runs), err, len(l.Compare))
	}
}

// POST /api/lab plays a lab file (its first compare setting, the seed
// given); one that does not parse is refused with labyaml.Parse's
// file:line:col and the lab playing stays.
func TestPostLabPlaysItOrNamesFileLineCol(t *testing.T) {
	srv := watching(t, "rr-slow")
	h := srv
	bad := "name: mine\nservers:\n  - name: s1\n    speed: fast\n"
	_, perr := labyaml.Parse("mine.yaml", []byte(bad))
	body, _ := json.Marshal(labIn{File: "mine.yaml", YAML: bad})
	code, out := inMemory(t, h, "POST", "/api/lab", string(body))
	var e struct{ Error string }
	_ = json.Unmarshal([]byte(out), &e)
	if code != 400 || perr == nil || e.Error != perr.Error() || !strings.HasPrefix(e.Error, "mine.yaml:4:") {
		t.Fatalf("a bad lab file: %d %s; want 400 with %v", code, out, perr)
	}
	if _, src := inMemory(t, h, "GET", "/api/source", ""); !strings.Contains(src, `"file":"scenarios/rr-slow.yaml"`) {
		t.Fatalf("after a refused lab the source is %.200s, want rr-slow's", src)
	}

	text, err := os.ReadFile("../../scenarios/retry-storm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	seq, _ := srv.Latest()
	seed := uint64(5)
	body, _ = json.Marshal(labIn{File: "storm.yaml", YAML: string(text), Seed: json.RawMessage(strconv.FormatUint(seed, 10))})
	code, out = inMemory(t, h, "POST", "/api/lab", string(body))
	l, err := labyaml.Parse("storm.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	if code != 200 || !strings.Contains(out, `"setting":"`+l.Compare[0].Name+`"`) || !strings.Contains(out, `"seed":5`) {
		t.Fatalf("POST /api/lab: %d %s; want 200, setting %s, seed 5", code, out, l.Compare[0].Name)
	}
	if n, snap := srv.Latest(); n == seq || !strings.Contains(string(snap), `"lab":"retry-storm"`) {
		t.Fatalf("no new snapshot of retry-storm after POST /api/lab (published %d, then %d)", seq, n)
	}
	var src struct {
		File, YAML string
		Seed       uint64
	}
	_, out = inMemory(t, h, "GET", "/api/source", "")
	if err := json.Unmarshal([]byte(out), &src); err != nil || src.File != "storm.yaml" || src.YAML != string(text) || src.Seed != 5 {
		t.Fatalf("GET /api/source: %.200s (%v); want storm.yaml's text, seed 5", out, err)
	}
	l.Seed = 5
	want, err := SimReport(l)
	if err != nil {
		t.Fatal(err)
	}
	if code, got := inMemory(t, h, "GET", "/api/report.json", ""); code != 200 || got != string(want) {
		t.Fatalf("the report of the posted lab: %d, %d bytes; want lab sim --seed 5's %d", code, len(got), len(want))
	}
}

// Tick plays on what the wall clock says and publishes: unpaused at 1x,
// a tick 500 ms of wall time later has reached 0.5 s of virtual time.
func TestTickPacesAgainstTheClockHandedIn(t *testing.T) {
	srv := watching(t, "rr-slow")
	if code, out := inMemory(t, srv, "POST", "/api/playback", `{"paused":false}`); code != 200 {
		t.Fatalf("unpause: %d %s", code, out)
	}
	srv.mu.Lock()
	start := srv.wall
	srv.mu.Unlock()
	seq, _ := srv.Latest()
	if again := srv.Tick(start.Add(500 * time.Millisecond)); again {
		t.Error("at 1x a tick asks for the next one at once")
	}
	n, snap := srv.Latest()
	if n == seq || !strings.Contains(string(snap), `"t_s":0.5,`) {
		t.Fatalf("after a tick 500 ms on: published %d -> %d, snapshot %.120s; want t_s 0.5", seq, n, snap)
	}
}

// POST /api/lab's seed is a whole number from 0 to 2^64-1: anything else
// (a negative number, a fraction, one too big, text) is refused with a
// message that names the seed and what it got, not the decoder's words;
// the lab playing stays. A seed above 2^53, which a JavaScript number
// cannot hold, is taken digit for digit.
func TestPostLabSeedIsAWholeNumber(t *testing.T) {
	srv := watching(t, "rr-slow")
	text := "name: mine\nduration: 5s\nservers:\n  - count: 2\nclients:\n  rate: 20\n"
	post := func(seed string) (int, string) {
		t.Helper()
		body := `{"file":"mine.yaml","yaml":` + jsonQuote(text) + `,"seed":` + seed + `}`
		return inMemory(t, srv, "POST", "/api/lab", body)
	}
	for _, bad := range []string{`-1`, `1.5`, `18446744073709551616`, `1e400`, `"abc"`, `"7"`, `true`, `[]`} {
		code, out := post(bad)
		var e struct{ Error string }
		_ = json.Unmarshal([]byte(out), &e)
		want := "seed: must be a whole number from 0 to 18446744073709551615, got " + bad
		if code != 400 || e.Error != want {
			t.Errorf("seed %s: %d %s; want 400 %q", bad, code, out, want)
		}
	}
	if _, src := inMemory(t, srv, "GET", "/api/source", ""); !strings.Contains(src, `"file":"scenarios/rr-slow.yaml"`) {
		t.Fatalf("after refused seeds the source is %.200s, want rr-slow's", src)
	}
	for _, seed := range []string{`0`, `9007199254740993`, `18446744073709551615`, `null`} {
		code, out := post(seed)
		want := seed
		if seed == "null" {
			want = "1" // the file's own
		}
		if code != 200 || !strings.Contains(out, `"seed":`+want+`,`) {
			t.Errorf("seed %s: %d %s; want 200 and seed %s", seed, code, out, want)
		}
		if _, src := inMemory(t, srv, "GET", "/api/source", ""); !strings.Contains(src, `"seed":`+want+`,`) {
			t.Errorf("seed %s: GET /api/source %.200s, want seed %s", seed, src, want)
		}
	}
}

func jsonQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// A pasted lab file gets what lab sim makes of the same file: one without
// a name is named after its file (the JSON report says "lab": "noname", as
// lab sim noname.yaml --json does), an empty one is refused as lab sim
// refuses it, and a file of 1 MiB as JSON fits the body (labfile's own
// size check, not the API's, has the last word on a bigger one).
func TestPostLabIsReadAsLabSimReadsTheFile(t *testing.T) {
	srv := watching(t, "rr-slow")
	text := "duration: 2s\nservers:\n  - count: 2\nclients:\n  rate: 20\n"
	path := filepath.Join(t.TempDir(), "noname.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := labyaml.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SimReport(l)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(labIn{File: "noname.yaml", YAML: text})
	if code, out := inMemory(t, srv, "POST", "/api/lab", string(body)); code != 200 {
		t.Fatalf("POST /api/lab: %d %s", code, out)
	}
	if _, got := inMemory(t, srv, "GET", "/api/report.json", ""); got != string(want) {
		t.Fatalf("the report of a lab without a name differs from lab sim's:\n%.300s\nwant\n%.300s", got, want)
	}

	_, lerr := labyaml.Load(writeFile(t, "empty.yaml", "# nothing\n"))
	body, _ = json.Marshal(labIn{File: "empty.yaml", YAML: "# nothing\n"})
	code, out := inMemory(t, srv, "POST", "/api/lab", string(body))
	if code != 400 || lerr == nil || !strings.Contains(out, "the lab file is empty") {
		t.Fatalf("an empty lab file: %d %s; want 400 with %v", code, out, lerr)
	}

	big := "name: big\n# " + strings.Repeat(`"x"`, 300<<10) + "\n" // one comment: the token cap is not the test
	body, _ = json.Marshal(labIn{File: "big.yaml", YAML: big})
	if code, out := inMemory(t, srv, "POST", "/api/lab", string(body)); code != 200 || len(body) < 1<<20 {
		t.Fatalf("a lab file of %d KiB (%d KiB as JSON): %d %.200s; want it played", len(big)>>10, len(body)>>10, code, out)
	}
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
