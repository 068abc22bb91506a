// Package usage prints a daemon's flags as every document writes them,
// --flag, where Go's flag package prints -flag (it accepts both).
package usage

import (
	"bytes"
	"flag"
	"io"
	"regexp"
)

// dash is the single dash before a flag's name at the start of a line of
// flag.PrintDefaults' output.
var dash = regexp.MustCompile(`(?m)^(  )-([A-Za-z])`)

// PrintDefaults writes fs's flags and their defaults to fs's output, as
// flag.FlagSet.PrintDefaults does but with two dashes: "  --admin string".
func PrintDefaults(fs *flag.FlagSet) {
	out := fs.Output()
	var b bytes.Buffer
	fs.SetOutput(&b)
	fs.PrintDefaults()
	fs.SetOutput(out)
	io.WriteString(out, dash.ReplaceAllString(b.String(), "$1--$2"))
}
