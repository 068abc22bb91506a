package torture

import (
	"strings"
	"time"
)

// Shrink reduces a failing lab greedily: it tries smaller labs — the
// script without one event, half the duration, a server group fewer or
// smaller, a feature's key deleted (back to its default, usually off), a
// number halved or one less — and keeps the first that still fails the
// same way, until no candidate does or budget runs are spent. It returns
// the smallest lab found and the number of runs it took.
func Shrink(name string, tree Map, signature string, budget int) (Map, int) {
	deep := strings.HasPrefix(signature, Unstable.String()) || strings.HasPrefix(signature, RoundTrip.String())
	return shrink(tree, budget, func(cand Map) (bool, bool) {
		out := Check(name, cand, deep)
		return out.Verdict != Invalid, out.Failed() && out.Signature() == signature
	})
}

// shrink is Shrink with the judge of a candidate passed in: whether the
// validator takes it (a smaller lab it refuses is no lab, and costs no run)
// and whether it still fails.
func shrink(tree Map, budget int, judge func(Map) (valid, fails bool)) (Map, int) {
	best, runs := tree, 0
	for runs < budget {
		progress := false
		for _, cand := range candidates(best) {
			if runs >= budget {
				break
			}
			valid, fails := judge(cand)
			if !valid {
				continue
			}
			runs++
			if fails {
				best, progress = cand, true
				break
			}
		}
		if !progress {
			break
		}
	}
	return best, runs
}

// protected keys are never deleted: the lab's name and seed, the duration
// (its default, 20 s, is longer; it is halved instead) and the fleet (its
// default is 5 servers; groups are dropped one by one instead).
var protected = map[string]bool{".name": true, ".seed": true, ".duration": true, ".servers": true}

// candidates lists the one-step reductions of tree, the largest first.
func candidates(tree Map) []Map {
	var out []Map
	if evs, ok := tree.Get("events").(List); ok {
		out = append(out, without(tree, "events"))
		for i := len(evs) - 1; i >= 0; i-- {
			out = append(out, with(tree, "events", listWithout(evs, i)))
		}
	}
	if d, ok := tree.Get("duration").(time.Duration); ok && d >= 200*time.Millisecond {
		out = append(out, shorter(tree, (d/2).Round(100*time.Millisecond)))
	}
	walk(tree, func(v any) Map { return v.(Map) }, "", &out)
	return out
}

// walk adds the generic reductions of v, found at path; put returns the
// whole tree with v replaced.
func walk(v any, put func(any) Map, path string, out *[]Map) {
	switch t := v.(type) {
	case Map:
		for i, f := range t {
			p := path + "." + f.Key
			if !protected[p] {
				*out = append(*out, put(mapWithout(t, i)))
			}
			walk(f.Val, func(nv any) Map {
				c := append(Map(nil), t...)
				c[i].Val = nv
				return put(c)
			}, p, out)
		}
	case List:
		for i, e := range t {
			if len(t) > 1 {
				*out = append(*out, put(listWithout(t, i)))
			}
			walk(e, func(nv any) Map {
				c := append(List(nil), t...)
				c[i] = nv
				return put(c)
			}, path+"[]", out)
		}
	case int:
		if t > 1 {
			*out = append(*out, put(1))
		}
		if t > 3 {
			*out = append(*out, put(t/2))
		}
		if t > 2 && t-1 != t/2 { // one fewer: a target s13 in groups of 6, 4 and 4 needs 5, 4, 4
			*out = append(*out, put(t-1))
		}
	case float64:
		if path == ".clients.rate" && t >= 20 {
			*out = append(*out, put(round(t/2)))
		}
	}
}

// shorter is tree with duration d and without the events at or after it
// (a time-boxed event: whose end is).
func shorter(tree Map, d time.Duration) Map {
	c := with(tree, "duration", d)
	if evs, ok := tree.Get("events").(List); ok {
		var keep List
		for _, e := range evs {
			at, _ := e.(Map).Get("at").(time.Duration)
			span, _ := e.(Map).Get("for").(time.Duration)
			if at+span < d {
				keep = append(keep, e)
			}
		}
		if len(keep) == 0 {
			return without(c, "events")
		}
		c = with(c, "events", keep)
	}
	return c
}

func with(m Map, key string, v any) Map {
	c := append(Map(nil), m...)
	c.Set(key, v)
	return c
}

func without(m Map, key string) Map {
	for i, f := range m {
		if f.Key == key {
			return mapWithout(m, i)
		}
	}
	return m
}

func mapWithout(m Map, i int) Map {
	return append(append(Map(nil), m[:i]...), m[i+1:]...)
}

func listWithout(l List, i int) List {
	return append(append(List(nil), l[:i]...), l[i+1:]...)
}
