package main

import (
	"bufio"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// retryStormMap is the JSON of a small lab sweep retry-storm over a
// trigger's speed and length (internal/watch's map tests read it too).
var retryStormMap = filepath.Join("..", "..", "internal", "watch", "testdata", "retry-storm-map.json")

// Every usage mistake exits 2 with a message before anything runs; a flag
// that would change nothing is refused rather than ignored.
func TestUsageMistakesExit2(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.yaml")
	os.WriteFile(empty, []byte("# nothing yet\n\n"), 0o644)
	cases := map[string][]string{
		"unknown command":                   {"bogus"},
		"did you mean sim":                  {"simm"},
		"accepts 1 arg":                     {"sim"},
		"usage: lab chaos":                  {"chaos"},
		"--series":                          {"sim", "rr-slow", "--series"},
		"--duration 0s":                     {"sim", "rr-slow", "--duration", "0s"},
		"the lab file is empty":             {"sim", empty},
		"add --json":                        {"run", "rr-slow", "--series", "--dashboard", ""},
		"--lab-url":                         {"chaos", "kill", "s2", "--lab-url", "https://127.0.0.1:8000"},
		"--speed: must be from 0.1 to 1000": {"watch", "rr-slow", "--speed", "5000"},
		"not a compare setting of rr-slow":  {"watch", "rr-slow", "--setting", "nope"},
		"no scenario \"nope\"":              {"watch", "nope"},
		"--map: open":                       {"watch", "retry-storm", "--map", filepath.Join(t.TempDir(), "none.json")},
		"map.json: a map of lab retry-storm, not of rr-slow": {"watch", "rr-slow", "--map", retryStormMap},
		"empty.yaml: not a sweep report of lab sweep --json": {"watch", "retry-storm", "--map", empty},
	}
	for want, args := range cases {
		out, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, want) || strings.Contains(errOut, "process logs") || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and a message with %q, before anything starts", args, code, out, errOut, want)
		}
	}
	if out, _, code := lab(t); code != 0 || !strings.Contains(out, "Available Commands") {
		t.Errorf("lab alone: exit %d, want its help", code)
	}
}

// A lab file without a name is named after its file.
func TestUnnamedLabTakesFileName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "quiet-lab.yaml")
	os.WriteFile(path, []byte("duration: 1s\n"), 0o644)
	if out, errOut, code := lab(t, "sim", path); code != 0 || !strings.Contains(out, "lab quiet-lab (sim, seed 1, 1s)") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
}

// A second lab up (its controller's or balancer's port taken) is refused
// with exit 2 before any process starts.
func TestUpRefusesTakenPorts(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	for flag, args := range map[string][]string{
		"--listen": {"up", tinyLab(t), "--listen", addr, "--lb", "127.0.0.1:0"},
		"--lb":     {"up", tinyLab(t), "--listen", "127.0.0.1:0", "--lb", "http://" + addr + "/"},
	} {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, flag+" "+addr) || !strings.Contains(errOut, "another lab up") ||
			strings.Contains(errOut, "process logs") {
			t.Errorf("%s taken: exit %d, stderr %q; want 2 naming %s before anything starts", flag, code, errOut, flag)
		}
	}
}

// lab up's hint names the binary as it was run and, off the default
// address, --lab-url; lab chaos takes that address with or without
// http:// and adds a server without being told its name.
func TestUpHintAndChaosURL(t *testing.T) {
	port := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	up := exec.CommandContext(ctx, "./"+filepath.Base(labBin), "up", tinyLab(t), "--listen", "127.0.0.1:"+port,
		"--lb", "127.0.0.1:0", "--logs", filepath.Join(t.TempDir(), "processes.log"))
	up.Dir = filepath.Dir(labBin)
	stdout, err := up.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := up.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		up.Process.Signal(syscall.SIGINT)
		up.Wait()
	}()
	var welcome strings.Builder
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "Ctrl-C stops") {
		welcome.WriteString(sc.Text() + "\n")
	}
	want := "drills: ./" + filepath.Base(labBin) + " chaos --lab-url 127.0.0.1:" + port + " kill s2"
	if !strings.Contains(welcome.String(), want) {
		t.Fatalf("the hint should read %q:\n%s", want, welcome.String())
	}
	for _, url := range []string{"http://127.0.0.1:" + port + "/", "http://127.0.0.1:" + port, "127.0.0.1:" + port} {
		out, errOut, code := lab(t, "chaos", "--lab-url", url, "restore", "s1")
		if code != 0 || !strings.Contains(out, "applied: restore s1") {
			t.Errorf("--lab-url %s: exit %d, %s%s", url, code, out, errOut)
		}
	}
	if out, errOut, code := lab(t, "chaos", "--lab-url", "http://127.0.0.1:"+port+"/", "add-server"); code != 0 ||
		!strings.Contains(out, "applied: add-server s3") {
		t.Errorf("lab chaos add-server: exit %d, %s%s", code, out, errOut)
	}
}

// freePort is a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}
