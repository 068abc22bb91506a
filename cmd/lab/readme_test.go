package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/proxies"
)

// readmeSkip is every README command that this test does not run, by its
// first word (or, for lab, its subcommand), with the reason. A command in
// the README that is neither a lab command nor listed here fails the test,
// so a new command block cannot go unchecked without saying why.
var readmeSkip = map[string]string{
	"make":          "make lab runs until Ctrl-C on the fixed ports 8000 and 8080, and make test is the whole suite this test is part of",
	"apt-get":       "installs system packages (root, the network)",
	"go install":    "fetches a tool from the module proxy",
	"docker":        "needs a Docker engine (make compose-test runs the compose lab for real)",
	"export":        "sets the compose lab's token in the user's shell",
	"curl":          "asks the balancer of a running lab up on 127.0.0.1:8080, a fixed port (internal/lab's tests drive lab up on free ports)",
	"hey":           "loads the balancer of a running lab up on 127.0.0.1:8080 (TestHeyThroughBalancer in internal/lab runs hey on a free port)",
	"prometheus":    "a Prometheus server against lab up (internal/observe's tests run it)",
	"bench/soak.sh": "an hour of live processes (CI runs it for 2 minutes)",
	"lab up":        "runs until Ctrl-C on the fixed ports 8000 and 8080",
	"lab watch":     "serves the dashboard until Ctrl-C on the fixed port 8000 (TestWatchSaved runs lab watch on a free port; internal/watch's tests drive the page)",
	"lab chaos":     "drives a running lab up on 127.0.0.1:8000 (internal/lab's chaos tests drive one on a free port)",
}

// readmeShorten makes the heavy README commands short enough for a test,
// keeping what they exercise: the flags are the README's, the durations and
// counts smaller. Live runs (lab run) take real processes, so they run
// shortened unless -short, when they are skipped.
func readmeShorten(args []string) []string {
	switch args[0] {
	case "torture": // 1,000 or 20,000 labs: minutes
		if i := indexOf(args, "--runs"); i >= 0 {
			args[i+1] = "10"
		} else {
			args = append(args, "--runs", "10")
		}
	case "run": // live: rr-slow's script starts at 5 s
		args = append(args, "--duration", "6s", "--dashboard", "")
	case "sweep":
		args = append(args, "--duration", "5s")
	}
	return args
}

// missingProxies names the external proxies a --balancer argument asks
// for that are not installed, with their packages ("" = none missing).
func missingProxies(args []string) string {
	i := indexOf(args, "--balancer")
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	var missing []string
	for _, k := range strings.Split(args[i+1], ",") {
		if p, ok := proxies.ByKind(k); ok {
			if _, err := exec.LookPath(p.Binary); err != nil {
				missing = append(missing, p.Binary+" is not installed: apt-get install -y "+p.Package)
			}
		}
	}
	return strings.Join(missing, "; ")
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// Every command of the README's sh blocks runs, in README order, in one
// directory holding the files the README assumes: my-lab.yaml as the README
// writes it, and access.csv, a 13 s access log (shorter than my-lab's
// script, whose kill at 10 s is undone at 15 s). Each lab command must exit
// 0; the ones that cannot run here are listed with the reason.
func TestReadmeCommandsRun(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeReadmeFiles(t, dir, string(readme))
	cmds := readmeCommands(string(readme))
	if len(cmds) < 25 {
		t.Fatalf("found %d commands in the README's sh blocks; the parser is broken", len(cmds))
	}
	ran := 0
	for _, line := range cmds {
		words, err := shellWords(line)
		if err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		var args []string
		switch {
		case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/lab":
			args = words[3:]
		case words[0] == "bin/lab":
			args = words[1:]
		default:
			key := words[0]
			if len(words) > 1 && key == "go" {
				key += " " + words[1]
			}
			if _, ok := readmeSkip[key]; !ok {
				t.Errorf("README command %q is neither a lab command nor in readmeSkip with a reason", line)
			}
			continue
		}
		if len(args) == 0 {
			t.Errorf("%q: no lab command", line)
			continue
		}
		if _, ok := readmeSkip["lab "+args[0]]; ok {
			continue
		}
		if testing.Short() && (args[0] == "run" || slicesHas(args, "live.trace")) { // live, or the trace a live run records
			t.Logf("-short: not running the live %q", line)
			continue
		}
		if missing := missingProxies(args); missing != "" { // the proxies a --balancer names
			if os.Getenv("CI") != "" {
				t.Errorf("README command %q: %s (under CI every tool must be there)", line, missing)
			} else {
				t.Logf("not running %q: %s", line, missing)
			}
			continue
		}
		var stdout string
		if i := indexOf(args, ">"); i >= 0 {
			stdout, args = args[i+1], args[:i]
		}
		args = readmeShorten(args)
		// A command that serves until Ctrl-C would hang the suite: each is
		// bounded, and one that runs out is a failure naming it.
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, labBin, args...)
		cmd.Dir = dir
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err = cmd.Run()
		if ctx.Err() != nil {
			err = fmt.Errorf("still running after 3 minutes (a command that serves until Ctrl-C belongs in readmeSkip): %w", ctx.Err())
		}
		cancel()
		var exit *exec.ExitError
		if errors.As(err, &exit) || err != nil {
			t.Errorf("README command %q (run as lab %s): %v\n%s", line, strings.Join(args, " "), err, errOut.String())
			continue
		}
		ran++
		if stdout != "" {
			if err := os.WriteFile(filepath.Join(dir, stdout), out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if slicesHas(args, "--replay") && slicesHas(args, "access.csv") &&
			!strings.Contains(errOut.String(), "events[0] (kill s2 at 10s) is not undone (its undo at 15s is past the end)") {
			t.Errorf("the replay shorter than the script does not say what it dropped:\n%s", errOut.String())
		}
	}
	t.Logf("ran %d of the README's %d commands", ran, len(cmds))

	// and every lab file the README shows runs in lab sim
	labs := regexp.MustCompile("(?s)```yaml\n(name: .*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(labs) < 2 {
		t.Fatalf("found %d lab files in the README", len(labs))
	}
	for i, m := range labs {
		path := filepath.Join(dir, fmt.Sprintf("readme-lab-%d.yaml", i))
		if err := os.WriteFile(path, []byte(m[1]), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, errOut, code := lab(t, "sim", path); code != 0 {
			t.Errorf("the README's lab file %d (%.40q...): exit %d: %s", i, m[1], code, errOut)
		}
	}
}

func slicesHas(args []string, s string) bool { return indexOf(args, s) >= 0 }

// writeReadmeFiles writes the files the README's commands read.
func writeReadmeFiles(t *testing.T, dir, readme string) {
	start := strings.Index(readme, "```yaml\nname: my-lab")
	if start < 0 {
		t.Fatal("the README's example lab file is gone")
	}
	body := readme[start+len("```yaml\n"):]
	body = body[:strings.Index(body, "```")]
	var csv strings.Builder
	for i := range 13 * 50 { // 50 requests a second for 13 s, 20 ms of work each
		fmt.Fprintf(&csv, "%.3f,0.020,/item/%d\n", float64(i)/50, i%37)
	}
	for name, text := range map[string]string{"my-lab.yaml": body, "access.csv": csv.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readmeCommands are the command lines of the README's sh blocks: comments
// stripped, continued lines joined.
func readmeCommands(readme string) []string {
	var cmds []string
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(readme, -1)
	for _, b := range blocks {
		text := strings.ReplaceAll(b[1], "\\\n", " ")
		for _, line := range strings.Split(text, "\n") {
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				cmds = append(cmds, line)
			}
		}
	}
	return cmds
}

// shellWords splits a command line as sh would, for the quoting the README
// uses: single and double quotes, no expansions.
func shellWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
