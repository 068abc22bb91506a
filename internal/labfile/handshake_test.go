package labfile_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

func TestHandshakeForms(t *testing.T) {
	cases := []struct {
		src  string
		want labfile.Handshake
	}{
		{"network: {handshake: 2}\n", labfile.Handshake{Rounds: 2}},
		{"network: {handshake: 30ms}\n", labfile.Handshake{Fixed: 30 * time.Millisecond}},
		{"network: {handshake: \"1\"}\n", labfile.Handshake{Rounds: 1}},
		{"network: {handshake: 0}\n", labfile.Handshake{}},
		{"network: {hop: 1ms}\n", labfile.Handshake{}},
	}
	for _, c := range cases {
		lab, err := labyaml.Parse("lab.yaml", []byte(c.src))
		if err != nil {
			t.Errorf("%q: %v", c.src, err)
			continue
		}
		if lab.Network.Handshake != c.want {
			t.Errorf("%q: handshake %+v, want %+v", c.src, lab.Network.Handshake, c.want)
		}
	}
}

func TestConnectionDefaultsAndSwitch(t *testing.T) {
	lab := labfile.Default()
	if lab.Network.Keepalive != 10*time.Second || lab.Network.MaxConns != 0 || lab.Network.TLS || !lab.Network.Handshake.Zero() {
		t.Fatalf("defaults: %+v", lab.Network)
	}
	if lab.Network.Connections() {
		t.Fatal("connections are modelled by default; they must be off")
	}
	for _, set := range [][2]string{{"network.handshake", "1"}, {"network.max_conns", "4"}, {"network.tls", "true"}} {
		l := labfile.Default()
		if err := l.Apply(set[0], set[1]); err != nil {
			t.Fatal(err)
		}
		if !l.Network.Connections() {
			t.Errorf("%s=%s does not turn connections on", set[0], set[1])
		}
	}
	l, err := labyaml.Parse("lab.yaml", []byte("network: {keepalive: 0}\n"))
	if err != nil || l.Network.Keepalive != 0 {
		t.Fatalf("an explicit keepalive 0 must stay 0: %v %v", l.Network.Keepalive, err)
	}
}

func TestConnectionSettingsOutOfRange(t *testing.T) {
	cases := []struct{ src, want string }{
		{"network: {handshake: 11}\n", "lab.yaml:1:22: network.handshake: round trips: must be between 0 and 10, got 11"},
		{"network: {handshake: -1}\n", "network.handshake: round trips: must be between 0 and 10, got -1"},
		{"network: {handshake: 11s}\n", "network.handshake: a handshake duration: must be in [0s, 10s], got 11s"},
		{"network: {handshake: 1.5}\n", `network.handshake: want a whole number of round trips like 2, or a duration like 30ms, got "1.5"`},
		{"network: {handshake: [1]}\n", "network.handshake: want a whole number of round trips like 2, or a duration like 30ms, got a list"},
		{"network: {keepalive: 2m}\n", "network.keepalive: must be in [0s, 1m], got 2m"},
		{"network: {max_conns: -1}\n", "network.max_conns: must be between 0 and 10000"},
		{"clients: {sticky: 10}\n", "clients.sticky: is for clients that balance themselves"},
		{"clients: {algorithm: p2c, sticky: -1}\n", "clients.sticky: must be between 0 and 1000000"},
	}
	for _, c := range cases {
		_, err := labyaml.Parse("lab.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.want)
		}
	}
	if err := labfile.Default().Apply("network.handshake", "two"); err == nil || !strings.Contains(err.Error(), "round trips") {
		t.Errorf("set network.handshake=two: %v", err)
	}
}

func TestConnectionSettingsRoundTrip(t *testing.T) {
	for _, h := range []string{"3", "25ms"} {
		lab := labfile.Default()
		for _, kv := range [][2]string{{"network.handshake", h}, {"network.keepalive", "2s"},
			{"network.max_conns", "3"}, {"network.tls", "true"}, {"clients.algorithm", "p2c-stale"}, {"clients.sticky", "10"}} {
			if err := lab.Apply(kv[0], kv[1]); err != nil {
				t.Fatalf("%s=%s: %v", kv[0], kv[1], err)
			}
		}
		data, err := labyaml.Marshal(lab)
		if err != nil {
			t.Fatal(err)
		}
		back, err := labyaml.Parse("round-trip.yaml", data)
		if err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
		if !reflect.DeepEqual(lab, back) {
			t.Fatalf("round trip changed the lab:\n%s", data)
		}
	}
}
