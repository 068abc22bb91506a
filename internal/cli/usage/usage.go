// Package usage is what the daemons' command lines (lb, backend, loadgen)
// share: their flags written as every document writes them, --flag (Go's
// flag package prints -flag, and accepts both), short aliases listed with
// the long flag they stand for, --version, and one line for a mistake
// instead of the whole usage.
package usage

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/lblab/lblab/internal/suggest"
)

// Set is a daemon's flag set with its short aliases and --version.
type Set struct {
	*flag.FlagSet
	name    string
	out     io.Writer         // --version's output (stdout)
	short   map[string]string // long flag -> its short alias
	long    map[string]string // short alias -> its long flag
	version *bool
	// Head is printed above the flags by --help (what the command is, how
	// to call it, examples), Tail below them.
	Head, Tail string
	// Foreign maps another tool's flags that this one has under another
	// name to what to give instead (hey's -z: "-d, --duration"), for the
	// message about an unknown flag.
	Foreign map[string]string
}

// New makes the flag set of the program name; --help goes to errOut and
// --version to out.
func New(name string, out, errOut io.Writer) *Set {
	s := &Set{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), name: name, out: out,
		short: map[string]string{}, long: map[string]string{}}
	s.SetOutput(errOut)
	s.version = s.Bool("version", false, "print the version and the commit this binary was built from, and exit")
	return s
}

// Alias declares -short as another name of the flag --long (defined
// before): the same value, listed with it ("-c, --connections N").
func (s *Set) Alias(short, long string) {
	f := s.Lookup(long)
	if f == nil || s.Lookup(short) != nil {
		panic(fmt.Sprintf("usage: alias -%s of --%s: no such flag, or -%s is taken", short, long, short))
	}
	s.Var(f.Value, short, "alias of --"+long)
	s.short[long], s.long[short] = short, long
}

// ErrVersion is Parse's answer to --version, which it printed.
var ErrVersion = errors.New("version printed")

// Parse reads args: flags anywhere among the positional arguments (hey
// URL -c 10 as well as -c 10 URL; after "--" everything is positional),
// which it returns. --help prints the usage and returns flag.ErrHelp,
// --version prints the version and returns ErrVersion; a mistake is an
// *Error of one line, naming the nearest flag for an unknown one.
func (s *Set) Parse(args []string) ([]string, error) {
	out, usage := s.Output(), s.Usage
	s.SetOutput(io.Discard) // the flag package would print the whole usage on every mistake
	s.FlagSet.Usage = func() {}
	defer func() { s.SetOutput(out); s.FlagSet.Usage = usage }()
	var pos []string
	for {
		err := s.FlagSet.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			s.SetOutput(out)
			s.PrintUsage()
			return nil, err
		}
		if err != nil {
			return nil, s.mistake(err)
		}
		rest := s.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	if *s.version {
		fmt.Fprintln(s.out, Version(s.name))
		return nil, ErrVersion
	}
	return pos, nil
}

// Given reports whether the flag called name (long or short) was set.
func (s *Set) Given(name string) bool {
	given := false
	s.Visit(func(f *flag.Flag) {
		given = given || f.Name == name || s.long[f.Name] == name || s.short[f.Name] == name
	})
	return given
}

// Used is the flag --long as the user gave it: its short alias when that
// was set (-q), else --long.
func (s *Set) Used(long string) string {
	short, ok := s.short[long]
	if !ok {
		return "--" + long
	}
	used := "--" + long
	s.Visit(func(f *flag.Flag) {
		if f.Name == short {
			used = "-" + short
		}
	})
	return used
}

// Error is a mistake on the command line: bad input, exit status 2.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

var (
	undefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	flagName  = regexp.MustCompile(`(^|[ :])-([A-Za-z][A-Za-z0-9-]*)`)
)

// mistake turns the flag package's error into one line: an unknown flag
// with the nearest one, any other with the flag written as the user
// writes it.
func (s *Set) mistake(err error) *Error {
	msg := err.Error()
	if m := undefined.FindStringSubmatch(msg); m != nil {
		var names []string
		s.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		text := fmt.Sprintf("unknown flag %s", s.Display(m[1]))
		if instead, ok := s.Foreign[m[1]]; ok {
			text += "; give " + instead
		} else if near := suggest.Nearest(m[1], names); near != "" {
			text += "; did you mean " + s.Display(near) + "?"
		}
		return &Error{text + " (" + s.name + " --help lists the flags)"}
	}
	msg = flagName.ReplaceAllStringFunc(msg, func(m string) string {
		sub := flagName.FindStringSubmatch(m)
		if s.Lookup(sub[2]) == nil {
			return m
		}
		return sub[1] + s.Display(sub[2])
	})
	return &Error{msg + " (" + s.name + " --help lists the flags)"}
}

// Display writes a flag's name as a user types it: -c for a one-letter
// alias, --name otherwise.
func (s *Set) Display(name string) string {
	if _, ok := s.long[name]; ok || len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// PrintUsage writes Head, the flags and Tail to the set's output.
func (s *Set) PrintUsage() {
	w := s.Output()
	if s.Head != "" {
		fmt.Fprintln(w, strings.TrimRight(s.Head, "\n"))
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "flags:")
	s.PrintDefaults()
	if s.Tail != "" {
		fmt.Fprintln(w)
		fmt.Fprintln(w, strings.TrimRight(s.Tail, "\n"))
	}
}

// PrintDefaults writes the flags and their defaults, as flag.PrintDefaults
// does but with two dashes ("  --admin ADDR"), each short alias on its long
// flag's line ("  -c, --connections N") and not on a line of its own.
func (s *Set) PrintDefaults() {
	w := s.Output()
	s.VisitAll(func(f *flag.Flag) {
		if _, alias := s.long[f.Name]; alias {
			return
		}
		var b strings.Builder
		b.WriteString("  ")
		if short, ok := s.short[f.Name]; ok {
			b.WriteString("-" + short + ", ")
		}
		b.WriteString("--" + f.Name)
		kind, text := flag.UnquoteUsage(f)
		if kind != "" {
			b.WriteString(" " + kind)
		}
		if b.Len() <= 5 { // a one-letter flag without a value: its help on the same line
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(text, "\n", "\n    \t"))
		if !isZero(f) {
			if _, quoted := f.Value.(flag.Getter).Get().(string); quoted {
				fmt.Fprintf(&b, " (default %q)", f.DefValue)
			} else {
				fmt.Fprintf(&b, " (default %v)", f.DefValue)
			}
		}
		fmt.Fprintln(w, b.String())
	})
}

// isZero says the flag's default is its type's zero value, which the
// usage does not print (as the flag package decides it).
func isZero(f *flag.Flag) bool {
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	v, ok := z.Interface().(flag.Value)
	if !ok || z.Kind() == reflect.Pointer && z.IsNil() {
		return f.DefValue == ""
	}
	defer func() { _ = recover() }() // a Value whose String needs fields set: treat as zero when empty
	return f.DefValue == v.String()
}

// PrintDefaults writes fs's flags and their defaults to fs's output with
// two dashes, for a flag set made without New.
func PrintDefaults(fs *flag.FlagSet) {
	(&Set{FlagSet: fs, short: map[string]string{}, long: map[string]string{}}).PrintDefaults()
}

// Version is the line --version prints for the program name: its module
// version and the commit it was built from, as the Go toolchain stamped
// them (debug.ReadBuildInfo: vcs.revision, vcs.modified), "unknown" for
// what the build did not record (go run, go test, a build outside git).
func Version(name string) string {
	info, _ := debug.ReadBuildInfo()
	return versionOf(name, info)
}

func versionOf(name string, info *debug.BuildInfo) string {
	version, revision, modified, goVersion := "unknown", "unknown", "unknown", runtime.Version()
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
		if info.GoVersion != "" {
			goVersion = info.GoVersion
		}
		for _, kv := range info.Settings {
			switch kv.Key {
			case "vcs.revision":
				revision = kv.Value
			case "vcs.modified":
				modified = kv.Value
			}
		}
	}
	return fmt.Sprintf("%s version %s, commit %s, modified %s, %s", name, version, revision, modified, goVersion)
}
