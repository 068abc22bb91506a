package lab

import (
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/proxies"
)

// A run whose every setting goes through one external proxy names it (the
// report's header: "live through HAProxy"); lblab's lb, or several kinds,
// name none.
func TestThroughNamesASingleProxy(t *testing.T) {
	lab := labfile.Default()
	kind := func(k string) labfile.Setting {
		return labfile.Setting{Name: "rr@" + k, Algorithm: "round-robin", Set: map[string]string{"balancers.kind": k}}
	}
	haproxy, _ := proxies.ByKind("haproxy")
	for _, c := range []struct {
		settings []labfile.Setting
		want     string
	}{
		{[]labfile.Setting{kind("haproxy")}, haproxy.Name},
		{[]labfile.Setting{kind("haproxy"), {Name: "p2c@haproxy", Algorithm: "p2c", Set: map[string]string{"balancers.kind": "haproxy"}}}, haproxy.Name},
		{[]labfile.Setting{kind("lb")}, ""},
		{[]labfile.Setting{kind("lb"), kind("haproxy")}, ""},
		{[]labfile.Setting{{Name: "p2c", Algorithm: "p2c"}}, ""},
	} {
		if got := through(lab, c.settings); got != c.want {
			t.Errorf("%v: through %q, want %q", c.settings, got, c.want)
		}
	}
	if haproxy.Name == "" {
		t.Fatal("haproxy has no name")
	}
}
