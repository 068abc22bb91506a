package loadgencmd

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/testbin"
)

// A bad trace, targets file or header is bad input, named at its line,
// and no export file is written for a run that never starts.
func TestTraceFlagsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("0,0.01\n1,0.01\n0.5,0.01\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	cases := map[string][]string{
		bad + ":3: time":    {"--target", "http://127.0.0.1:1", "--replay", bad, "--out", out},
		"no such file":      {"--target", "http://127.0.0.1:1", "--replay", filepath.Join(dir, "none")},
		"a trace holds one": {"--target", "a=http://127.0.0.1:1,b=http://127.0.0.1:2", "--record", out},
		"--header":          {"--target", "http://127.0.0.1:1", "--header", "no colon"},
		"--targets-file":    {"--targets-file", filepath.Join(dir, "none")},
		"method":            {"--target", "http://127.0.0.1:1", "--method", "get"},
		"without --target,": {"--targets-file", writeFile(t, dir, "t.txt", "GET http://127.0.0.1:1/\n"), "--target", "http://127.0.0.1:1"},
	}
	for want, args := range cases {
		var errOut bytes.Buffer
		err := run(args, &bytes.Buffer{}, &errOut)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want a usage error saying %q", args, err, want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("an export file was created for a run that never started")
	}
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The loadgen records a run; replayed (its duration from the trace), the
// same number of requests goes out; the CSV has a row per request.
func TestRecordThenReplay(t *testing.T) {
	addr, dir := server(t), t.TempDir()
	trace, rows := filepath.Join(dir, "run.trace"), filepath.Join(dir, "run.csv")
	first := runJSON(t, "--target", "http://"+addr, "--duration", "400ms", "--rate", "100", "--record", trace, "--out", rows)
	f, err := os.Open(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	table, err := csv.NewReader(f).ReadAll()
	if err != nil || uint64(len(table)-1) != first.Requests || first.Requests == 0 {
		t.Fatalf("%d rows for %d requests (%v)", len(table)-1, first.Requests, err)
	}
	again := runJSON(t, "--target", "http://"+addr, "--replay", trace)
	if again.Requests != first.Requests {
		t.Errorf("replay sent %d requests, the recording has %d", again.Requests, first.Requests)
	}
}

func runJSON(t *testing.T, args ...string) report.Run {
	t.Helper()
	var out, errOut bytes.Buffer
	if err := run(append(args, "--json"), &out, &errOut); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, errOut.String())
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || len(rep.Runs) != 1 {
		t.Fatalf("report: %v\n%s", err, out.String())
	}
	return rep.Runs[0]
}

// nginx finds Debian's nginx; without it the test is skipped locally and
// fails under CI (where .ci/run installs it).
func nginx(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("nginx")
	if err != nil {
		p, err = exec.LookPath("/usr/sbin/nginx")
	}
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("nginx is not installed (apt-get install -y nginx): %v", err)
	}
	testbin.Skip(t, "nginx is not installed (apt-get update && apt-get install -y nginx): the loadgen against a real HTTP service is untested")
	return ""
}

// startNginx runs nginx in the foreground on a free 127.0.0.1 port with its
// own prefix, config and logs in a temp directory, and stops it at the end.
func startNginx(t *testing.T) string {
	bin, dir := nginx(t), t.TempDir()
	for try := 1; ; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		conf := writeFile(t, dir, "nginx.conf", fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  server {
    listen %[2]s;
    location / { return 200 "hello from nginx\n"; }
  }
}
`, dir, addr))
		cmd := exec.Command(bin, "-p", dir, "-c", conf, "-e", filepath.Join(dir, "error.log"))
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stderr, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGQUIT) // graceful stop
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		if listening(addr, exited) {
			return addr
		}
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		if try < 3 && strings.Contains(string(log), "Address already in use") {
			continue // the port was taken meanwhile: another one
		}
		t.Fatalf("nginx did not start on %s:\n%s%s", addr, stderr.String(), log)
	}
}

// listening waits up to 5 s for addr to accept connections; false if the
// process exits first.
func listening(addr string, exited <-chan struct{}) bool {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case <-exited:
			return false
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return true
		}
	}
	return false
}

// The loadgen against a service that is not lblab's: nginx answers 200,
// the report counts every request as served by the host that answered.
func TestLoadgenAgainstNginx(t *testing.T) {
	addr := startNginx(t)
	run := runJSON(t, "--plain", "--target", "http://"+addr+"/", "--duration", "1s", "--rate", "100", "--method", "GET",
		"--header", "Accept: text/plain")
	if run.Requests < 50 || run.Succeeded != run.Requests || run.Outcomes.Succeeded != run.Requests {
		t.Fatalf("against nginx: %d requests, %d succeeded (%+v)", run.Requests, run.Succeeded, run.Outcomes)
	}
	if len(run.Servers) != 1 || run.Servers[0].Name != addr || run.Servers[0].Completed != run.Requests {
		t.Errorf("servers: %+v", run.Servers)
	}
	if ld := run.Load; ld == nil || ld.Target != "http://"+addr+"/" || ld.StatusCodes[200] != run.Requests || len(ld.ErrorKinds) != 0 ||
		ld.Sent != run.Requests || ld.Service.Count != run.Requests {
		t.Errorf("load: %+v", run.Load)
	}
	// as hey -n 1000 -c 10 and wrk -c 10 -d 1s would load it
	if run := runJSON(t, "-n", "1000", "-c", "10", "http://"+addr+"/"); run.Requests != 1000 || run.Succeeded != 1000 ||
		run.Load.StatusCodes[200] != 1000 || run.Load.Connections != 10 {
		t.Errorf("-n 1000 -c 10: %d requests, %d succeeded, codes %v, %d connections", run.Requests, run.Succeeded, run.Load.StatusCodes, run.Load.Connections)
	}
	if run := runJSON(t, "-c", "10", "-d", "1s", "http://"+addr+"/"); run.Requests < 100 || run.Succeeded != run.Requests || run.Load.Rate != 0 {
		t.Errorf("-c 10 -d 1s: %d requests, %d succeeded, rate %g (want a closed loop)", run.Requests, run.Succeeded, run.Load.Rate)
	}
}
