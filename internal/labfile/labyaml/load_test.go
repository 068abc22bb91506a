package labyaml

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Load refuses a file with nothing in it and names a lab after its file.
func TestLoadEmptyAndUnnamed(t *testing.T) {
	dir := t.TempDir()
	for _, text := range []string{"", "\n  \n", "# a lab, some day\n---\n"} {
		path := filepath.Join(dir, "empty.yaml")
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+": the lab file is empty") {
			t.Errorf("%q: %v, want the lab file is empty", text, err)
		}
	}
	path := filepath.Join(dir, "my-lab.yml")
	os.WriteFile(path, []byte("# just a rate\nclients: {rate: 50}\n"), 0o644)
	lab, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if lab.Name != "my-lab" {
		t.Errorf("unnamed lab: name %q, want my-lab", lab.Name)
	}
}
