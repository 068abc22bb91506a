package control

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The token file is its user's alone (0600 in a 0700 directory), is read
// back by the address it was written for, is not trusted when others may
// read it, and is removed by its writer only while it still holds that
// writer's token.
func TestTokenFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	const addr, token = "127.0.0.1:8123", "token-file-test-0123456789"
	path, drop, err := writeTokenFile(addr, token)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "lblab", "controller-127.0.0.1_8123.token") {
		t.Errorf("path %s", path)
	}
	fi, _ := os.Stat(path)
	di, _ := os.Stat(filepath.Dir(path))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v, directory %v", fi.Mode().Perm(), di.Mode().Perm())
	}
	if got, err := RunningToken(addr); got != token || err != nil {
		t.Errorf("RunningToken: %q %v", got, err)
	}
	if got, err := RunningToken("127.0.0.1:8124"); got != "" || err != nil {
		t.Errorf("another address: %q %v", got, err)
	}
	os.Chmod(path, 0o644)
	if got, err := RunningToken(addr); got != "" || err == nil || !strings.Contains(err.Error(), "0600") {
		t.Errorf("a file others may read: %q %v", got, err)
	}
	os.Chmod(path, 0o600)
	// A second controller on the address took the file over: the first
	// one's stop leaves it.
	if _, _, err := writeTokenFile(addr, token+"-2"); err != nil {
		t.Fatal(err)
	}
	drop()
	if got, _ := RunningToken(addr); got != token+"-2" {
		t.Errorf("the first controller's stop removed the second's file: %q", got)
	}
	_, drop2, _ := writeTokenFile(addr, token)
	drop2()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the file outlived its controller: %v", err)
	}
}
