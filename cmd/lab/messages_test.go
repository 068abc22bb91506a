package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/scenarios"
)

// A lab file too large for a live run is refused with a hint that names
// the file as given, so that the hint can be pasted: lab sim s60 would be
// "no scenario".
func TestTooLargeHintNamesTheFile(t *testing.T) {
	// 60 servers: more processes than a live lab starts by default (50),
	// so lab run, up and sweep --live refuse before starting any
	path := filepath.Join(t.TempDir(), "s60.yaml")
	if err := os.WriteFile(path, []byte("name: s60\nservers: [{count: 60}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", path, "--dashboard", ""}, {"up", path, "--listen", "127.0.0.1:0"},
		{"sweep", path, "--vary", "clients.rate=100,200", "--live"}} {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.HasSuffix(strings.TrimSpace(errOut), "try lab sim "+path) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the hint lab sim %s", args, code, errOut, path)
		}
	}
	// the hint works
	if _, errOut, code := lab(t, "sim", path, "--duration", "1s"); code != 0 {
		t.Errorf("the hint's lab sim %s: exit %d: %s", path, code, errOut)
	}
}

// A --vary whose path is wrong echoes the whole --vary as given, not
// PATH=FROM followed by the error's colon (which read as a cut-off range).
func TestSweepVaryErrorEchoesTheSpec(t *testing.T) {
	_, errOut, code := lab(t, "sweep", "rr-slow", "--vary", "clients.rat=1:2:1")
	if code != 2 || !strings.Contains(errOut, "--vary clients.rat=1:2:1: at clients.rat=1: ") ||
		!strings.Contains(errOut, `did you mean "rate"`) {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// A --duration that cuts a scenario's script names the event at its line
// and column in the scenario's file; the same through a sweep's --vary.
func TestDurationErrorNamesTheLine(t *testing.T) {
	data, err := scenarios.Get("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, "at: 5s") {
			line = i + 1
			break
		}
	}
	if line == 0 {
		t.Fatal("rr-slow has no event at 5s")
	}
	at := regexp.MustCompile(`scenarios/rr-slow\.yaml:` + strconv.Itoa(line) + `:\d+: events\[0\]\.at: must be before the end of the lab`)
	for _, args := range [][]string{{"sim", "rr-slow", "--duration", "3s"}, {"sweep", "rr-slow", "--vary", "duration=1s,2s"}} {
		if _, errOut, code := lab(t, args...); code != 2 || !at.MatchString(errOut) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %s", args, code, errOut, at)
		}
	}
	// a file of one's own: its path; the duration itself came from the flag, so it has no line
	path := filepath.Join(t.TempDir(), "mine.yaml")
	os.WriteFile(path, []byte("name: mine\nduration: 20s\nevents:\n  - {at: 10s, action: kill, target: s1}\n"), 0o644)
	if _, errOut, code := lab(t, "sim", path, "--duration", "5s"); code != 2 || !strings.Contains(errOut, path+":4:") {
		t.Errorf("own file: exit %d, stderr %q", code, errOut)
	}
}

// The standalone loadgen's stderr holds no "wait lateness" line unless asked
// (--log-waits, which lab run passes); its --help lists --flags, as every
// document writes them, and so do lb's and backend's.
func TestLoadgenQuietAndDoubleDashHelp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("X-Lab-Server", "s1") }))
	defer srv.Close()
	args := []string{"loadgen", "--target", srv.URL, "--duration", "300ms", "--rate", "50", "--json"}
	out, errOut, code := lab(t, args...)
	if code != 0 || !strings.Contains(out, `"mode": "live"`) || strings.Contains(errOut, "wait lateness") {
		t.Errorf("loadgen: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := lab(t, append(args, "--log-waits")...); code != 0 || !strings.Contains(errOut, `"wait lateness"`) {
		t.Errorf("loadgen --log-waits: exit %d, stderr %q", code, errOut)
	}
	oneDash := regexp.MustCompile(`(?m)^  -[A-Za-z]([^,]|,[^ ]|, [^-])`) // a one-letter alias stands before its long flag: "  -c, --connections N"
	for _, daemon := range []string{"loadgen", "lb", "backend"} {
		out, errOut, _ := lab(t, daemon, "--help")
		if help := out + errOut; oneDash.MatchString(help) || !strings.Contains(help, "\n  --admin") || !strings.Contains(help, "examples:\n  "+daemon+" ") {
			t.Errorf("lab %s --help: flags with one dash, or no examples:\n%s", daemon, help)
		}
	}
	out, errOut, _ = lab(t, "loadgen", "--help")
	d := labfile.Default()
	for _, want := range []string{"  -c, --connections N\n", "  -n, --requests N\n", "  -q, --rate-per-connection R\n", "  -H, --header value\n",
		"  -d, --duration duration\n", fmt.Sprintf("%g requests/s for %v (the built-in lab's load)", d.Clients.Rate, d.Duration)} {
		if !strings.Contains(out+errOut, want) {
			t.Errorf("lab loadgen --help lacks %q:\n%s", want, out+errOut)
		}
	}
}

// Every binary says its version and the commit it was built from, in one
// line; lab's --help lists the process commands.
func TestVersionAndProcessCommands(t *testing.T) {
	line := regexp.MustCompile(`^(lab|lb|backend|loadgen) version \S+, commit ([0-9a-f]{40}|unknown), modified (true|false|unknown), go\S+\n$`)
	head, _ := exec.Command("git", "rev-parse", "HEAD").Output()
	for _, args := range [][]string{{"--version"}, {"lb", "--version"}, {"backend", "--version"}, {"loadgen", "--version"}} {
		out, errOut, code := lab(t, args...)
		m := line.FindStringSubmatch(out)
		if code != 0 || m == nil || errOut != "" {
			t.Errorf("lab %v: exit %d, %q %q; want one line like lab version V, commit C, modified M, goV", args, code, out, errOut)
			continue
		}
		if m[2] != "unknown" && len(head) > 0 && m[2] != strings.TrimSpace(string(head)) {
			t.Errorf("lab %v says commit %s, the tree is at %s", args, m[2], head)
		}
	}
	out, _, _ := lab(t, "--help")
	for _, name := range []string{"backend", "lb", "loadgen"} {
		if !regexp.MustCompile(`(?m)^  ` + name + ` +Run the ` + name + ` process`).MatchString(out) {
			t.Errorf("lab --help does not list lab %s:\n%s", name, out)
		}
	}
}

// A typo gets one line with the nearest name, from the one helper
// (internal/suggest): a flag, a command, a scenario, a compare setting, a
// balancer kind; the daemons' flags alike.
func TestDidYouMean(t *testing.T) {
	for want, args := range map[string][]string{
		"lab: unknown flag --compre; did you mean --compare? (lab sim --help lists the flags)\n":               {"sim", "rr-slow", "--compre", "p2c"},
		`no scenario "rr-slw"; did you mean rr-slow?`:                                                          {"sim", "rr-slw"},
		`--compare: "round-robn" is neither a setting of this lab nor an algorithm; did you mean round-robin?`: {"sim", "rr-slow", "--compare", "round-robn"},
		`nor an algorithm (lab algorithms); did you mean p2c?`:                                                 {"watch", "rr-slow", "--setting", "p2cc"},
		`unknown command "simm": did you mean sim?`:                                                            {"simm"},
		"loadgen: unknown flag --conections; did you mean --connections? (loadgen --help lists the flags)\n":   {"loadgen", "--conections", "3"},
	} {
		_, errOut, code := lab(t, args...)
		if code != 2 || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("lab %v: exit %d, stderr %q; want 2 and one line with %q", args, code, errOut, want)
		}
	}
}
