package control

import (
	"strings"
	"testing"
)

// A lab address is taken with or without http:// and a trailing slash.
func TestDialAddr(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.1:8000": "127.0.0.1:8000", "http://127.0.0.1:8000": "127.0.0.1:8000",
		"http://127.0.0.1:8000/": "127.0.0.1:8000", "127.0.0.1:8000/": "127.0.0.1:8000",
		" localhost:9 ": "localhost:9", ":8000": "127.0.0.1:8000", "http://[::1]:8000/": "[::1]:8000",
		"HTTP://lb:9080": "lb:9080",
	} {
		if got, err := DialAddr("--lab-url", in); err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"127.0.0.1": "no port", "https://127.0.0.1:8000": "plain http", "http://127.0.0.1:8000/api/state": "only the host",
		"127.0.0.1:8000/x": "only the host", "127.0.0.1:0": "1..65535", "127.0.0.1:99999": "0..65535", "http//127.0.0.1:8000": "only the host",
	} {
		if _, err := DialAddr("--lab-url", in); err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), "--lab-url") {
			t.Errorf("%q: %v; want an error naming the flag and %q", in, err, why)
		}
	}
	if got, err := ListenAddr("--listen", "http://0.0.0.0:0/"); err != nil || got != "0.0.0.0:0" {
		t.Errorf("ListenAddr: %q, %v", got, err)
	}
}
