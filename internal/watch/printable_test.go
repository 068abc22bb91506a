package watch

import (
	"encoding/json"
	"strings"
	"testing"
)

// POST /api/lab refuses a lab whose free text holds a control byte (an
// ESC, a NUL, a CR-LF in its name: lab watch and the page print the name)
// with file:line:col, as lab sim does, and a file name holding one; the
// lab playing goes on.
func TestPostedLabControlBytesRefused(t *testing.T) {
	srv := watching(t, "rr-slow")
	post := func(file, yaml string) (int, string) {
		t.Helper()
		data, _ := json.Marshal(map[string]string{"file": file, "yaml": yaml})
		return inMemory(t, srv, "POST", "/api/lab", string(data))
	}
	for _, c := range []struct{ yaml, want string }{
		{"name: \"evil\\e]0;pwned\\a\"\n", "mine.yaml:1:7: name: holds the control character U+001B at byte 4"},
		{"name: \"two\\r\\nlines\"\n", "mine.yaml:1:7: name: holds the control character U+000D at byte 3"},
		{"name: \"nul\\0\"\n", "mine.yaml:1:7: name: holds the control character U+0000 at byte 3"},
		{"name: ok\ndescription: \"\\e[2J\"\n", "mine.yaml:2:14: description: holds the control character U+001B at byte 0"},
	} {
		if code, body := post("mine.yaml", c.yaml); code != 400 || !strings.Contains(body, c.want) {
			t.Errorf("POST /api/lab of %q: %d %s, want 400 with %q", c.yaml, code, body, c.want)
		}
	}
	if code, body := post("mine\x1b[31m.yaml", "name: ok\n"); code != 400 || !strings.Contains(body, "file: holds the control character U+001B at byte 4") {
		t.Errorf("POST /api/lab with an ESC in its file name: %d %s, want 400 naming file", code, body)
	}
	if _, src := inMemory(t, srv, "GET", "/api/source", ""); !strings.Contains(src, "rr-slow") {
		t.Errorf("after the refusals the source is %.200s, want rr-slow still", src)
	}
}
