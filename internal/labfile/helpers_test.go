package labfile_test

import (
	"os"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// fullExample sets every section (and most fields) of the schema:
// testdata/full.yaml, which labyaml's parse tests read too.
var fullExample = func() string {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		panic(err)
	}
	return string(data)
}()

func mustParse(t *testing.T, src string) *labfile.Lab {
	t.Helper()
	l, err := labyaml.Parse("lab.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return l
}

// parseErr parses src, which must fail, and returns the error text.
func parseErr(t *testing.T, src string) string {
	t.Helper()
	_, err := labyaml.Parse("lab.yaml", []byte(src))
	if err == nil {
		t.Fatalf("Parse succeeded, want an error, for:\n%s", src)
	}
	return err.Error()
}
