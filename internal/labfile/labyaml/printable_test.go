package labyaml

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

// A lab's free text is printed to terminals and logs (lab sim's header,
// lab scenarios, lab run's progress, the processes' logs): a name with an
// ESC could rewrite the terminal. Every free-text field refuses control
// characters and invalid UTF-8 with FILE:LINE:COL naming the field, and the
// message itself holds no control byte; newlines and tabs stay allowed in
// multi-line text (a narration), not in a name.
func TestControlBytesRefused(t *testing.T) {
	cases := []struct {
		src, want string
	}{
		{"name: \"a\\e[31mred\"\n", `lab.yaml:1:7: name: holds the control character U+001B at byte 1`},
		{"name: \"nul\\0\"\n", `lab.yaml:1:7: name: holds the control character U+0000 at byte 3`},
		{"name: \"cr\\r\\nlf\"\n", `lab.yaml:1:7: name: holds the control character U+000D at byte 2`},
		{"name: \"tab\\tname\"\n", `lab.yaml:1:7: name: holds the control character U+0009 at byte 3`},
		{"name: \"csi\\x9b2J\"\n", `lab.yaml:1:7: name: holds the control character U+009B at byte 3`},
		{"name: ok\ndescription: \"one \\e]0;title\\a\"\n", `lab.yaml:2:14: description: holds the control character U+001B at byte 4`},
		{"name: ok\nnarration: |\n  line one\n  \x7f\n", `lab.yaml:2:12: narration: holds the control character U+007F`},
		{"name: ok\ncaptions:\n  - {at: 1s, text: \"look \\e[2J\"}\n", `lab.yaml:3:20: captions[0].text: holds the control character U+001B at byte 5`},
		{"name: ok\ncompare:\n  - {name: \"p2c\\e[0m\", algorithm: p2c}\n", `lab.yaml:3:12: compare[0].name: holds the control character U+001B at byte 3`},
	}
	for _, c := range cases {
		_, err := Parse("lab.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
			continue
		}
		if msg := err.Error(); labfile.CheckPrintable(msg, true) != "" {
			t.Errorf("%q: the refusal itself holds a control byte: %q", c.src, msg)
		}
	}
	// The YAML decoder reads a byte that starts no character as U+FFFD;
	// a lab built in code is checked by Validate.
	l := labfile.Default()
	l.Name = "bad\xffutf8"
	if err := l.Validate(); err == nil || !strings.Contains(err.Error(), "name: is not valid UTF-8 (byte 3 is 0xff)") {
		t.Errorf("a name of invalid UTF-8: %v", err)
	}
	ok := "name: fine-name.v2\ndescription: \"caf\u00e9 \u2014 \ufffd tolerated\"\nnarration: |\n  first line\n  \tindented\n\ncaptions:\n  - {at: 1s, text: \"two\\nlines\"}\n"
	if _, err := Parse("lab.yaml", []byte(ok)); err != nil {
		t.Errorf("printable text, newlines and tabs in a narration: %v", err)
	}
}

// A lab without a name is named after its file: a file name with a control
// byte does not become the lab's name.
func TestNameFromFileIsPrintable(t *testing.T) {
	_, err := ParseFile("/tmp/evil\x1b[2J.yaml", []byte("duration: 1s\n"))
	if err == nil || !strings.Contains(err.Error(), "name: none given, and the file's name holds the control character U+001B at byte 4") {
		t.Errorf("a lab named after a file name with an ESC: %v", err)
	}
	if l, err := ParseFile("/tmp/fine.yaml", []byte("duration: 1s\n")); err != nil || l.Name != "fine" {
		t.Errorf("a lab named after fine.yaml: %v", err)
	}
}
