package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/suggest"
)

// --balancer KIND[,KIND...] runs a lab's balancer tier as lblab's lb or as
// an external proxy (balancers.kind, docs/external.md). One kind swaps the
// tier; several run every setting through each, on the same stream, the
// runs named SETTING@KIND, followed by the simulator's prediction of each
// setting (SETTING@sim).

const balancerHelp = "run the balancer tier as KIND: lb, haproxy, nginx or caddy (balancers.kind, docs/external.md);\n" +
	"several (lb,haproxy,nginx) run each setting through each, named SETTING@KIND, then add lab sim's prediction (SETTING@sim)"

// parseKinds reads --balancer.
func parseKinds(arg string) ([]string, error) {
	var out []string
	for _, k := range strings.Split(arg, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(labfile.Kinds(), k) {
			return nil, fmt.Errorf("--balancer: %q is not a balancer kind%s (kinds: %s)", k,
				suggest.DidYouMean(k, labfile.Kinds(), false), strings.Join(labfile.Kinds(), ", "))
		}
		if slices.Contains(out, k) {
			return nil, fmt.Errorf("--balancer: %s is named twice", k)
		}
		out = append(out, k)
	}
	return out, nil
}

// withKinds is settings run through each kind. A setting the kind cannot
// run (its proxy lacks the algorithm, or the lab uses what it cannot
// honour) is an error when the user named it (--compare), and is left out
// with a note when it came from the lab's compare list.
func withKinds(lab *labfile.Lab, settings []labfile.Setting, kinds []string, named bool, errOut io.Writer) ([]labfile.Setting, error) {
	var out []labfile.Setting
	for _, s := range settings {
		for _, k := range kinds {
			ks := s
			ks.Set = maps.Clone(s.Set)
			if ks.Set == nil {
				ks.Set = map[string]string{}
			}
			ks.Set["balancers.kind"] = k
			if len(kinds) > 1 {
				ks.Name = s.Name + "@" + k
			}
			if _, err := lab.WithSetting(ks); err != nil {
				if named {
					return nil, usageError{fmt.Errorf("--balancer %s: %w", k, err)}
				}
				fmt.Fprintf(errOut, "lab run: --balancer %s: setting %s left out: %s\n", k, s.Name, firstLine(err))
				continue
			}
			out = append(out, ks)
		}
	}
	if len(out) == 0 {
		return nil, usageError{fmt.Errorf("--balancer %s: no setting of %s can run there", strings.Join(kinds, ","), lab.Name)}
	}
	return out, nil
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// predictions are lab sim's runs of the settings that ran live (each once,
// whatever kinds it ran through), named SETTING@sim: the model's
// prediction beside what each balancer did.
func predictions(lab *labfile.Lab, settings []labfile.Setting, ran []labfile.Setting) ([]report.Run, error) {
	var base []labfile.Setting
	for _, s := range settings {
		if slices.ContainsFunc(ran, func(r labfile.Setting) bool { return strings.HasPrefix(r.Name, s.Name+"@") }) {
			p := s
			p.Name = s.Name + "@sim"
			base = append(base, p)
		}
	}
	if len(base) == 0 {
		return nil, nil
	}
	rep, err := sim.Compare(lab, base, sim.Options{})
	if err != nil {
		return nil, err
	}
	return rep.Runs, nil
}

// interleave puts each setting's prediction after its live runs.
func interleave(live, pred []report.Run) []report.Run {
	var out []report.Run
	for _, p := range pred {
		base := strings.TrimSuffix(p.Name, "@sim")
		for _, r := range live {
			if strings.HasPrefix(r.Name, base+"@") {
				out = append(out, r)
			}
		}
		out = append(out, p)
	}
	for _, r := range live { // runs with no prediction (none: every live run's setting has one)
		if !slices.ContainsFunc(out, func(o report.Run) bool { return o.Name == r.Name }) {
			out = append(out, r)
		}
	}
	return out
}

// swapKind is lab with its balancer tier run as kind (lab up --balancer):
// its compare entries that kind cannot run are dropped, and named.
func swapKind(lab *labfile.Lab, kind string, errOut io.Writer) (*labfile.Lab, error) {
	c := lab.Clone()
	var keep []labfile.Setting
	for _, s := range c.Compare {
		ks := s
		ks.Set = maps.Clone(s.Set)
		if ks.Set == nil {
			ks.Set = map[string]string{}
		}
		ks.Set["balancers.kind"] = kind
		if _, err := c.WithSetting(ks); err != nil {
			fmt.Fprintf(errOut, "lab up: --balancer %s: compare setting %s dropped: %s\n", kind, s.Name, firstLine(err))
			continue
		}
		keep = append(keep, s)
	}
	c.Compare = keep
	if err := c.Apply("balancers.kind", kind); err != nil {
		return nil, usageError{fmt.Errorf("--balancer %s: %w", kind, err)}
	}
	return c, nil
}
