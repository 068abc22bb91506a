package usage

import (
	"bytes"
	"flag"
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
