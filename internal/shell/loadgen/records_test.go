package loadgen

import (
	"bytes"
	"encoding/csv"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/workload"
)

func memTrace(name, text string) *workload.Trace {
	return &workload.Trace{Name: name, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(text)), nil }}
}

// A live run's trace has a line per request with the server that answered
// and its times; the CSV a row per request. Replayed, the trace sends the
// same requests again.
func TestRecordAndReplayLive(t *testing.T) {
	lab := testLab(t, map[string]string{"clients.rate": "200", "clients.retries": "1"})
	f := newFake(t, "b1", false, func(g got, n int) answer {
		if n%10 == 3 {
			return answer{status: 500, loadQ: -1} // some retries, so some requests have two answers
		}
		return okAfterWork(g, n)
	})
	var trace, rows bytes.Buffer
	tw := report.NewTraceWriter(&trace, workload.TraceHeader{Lab: lab.Name, Mode: "live", Seed: lab.Seed})
	cw := report.NewRequestsCSV(&rows)
	cfg := Config{Lab: lab, Targets: []Target{toFakes("", f)}, Dial: dialer(f),
		Logs: func(name string) report.RequestLog { return report.Tee(tw.Run(name), cw.Run(name)) }}
	rep, _ := runLive(t, cfg)
	run := rep.Runs[0]
	checkAccounted(t, run)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(trace.String()), "\n")
	table, err := csv.NewReader(&rows).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if uint64(len(lines)-1) != run.Requests || uint64(len(table)-1) != run.Requests || run.Retries == 0 {
		t.Fatalf("%d trace lines, %d csv rows for %s", len(lines)-1, len(table)-1, describe(run))
	}
	if !strings.Contains(lines[0], `"mode":"live"`) || !strings.Contains(trace.String(), `"server":"b1","result":"error"`) ||
		!strings.Contains(lines[1], `"server":"b1","result":"ok"`) {
		t.Errorf("trace:\n%s\n%s", lines[0], lines[1])
	}
	first := f.got()

	g := newFake(t, "b2", false, okAfterWork)
	rep2, _ := runLive(t, Config{Lab: lab, Targets: []Target{toFakes("", g)}, Dial: dialer(g), Replay: memTrace("t", trace.String())})
	if rep2.Runs[0].Requests != run.Requests {
		t.Errorf("replayed %d requests, recorded %d", rep2.Runs[0].Requests, run.Requests)
	}
	key := func(x got) got { return got{Seq: x.Seq, Client: x.Client, Key: x.Key, Work: x.Work} }
	want, have := map[got]bool{}, map[got]bool{}
	for _, x := range first {
		want[key(x)] = true
	}
	for _, x := range g.got() {
		have[key(x)] = true
	}
	if len(want) != int(run.Requests) || len(have) != len(want) {
		t.Fatalf("recorded %d distinct requests, replayed %d", len(want), len(have))
	}
	for k := range want {
		if !have[k] {
			t.Fatalf("request %+v was not replayed", k)
		}
	}
}

// seen is one request as a plain HTTP server saw it.
type seen struct {
	method, uri, host, body string
	header                  map[string]string
}

// plainServer is an in-memory HTTP server that is not lblab's: it records
// what it gets and answers 200 with no lab headers.
func plainServer(t *testing.T) (*fasthttputil.InmemoryListener, func() []seen) {
	t.Helper()
	ln := fasthttputil.NewInmemoryListener()
	var mu sync.Mutex
	var all []seen
	srv := &fasthttp.Server{Logger: quiet{}, CloseOnShutdown: true, NoDefaultDate: true, MaxIdleWorkerDuration: 50 * time.Millisecond, Handler: func(ctx *fasthttp.RequestCtx) {
		s := seen{method: string(ctx.Method()), uri: string(ctx.RequestURI()), host: string(ctx.Host()),
			body: string(ctx.PostBody()), header: map[string]string{}}
		for k, v := range ctx.Request.Header.All() {
			s.header[string(k)] = string(v)
		}
		mu.Lock()
		all = append(all, s)
		mu.Unlock()
		ctx.SetStatusCode(200)
	}}
	done := make(chan struct{})
	go func() { _ = srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(); ln.Close(); <-done })
	return ln, func() []seen { mu.Lock(); defer mu.Unlock(); return slices.Clone(all) }
}

// --plain with a targets file: no X-Lab-* header goes out, each request
// takes its entry's method, path, headers and body in turn, and the report
// counts the answers against the host that gave them. In both loops: a
// worker sends a plain request it built for an earlier attempt of the same
// entry again as it is (exchangeBufs), and one of the other entry rebuilt.
func TestPlainTargetsFile(t *testing.T) {
	for name, set := range map[string]map[string]string{
		"open":   {"clients.rate": "100"},
		"closed": {"clients.mode": "closed", "clients.users": "4", "clients.think": "0s", "duration": "300ms"},
	} {
		t.Run(name, func(t *testing.T) { testPlainTargetsFile(t, set) })
	}
}

func testPlainTargetsFile(t *testing.T, set map[string]string) {
	dir := t.TempDir()
	body := filepath.Join(dir, "body.json")
	targets := filepath.Join(dir, "targets.txt")
	if err := os.WriteFile(body, []byte(`{"q":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(targets, []byte("# two requests\nGET http://svc:80/a\nX-One: 1\n\nPOST http://svc:80/b\nContent-Type: application/json\n@"+body+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reqs, err := ReadTargetsFile(targets)
	if err != nil {
		t.Fatal(err)
	}
	ln, gotten := plainServer(t)
	lab := testLab(t, set)
	rep, _ := runLive(t, Config{Lab: lab, Requests: reqs, HTTP: HTTP{Plain: true, Header: []Header{{"Authorization", "Bearer x"}}},
		Dial: func(string) (net.Conn, error) { return ln.Dial() }})
	run := rep.Runs[0]
	checkAccounted(t, run)
	all := gotten()
	if run.Name != "targets" || run.Succeeded != run.Requests || len(all) != int(run.Requests) || len(all) < 50 {
		t.Fatalf("%s; the server saw %d", describe(run), len(all))
	}
	var a, b int
	for _, s := range all {
		for k := range s.header {
			if strings.HasPrefix(strings.ToLower(k), "x-lab") {
				t.Fatalf("--plain sent %s", k)
			}
		}
		if s.header["Authorization"] != "Bearer x" || s.host != "svc:80" {
			t.Fatalf("request %+v", s)
		}
		switch {
		case s.method == "GET" && s.uri == "/a" && s.header["X-One"] == "1" && s.body == "":
			a++
		case s.method == "POST" && s.uri == "/b" && s.header["Content-Type"] == "application/json" && s.body == `{"q":1}`:
			b++
		default:
			t.Fatalf("request %+v", s)
		}
	}
	if a-b > 1 || b-a > 1 {
		t.Errorf("entries not taken in turn: %d and %d", a, b)
	}
	if len(run.Servers) != 1 || run.Servers[0].Name != "svc:80" || run.Servers[0].Sent != run.Requests {
		t.Errorf("servers %+v", run.Servers)
	}
}

func TestReadTargetsFileErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"header first": "X-A: 1\nGET http://h:1/\n",
		"https":        "GET https://h:1/\n",
		"bad header":   "GET http://h:1/\nnot a header\n",
		"no body":      "GET http://h:1/\n@" + filepath.Join(dir, "missing") + "\n",
		"empty":        "# nothing\n",
	}
	want := map[string]string{"header first": ":1: ", "https": ":1: ", "bad header": ":2: ", "no body": ":2: ", "empty": "no target"}
	for name, text := range cases {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-"))
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadTargetsFile(p)
		if err == nil || !strings.Contains(err.Error(), p+want[name]) && !strings.Contains(err.Error(), want[name]) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := New(Config{Lab: testLab(t, nil), Requests: []Request{{Method: "GET", URL: "http://h:1/"}},
		Targets: []Target{{URLs: []string{"http://h:1/"}}}}); err == nil {
		t.Error("a targets file and --target together are accepted")
	}
}
