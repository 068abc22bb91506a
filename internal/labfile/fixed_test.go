package labfile_test

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// The settings a running lab cannot change are refused in a set event at
// the event's line and column, naming the setting and why; a compare
// setting may still give them, and Lab.FixedChange refuses the same change
// for the live settings APIs, while the value a setting has passes.
func TestSetFixedForRunRefused(t *testing.T) {
	for _, c := range []struct{ path, value, col string }{
		{"clients.count", "1", ":7:33:"}, {"balancers.load", "shared", ":7:33:"}, {"clients.profile.mean", "5", ":7:33:"},
	} {
		_, err := labyaml.Parse("fixed.yaml", []byte(`
duration: 2s
clients: {algorithm: p2c}
servers:
  - {}
events:
  - {at: 1s, action: set, set: {`+c.path+`: `+c.value+`}}
`))
		if err == nil || !strings.Contains(err.Error(), "fixed.yaml"+c.col) || !strings.Contains(err.Error(), "set."+c.path+": is fixed for a run (") {
			t.Errorf("set %s=%s: %v; want refused at fixed.yaml%s, fixed for a run", c.path, c.value, err, c.col)
		}
	}
	for _, path := range []string{"servers[1].gc.every", "servers.work.mean", "network.tls", "clients.keys", "seed"} {
		if labfile.FixedAtRunTime(path) == "" {
			t.Errorf("%s is not held fixed; a running lab does not carry it out", path)
		}
	}
	for _, path := range []string{"servers.workers", "balancers.decay", "clients.retries", "servers[0].queue_timeout",
		"servers.cache.hit_factor", "servers.cache.size", "network.hop", "network.jitter", "servers.speed"} {
		if why := labfile.FixedAtRunTime(path); why != "" {
			t.Errorf("%s is held fixed (%s); a set event carries it out", path, why)
		}
	}
	if _, err := labyaml.Parse("compare.yaml", []byte("duration: 1s\ncompare:\n  - {name: shared, set: {balancers.load: shared}}\n  - {name: few, set: {clients.count: 2}}\n")); err != nil {
		t.Errorf("a compare setting of a setting fixed for a run: %v", err)
	}
	lab := labfile.Default()
	same, shared := lab.Clone(), lab.Clone()
	if err := shared.Apply("balancers.load", "shared"); err != nil {
		t.Fatal(err)
	}
	if err := lab.FixedChange(same, "balancers.load"); err != nil {
		t.Errorf("the same load mode again: %v", err)
	}
	if err := lab.FixedChange(shared, "balancers.load"); err == nil || !strings.HasPrefix(err.Error(), "balancers.load: is fixed for a run (") {
		t.Errorf("a new load mode on a running lab: %v", err)
	}
}

// clients.algorithm may change from one algorithm to another mid-run, but
// not switch client-side balancing on or off: the set event is refused at
// its entry, and so is the change through a live process's API.
func TestSetClientSideOnOffRefused(t *testing.T) {
	for _, c := range []struct{ lab, value string }{
		{"clients: {algorithm: p2c}", `""`}, {"clients: {}", "p2c"},
	} {
		_, err := labyaml.Parse("side.yaml", []byte("duration: 2s\n"+c.lab+"\nevents:\n  - {at: 1s, action: set, set: {clients.algorithm: "+c.value+"}}\n"))
		if err == nil || !strings.Contains(err.Error(), "side.yaml:4:") || !strings.Contains(err.Error(), "set.clients.algorithm: is fixed for a run as on or off (") {
			t.Errorf("%s, set clients.algorithm %s: %v; want refused at side.yaml:4", c.lab, c.value, err)
		}
	}
	if _, err := labyaml.Parse("side.yaml", []byte("duration: 2s\nclients: {algorithm: p2c}\nevents:\n  - {at: 1s, action: set, set: {clients.algorithm: random}}\n")); err != nil {
		t.Errorf("one client-side algorithm for another: %v", err)
	}
	lab := labfile.Default()
	side := lab.Clone()
	if err := side.Apply("clients.algorithm", "p2c"); err != nil {
		t.Fatal(err)
	}
	if err := lab.FixedChange(side, "clients.algorithm"); err == nil || !strings.HasPrefix(err.Error(), "clients.algorithm: is fixed for a run as on or off (") {
		t.Errorf("client-side balancing turned on through an API: %v", err)
	}
}
