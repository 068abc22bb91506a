package assemble

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/labfile"
)

// readAtUse are the leaves outside servers. that the running parts read
// from the lab as it is at each use rather than through a config a
// reconfigure takes: the open-loop rate (the simulator's and the loadgen's
// setRate), the load report periods and the health checks (a round reads
// them when it runs; a set turns the checks on or off).
var readAtUse = []string{"clients.rate", "clients.refresh", "balancers.refresh",
	"balancers.health.enabled", "balancers.health.interval", "balancers.health.fails", "balancers.health.passes"}

// Every leaf a set event takes is either fixed for a run
// (labfile.FixedAtRunTime, refused everywhere) or carried out on both
// clocks: a server's through ServerSettings (the one table the simulator's
// respec and the backend's POST /admin/set apply from, and each entry reads
// the leaves it claims), the others by changing what the client runtime's
// and the balancers' Reconfigure take (ClientConfig, BalancerConfig), or
// read at each use (readAtUse). A new setting that is neither fails here.
func TestEverySettableLeafIsCarriedOutOrFixed(t *testing.T) {
	bases := map[string]*labfile.Lab{}
	for name, kv := range map[string][]string{
		"tier": {"balancers.breaker.enabled", "true", "balancers.outlier.enabled", "true",
			"balancers.slow_start.enabled", "true", "balancers.algorithm", "p2c"},
		"tier aperture":        {"balancers.algorithm", "p2c", "balancers.aperture", "3"},
		"client-side aperture": {"clients.algorithm", "p2c", "clients.aperture", "3"},
		"client-side":          {"clients.algorithm", "p2c", "clients.sticky", "5", "balancers.breaker.enabled", "true"},
	} {
		lab := labfile.Default()
		for i := 0; i < len(kv); i += 2 {
			if err := lab.Apply(kv[i], kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		bases[name] = lab
	}
	zoned := labfile.Default() // the links between zones are read only where there are zones
	zoned.Zones = []labfile.Zone{{Name: "a", Region: "east"}, {Name: "b", Region: "east"}, {Name: "c", Region: "west"}}
	bases["zoned"] = zoned
	taken := func(lab *labfile.Lab) any {
		cc, err := ClientConfig(lab)
		if err != nil {
			return err.Error()
		}
		// what client.Runtime.Reconfigure takes, and a balancer's config
		return []any{cc.Live, BalancerConfig(lab, 0)}
	}
	for _, leaf := range labfile.Leaves("") {
		path := leaf.Path
		if labfile.FixedAtRunTime(path) != "" || slices.Contains(readAtUse, path) {
			continue
		}
		if rest, ok := strings.CutPrefix(path, "servers."); ok {
			claimed := false
			for _, ss := range ServerSettings {
				if slices.Contains(ss.Leaves, rest) {
					claimed = true
					if !changes(bases["tier"], path, func(l *labfile.Lab) any { return ss.Get(l.Servers[0].Server) }) {
						t.Errorf("%s: ServerSettings entry %s claims it but does not read it", path, ss.Name)
					}
				}
			}
			if !claimed {
				t.Errorf("%s: a set event takes it, but it is neither in ServerSettings nor fixed for a run (labfile fixedForRun)", path)
			}
			continue
		}
		carried := false
		for _, base := range bases {
			carried = carried || changes(base, path, taken)
		}
		if !carried {
			t.Errorf("%s: a set event takes it, but no reconfigure carries it out and it is not fixed for a run (labfile fixedForRun)", path)
		}
	}
}

// changes reports whether some value of path that lab takes changes what
// read reads.
func changes(lab *labfile.Lab, path string, read func(*labfile.Lab) any) bool {
	before := read(lab)
	for _, v := range candidates(lab, path) {
		c := lab.Clone()
		if err := c.Apply(path, v); err != nil {
			continue
		}
		if !reflect.DeepEqual(before, read(c)) {
			return true
		}
	}
	return false
}

// candidates are values to try at path: both booleans, every word, the
// ends and middle of a range, a few hedges.
func candidates(lab *labfile.Lab, path string) []string {
	out := []string{"true", "false", "50ms", "p95", ""}
	a := lab.AllowedAt()[path]
	out = append(out, a.Words...)
	switch r := a.Range.(type) {
	case labfile.Range[int]:
		for _, v := range []int{r.Min, r.Max, (r.Min + r.Max) / 2, r.Min + 1} {
			out = append(out, strconv.Itoa(v))
		}
	case labfile.Range[float64]:
		for _, v := range []float64{r.Min, r.Max, (r.Min + r.Max) / 2} {
			out = append(out, strconv.FormatFloat(v, 'g', -1, 64))
		}
	case labfile.Range[time.Duration]:
		for _, v := range []time.Duration{r.Min, r.Max, (r.Min + r.Max) / 2, r.Min + time.Millisecond} {
			out = append(out, v.String())
		}
	}
	return out
}
