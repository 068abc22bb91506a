package attach

import (
	"slices"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/shell/discover"
	"go.uber.org/zap"
)

// members is a fleet's backends by name, as lab's fleet keeps them.
type members struct{ names []string }

func (m *members) Names() []string         { return append([]string(nil), m.names...) }
func (m *members) Join(name, admin string) { m.names = append(m.names, name) }
func (m *members) Leave(name string) {
	m.names = slices.DeleteFunc(m.names, func(n string) bool { return n == name })
}

// The lab drills are checked against follows the discovered fleet, and a
// name the lab cannot take (s7 as the second server) is refused.
func TestDNSFleetLab(t *testing.T) {
	base, err := Spec{LBs: []Endpoint{{Name: "lb1", Admin: "lb:9101"}}, Loadgen: "loadgen:9102",
		BackendsDNS: &discover.Config{Host: "backend", AdminPort: 9100}}.Check()
	if err != nil {
		t.Fatal(err)
	}
	f := &members{}
	d := &DNS{m: f, lbs: 1, lab: base, log: zap.NewNop(), name: "backend:9100"}
	for _, m := range []discover.Member{{Name: "backend-0", Admin: "10.0.0.1:9100"}, {Name: "3f9a0c1b2d4e", Admin: "10.0.0.2:9100"}} {
		if err := d.Add(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Add(discover.Member{Name: "s7", Admin: "10.0.0.3:9100"}); err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("s7 as the third server: %v", err)
	}
	names := func() string {
		var out []string
		for _, ns := range d.lab.ExpandServers() {
			out = append(out, ns.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(); got != "backend-0,3f9a0c1b2d4e" || strings.Join(f.Names(), ",") != got {
		t.Fatalf("lab servers %s, fleet %v", got, f.Names())
	}
	d.Remove("backend-0")
	if got := names(); got != "3f9a0c1b2d4e" {
		t.Errorf("after a removal: %s", got)
	}
	d.Remove("3f9a0c1b2d4e") // the last: the lab keeps a server, the fleet has none
	if got := names(); got != "3f9a0c1b2d4e" || len(f.Names()) != 0 {
		t.Errorf("after the last removal: lab %s, fleet %v", got, f.Names())
	}
}
