package usage

import (
	"bytes"
	"errors"
	"flag"
	"runtime/debug"
	"strings"
	"testing"
)

// Every flag is listed with two dashes; the help text under it, even one
// starting with a dash, is left alone.
func TestPrintDefaultsTwoDashes(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var out bytes.Buffer
	fs.SetOutput(&out)
	fs.String("admin", "", "serve the admin API on `ADDR`")
	fs.Bool("v", false, "verbose\n-not a flag, a line of help")
	PrintDefaults(fs)
	got := out.String()
	for _, want := range []string{"  --admin ADDR\n", "  --v\t", "\t-not a flag"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\n  -admin") || strings.HasPrefix(got, "  -admin") {
		t.Errorf("a flag with one dash:\n%s", got)
	}
}

// newSet is a set with a long flag and its alias, a string and a bool.
func newSet(t *testing.T) (*Set, *bytes.Buffer, *bytes.Buffer, *int) {
	t.Helper()
	var out, errOut bytes.Buffer
	s := New("tool", &out, &errOut)
	n := s.Int("connections", 0, "at most `N` connections")
	s.String("duration", "", "how long")
	s.Bool("json", false, "print JSON")
	s.Alias("c", "connections")
	s.Foreign = map[string]string{"z": "--duration (hey's -z)"}
	return s, &out, &errOut, n
}

// A short alias sets its long flag, is listed on the long flag's line and
// nowhere else, and Given and Used know it by either name.
func TestAliasIsTheLongFlag(t *testing.T) {
	s, _, errOut, n := newSet(t)
	if _, err := s.Parse([]string{"-c", "7"}); err != nil || *n != 7 {
		t.Fatalf("-c 7: %v, connections %d", err, *n)
	}
	if !s.Given("connections") || !s.Given("c") || s.Given("json") || s.Used("connections") != "-c" {
		t.Errorf("given connections %v, c %v, json %v; used %q", s.Given("connections"), s.Given("c"), s.Given("json"), s.Used("connections"))
	}
	s.PrintDefaults()
	help := errOut.String()
	if !strings.Contains(help, "  -c, --connections N\n") || strings.Contains(help, "  -c\t") || strings.Contains(help, "alias of") {
		t.Errorf("the alias is not listed with its long flag alone:\n%s", help)
	}
	s2, _, _, _ := newSet(t)
	s2.Parse([]string{"--connections", "3"})
	if s2.Used("connections") != "--connections" {
		t.Errorf("used %q, want --connections", s2.Used("connections"))
	}
}

// Flags may come after the positional arguments (loadgen URL -c 10), and
// "--" ends the flags.
func TestParseTakesFlagsAnywhere(t *testing.T) {
	s, _, _, n := newSet(t)
	pos, err := s.Parse([]string{"http://a/", "-c", "4", "b:1", "--json", "--", "-c"})
	if err != nil || *n != 4 || strings.Join(pos, " ") != "http://a/ b:1 -c" || !s.Given("json") {
		t.Errorf("positional %q, connections %d, err %v", pos, *n, err)
	}
}

// A mistake is one line naming the flag as the user writes it, and for an
// unknown flag the nearest one (or what to give instead of another tool's);
// the usage is not printed.
func TestMistakesAreOneLine(t *testing.T) {
	for args, want := range map[string]string{
		"--conections 3": "unknown flag --conections; did you mean --connections? (tool --help lists the flags)",
		"-x":             "unknown flag -x (tool --help lists the flags)",
		"-z 3s":          "unknown flag -z; give --duration (hey's -z) (tool --help lists the flags)",
		"-c many":        `invalid value "many" for flag -c: parse error (tool --help lists the flags)`,
		"--connections":  "flag needs an argument: --connections (tool --help lists the flags)",
	} {
		s, _, errOut, _ := newSet(t)
		_, err := s.Parse(strings.Fields(args))
		var e *Error
		if !errors.As(err, &e) || e.Error() != want || errOut.Len() != 0 {
			t.Errorf("%s: %v, printed %q; want the one line %q", args, err, errOut.String(), want)
		}
	}
	s, _, errOut, _ := newSet(t)
	if _, err := s.Parse([]string{"--help"}); !errors.Is(err, flag.ErrHelp) || !strings.Contains(errOut.String(), "-c, --connections N") {
		t.Errorf("--help: %v\n%s", err, errOut.String())
	}
}

// --version prints the module version and the commit the build recorded,
// "unknown" for what it did not.
func TestVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261203104001-9df935297b3d"},
		Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "9df935297b3dbffe8ba3e87cab4d4c7e32084f1c"},
			{Key: "vcs.modified", Value: "true"}}}
	if got, want := versionOf("lb", info), "lb version v0.0.0-20261203104001-9df935297b3d, commit 9df935297b3dbffe8ba3e87cab4d4c7e32084f1c, modified true, go1.26.8"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	bare := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got, want := versionOf("lb", bare), "lb version (devel), commit unknown, modified unknown, go1.26.8"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := versionOf("lb", nil); !strings.HasPrefix(got, "lb version unknown, commit unknown, modified unknown, go") {
		t.Errorf("no build info: %q", got)
	}
	s, out, _, _ := newSet(t)
	if _, err := s.Parse([]string{"--version"}); !errors.Is(err, ErrVersion) || !strings.HasPrefix(out.String(), "tool version ") {
		t.Errorf("--version: %v, %q", err, out.String())
	}
}
