package labfile

import (
	"strings"
	"testing"
	"time"
)

// Value reads every leaf that Leaves lists (a list's field by an element),
// and reads back what Apply wrote.
func TestValueReadsEveryLeaf(t *testing.T) {
	l := Default()
	if err := l.ApplyAll([][2]string{{"balancers.breaker.open", "250ms"}, {"servers[0].queue.discipline", "lifo"}, {"balancers.epsilon", "0.5"}}); err != nil {
		t.Fatal(err)
	}
	l.Clients.Profile = &Profile{}
	l.Clients.Faults = []FaultShare{{}}
	l.Clients.Work.Mix = []MixPart{{}}
	l.Servers[0].Work = &Dist{Mix: []MixPart{{}}}
	leaves := Leaves("")
	if len(leaves) < 100 {
		t.Fatalf("%d leaves", len(leaves))
	}
	for _, leaf := range leaves {
		p := strings.Replace(strings.Replace(leaf.Path, "servers.", "servers[0].", 1), "mix.", "mix[0].", 1)
		p = strings.Replace(p, "faults.", "faults[0].", 1)
		if _, err := l.Value(p); err != nil {
			t.Errorf("Value(%s): %v", p, err)
		}
	}
	for p, want := range map[string]any{"balancers.breaker.open": 250 * time.Millisecond, "servers[0].queue.discipline": LIFO,
		"balancers.epsilon": 0.5, "balancers.vnodes": 100, "network.tls": false} {
		if got, err := l.Value(p); err != nil || got != want {
			t.Errorf("Value(%s) = %v (%T), %v; want %v", p, got, got, err, want)
		}
	}
	for p, msg := range map[string]string{"balancers.nope": "unknown field", "balancers.breaker": "is a section", "servers.speed": "name one element",
		"balancers.timeout.x": "is a value", "events": "unknown field"} {
		if _, err := l.Value(p); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("Value(%s): %v, want an error with %q", p, err, msg)
		}
	}
	if got := Leaves("balancers.breaker"); len(got) != 5 || got[0].Path != "balancers.breaker.enabled" {
		t.Errorf("Leaves(balancers.breaker) = %v", got)
	}
}

// AllowedAt reads the ranges and words from the checks that use them.
func TestAllowedAtReadsTheChecks(t *testing.T) {
	a := Default().AllowedAt()
	if r, ok := a["balancers.vnodes"].Range.(Range[int]); !ok || r != Bounds.VNodes {
		t.Errorf("balancers.vnodes: %+v", a["balancers.vnodes"])
	}
	if r, ok := a["servers.speed"].Range.(Range[float64]); !ok || r != Bounds.Speed {
		t.Errorf("servers.speed: %+v", a["servers.speed"])
	}
	if r, ok := a["balancers.aperture"].Range.(Range[int]); !ok || r != Bounds.Aperture {
		t.Errorf("balancers.aperture: %+v", a["balancers.aperture"])
	}
	if w := a["balancers.load"].Words; len(w) != 2 || w[0] != "local" {
		t.Errorf("balancers.load: %+v", a["balancers.load"])
	}
	if _, ok := a["balancers.breaker.enabled"]; ok {
		t.Error("a boolean has no range")
	}
}

func TestWithoutIndexes(t *testing.T) {
	for in, want := range map[string]string{
		"servers[2].workers": "servers.workers", "servers[10].work.mix[3].p": "servers.work.mix.p",
		"clients.rate": "clients.rate", "a[].b": "a[].b", "a[x]": "a[x]", "a[12": "a[12",
	} {
		if got := withoutIndexes(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
