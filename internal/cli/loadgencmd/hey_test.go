package loadgencmd

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/cli/usage"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
)

// parsed is the lab and options a command line makes, without running it.
func parsed(t *testing.T, args ...string) (options, *labfile.Lab) {
	t.Helper()
	o, fs, err := parseFlags(args, &bytes.Buffer{}, &bytes.Buffer{})
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	lab, err := loadLab(o, fs)
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	return o, lab
}

// The short flags mean what they mean to a user of hey or wrk: -c a
// closed loop of that many users (without a rate), -d the duration, -n a
// number of requests, -H a header, -q a rate per connection; a URL as an
// argument is a target.
func TestShortFlagsAsHeyAndWrk(t *testing.T) {
	o, lab := parsed(t, "-c", "10", "-d", "2s", "http://127.0.0.1:1/")
	c := lab.Clients
	if c.Mode != labfile.ClosedLoop || c.Users != 10 || c.Think != 0 || lab.Duration != 2*time.Second || o.connections != 10 ||
		strings.Join(o.targets, " ") != "http://127.0.0.1:1/" || !o.plain {
		t.Errorf("-c 10 -d 2s URL: mode %s, users %d, think %v, duration %v, connections %d, targets %q, plain %v",
			c.Mode, c.Users, c.Think, lab.Duration, o.connections, o.targets, o.plain)
	}
	o, lab = parsed(t, "http://127.0.0.1:1/", "-n", "1000", "-c", "10", "-H", "Accept: text/plain", "-H", "X-A: b")
	if o.count != 1000 || lab.Clients.Mode != labfile.ClosedLoop || lab.Duration != labfile.Bounds.Duration.Max ||
		strings.Join(o.headers, "|") != "Accept: text/plain|X-A: b" {
		t.Errorf("-n 1000 -c 10 -H -H: count %d, mode %s, duration %v, headers %q", o.count, lab.Clients.Mode, lab.Duration, o.headers)
	}
	o, lab = parsed(t, "-c", "5", "-q", "20", "http://127.0.0.1:1/")
	if lab.Clients.Mode != labfile.OpenLoop || lab.Clients.Rate != 100 || o.connections != 5 {
		t.Errorf("-c 5 -q 20: mode %s, rate %g, connections %d; want 100/s in total over 5 connections", lab.Clients.Mode, lab.Clients.Rate, o.connections)
	}
	// a rate keeps the open loop, -c then bounds the connections (wrk2)
	o, lab = parsed(t, "--rate", "500", "-c", "8", "http://127.0.0.1:1/")
	if lab.Clients.Mode != labfile.OpenLoop || lab.Clients.Rate != 500 || o.connections != 8 {
		t.Errorf("--rate 500 -c 8: mode %s, rate %g, connections %d", lab.Clients.Mode, lab.Clients.Rate, o.connections)
	}
	// the defaults: the built-in lab's load
	d := labfile.Default()
	if _, lab = parsed(t, "http://127.0.0.1:1/"); lab.Clients.Mode != labfile.OpenLoop || lab.Clients.Rate != d.Clients.Rate || lab.Duration != d.Duration {
		t.Errorf("no load flag: %s %g/s for %v, want the built-in lab's", lab.Clients.Mode, lab.Clients.Rate, lab.Duration)
	}
	var out bytes.Buffer
	if err := run([]string{"-n", "1000", "-c", "10", "http://127.0.0.1:1/", "--check-config"}, &out, &bytes.Buffer{}); err != nil ||
		out.String() != "config ok: plain load of http://127.0.0.1:1/, 10 users in a closed loop until 1000 requests, at most 10 connections per endpoint\n" {
		t.Errorf("--check-config: %v %q", err, out.String())
	}
}

// Load flags that make no sense together are refused with one line, exit
// status 2, instead of one of them being ignored.
func TestLoadFlagRefusals(t *testing.T) {
	closed := writeFile(t, t.TempDir(), "closed.yaml", "clients: {mode: closed, users: 5}\n")
	trace := writeFile(t, t.TempDir(), "t.csv", "0,0.01\n0.5,0.01\n")
	for want, args := range map[string][]string{
		"-q is requests/s per connection (hey's -q is per worker): give -c N too":                 {"-q", "20", "http://127.0.0.1:1/"},
		"-q and --rate both set the rate":                                                         {"-c", "5", "-q", "20", "--rate", "50", "http://127.0.0.1:1/"},
		"-q and --profile both set the rate":                                                      {"-c", "5", "-q", "20", "--profile", "ramp from=1 to=5 over=1s", "http://127.0.0.1:1/"},
		"--rate-per-connection: must be > 0":                                                      {"-c", "5", "--rate-per-connection", "0", "http://127.0.0.1:1/"},
		"--rate: the lab's clients are a closed loop (clients.mode: closed)":                      {"--lab", closed, "--rate", "50", "http://127.0.0.1:1/"},
		"-q: the trace of --replay sets when requests start":                                      {"-c", "2", "-q", "5", "--replay", trace, "http://127.0.0.1:1/"},
		"-n: must be at least 1":                                                                  {"-n", "0", "http://127.0.0.1:1/"},
		`unexpected argument "extra": an argument is a target`:                                    {"http://127.0.0.1:1/", "extra"},
		"unknown flag --conections; did you mean --connections? (loadgen --help lists the flags)": {"--conections", "3", "http://127.0.0.1:1/"},
		"unknown flag -z; give -d, --duration (hey's -z)":                                         {"-z", "3s", "http://127.0.0.1:1/"},
	} {
		var out, errOut bytes.Buffer
		code := Main(args, &out, &errOut)
		if code != 2 || out.Len() != 0 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the one line %q", args, code, errOut.String(), want)
		}
	}
}

// countingServer answers 200 after a short wait and counts the requests and
// the most it held at once.
func countingServer(t *testing.T, wait time.Duration) (addr string, total, peak *atomic.Int64) {
	total, peak = new(atomic.Int64), new(atomic.Int64)
	var now atomic.Int64
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{NoDefaultDate: true, Handler: func(ctx *fasthttp.RequestCtx) {
		total.Add(1)
		n := now.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(wait)
		now.Add(-1)
	}}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(); <-done })
	return ln.Addr().String(), total, peak
}

// -c N -d D: N users in a closed loop (no think time) for D, never more
// than N requests at the service at once, as hey and wrk run.
func TestClosedLoopFromFlags(t *testing.T) {
	addr, total, peak := countingServer(t, 2*time.Millisecond)
	run := runJSON(t, "-c", "4", "-d", "500ms", "http://"+addr+"/")
	if run.Requests < 40 || run.Succeeded != run.Requests || uint64(total.Load()) != run.Requests {
		t.Errorf("%d requests, %d succeeded, the server saw %d", run.Requests, run.Succeeded, total.Load())
	}
	if peak.Load() > 4 || peak.Load() < 2 || run.Load.Rate != 0 || run.Load.Connections != 4 {
		t.Errorf("at most %d at once at the server (want 4 users), rate %g, connections %d", peak.Load(), run.Load.Rate, run.Load.Connections)
	}
}

// -n N sends exactly N requests and stops, in a closed loop (hey -n 300
// -c 5) as in the open loop at a rate.
func TestRequestsThenStop(t *testing.T) {
	addr, total, peak := countingServer(t, time.Millisecond)
	start := time.Now()
	run := runJSON(t, "-n", "300", "-c", "5", "http://"+addr+"/")
	if run.Requests != 300 || run.Succeeded != 300 || total.Load() != 300 || peak.Load() > 5 {
		t.Errorf("-n 300 -c 5: %d requests, %d succeeded, the server saw %d (at most %d at once)", run.Requests, run.Succeeded, total.Load(), peak.Load())
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("-n 300 -c 5 took %v: the run did not stop at its 300th answer", took)
	}
	total.Store(0)
	if run = runJSON(t, "-n", "40", "--rate", "400", "http://"+addr+"/"); run.Requests != 40 || total.Load() != 40 {
		t.Errorf("-n 40 --rate 400: %d requests, the server saw %d", run.Requests, total.Load())
	}
	total.Store(0) // -d first: whichever comes first
	if run = runJSON(t, "-n", "100000", "-c", "2", "-d", "300ms", "http://"+addr+"/"); run.Requests >= 100000 || run.Requests == 0 ||
		uint64(total.Load()) != run.Requests {
		t.Errorf("-n 100000 -d 300ms: %d requests, the server saw %d", run.Requests, total.Load())
	}
}

// halfAnswerServer sends the status line, the headers and a piece of the
// body of every answer, then hangs until the test ends.
func halfAnswerServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nhalf"))
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// A service that sends half an answer and hangs: no request succeeds, the
// table says how they ended (timed out) and why (no answer by the end),
// and the run exits 1. Before, it printed Success 0.00%, Status Codes -,
// Errors - and exited 0, the timeouts only in the JSON and the CSV.
func TestHalfAnswerThenHangFails(t *testing.T) {
	addr := halfAnswerServer(t)
	var out, errOut bytes.Buffer
	code := Main([]string{"http://" + addr + "/", "--rate", "100", "-d", "300ms", "--drain", "300ms"}, &out, &errOut)
	if code != 1 || !strings.Contains(out.String(), "no answer by the end:") || !strings.Contains(out.String(), "timed out)") ||
		!strings.Contains(errOut.String(), "loadgen: no request succeeded: http://"+addr+"/: 0 of ") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}

// A plain run's exports are about the target: the CSV has no client and
// key columns and the HdrHistogram log's header names the URL, not the
// built-in lab.
func TestPlainExports(t *testing.T) {
	addr, dir := server(t), t.TempDir()
	rows, hlog := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.hlog")
	run := runJSON(t, "-n", "20", "-c", "2", "http://"+addr+"/", "--out", rows, "--hdr-log", hlog)
	f, err := os.Open(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	table, err := csv.NewReader(f).ReadAll()
	if err != nil || len(table) != int(run.Requests)+1 || strings.Join(table[0], ",") != strings.Join(report.PlainCSVColumns, ",") {
		t.Errorf("%d rows for %d requests (%v), header %q", len(table)-1, run.Requests, err, table[0])
	}
	data, _ := os.ReadFile(hlog)
	if !strings.Contains(string(data), "#[lblab loadgen http://"+addr+"/;") || strings.Contains(string(data), "playground") {
		t.Errorf("the HdrHistogram log's header:\n%.300s", data)
	}
}

func TestVersionFlag(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"--version"}, &out, &errOut); code != 0 || !strings.HasPrefix(out.String(), "loadgen version ") ||
		!strings.Contains(out.String(), ", commit ") || errOut.Len() != 0 {
		t.Errorf("exit %d, %q %q", code, out.String(), errOut.String())
	}
	if err := run([]string{"--version"}, &out, &errOut); !errors.Is(err, usage.ErrVersion) {
		t.Errorf("run --version: %v", err)
	}
}

// A loadgen behind its schedule warns once: the report's BEHIND paragraph
// and one line on stderr (with --json, where the report has no paragraph,
// the paragraph on stderr). Before, stderr got a log line and three "!!!"
// lines repeating the report's paragraph.
func TestBehindWarnsOnce(t *testing.T) {
	addr, _, _ := countingServer(t, 20*time.Millisecond) // 1 connection carries 50/s of the 200/s asked
	args := []string{"http://" + addr + "/", "--rate", "200", "-c", "1", "-d", "500ms", "--drain", "3s"}
	var out, errOut bytes.Buffer
	if code := Main(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if strings.Count(out.String(), "BEHIND: the loadgen started") != 1 || strings.Count(errOut.String(), "\n") != 1 ||
		!strings.HasPrefix(errOut.String(), "loadgen: behind its schedule: ") || !strings.Contains(errOut.String(), "see BEHIND in the report") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	if code := Main(append(args, "--json"), &out, &errOut); code != 0 || strings.Count(errOut.String(), "BEHIND: the loadgen started") != 1 ||
		strings.Contains(errOut.String(), "!!!") {
		t.Errorf("--json: exit %d, stderr:\n%s", code, errOut.String())
	}
}

// A service that answers only 500s: no request succeeded, so the run exits
// 1 and says what the answers were (before, any answer made it 0).
func TestOnlyErrorsFails(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &fasthttp.Server{NoDefaultDate: true, Handler: func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(500) }}
	done := make(chan struct{})
	go func() { srv.Serve(ln); close(done) }()
	t.Cleanup(func() { srv.Shutdown(); <-done })
	var out, errOut bytes.Buffer
	url := "http://" + ln.Addr().String() + "/"
	code := Main([]string{"-n", "25", "-c", "5", url}, &out, &errOut)
	if want := "loadgen: no request succeeded: " + url + ": 0 of 25 requests succeeded (answers 500: 25)\n"; code != 1 || errOut.String() != want ||
		!strings.Contains(out.String(), "0.00%  (25 failed)") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr: %q\nwant:   %q", code, out.String(), errOut.String(), want)
	}
}
