package labfile

import (
	"reflect"
	"slices"
	"strings"
)

// validateScript checks the compare settings and the events.
func validateScript(l *Lab, r *reporter) {
	validateCompare(l, r, &setChecker{lab: l, validate: validateRun, script: true})
	validateEvents(l, r, &setChecker{lab: l, validate: validateCore}, false)
}

// validateRun checks what one run uses: the knobs and the events (a compare
// setting must leave the script valid too, e.g. keep the targeted servers).
func validateRun(l *Lab, r *reporter) {
	validateCore(l, r)
	validateEvents(l, r, &setChecker{lab: l, validate: validateCore}, false)
	validateTierScript(l, r)
}

func validateCompare(l *Lab, r *reporter, ch *setChecker) {
	names := map[string]int{}
	for i, s := range l.Compare {
		p := IndexPath("compare", i)
		switch j, dup := names[s.Name]; {
		case strings.TrimSpace(s.Name) == "":
			r.add(p+".name", "every setting needs a name (it labels the report's run)")
		case dup:
			r.add(p+".name", "name %s is already used by compare[%d]", Quote(s.Name), j)
		default:
			names[s.Name] = i
			checkText(r, p+".name", s.Name, MaxNameLen, false)
		}
		if s.Algorithm != "" && !slices.Contains(Algorithms, s.Algorithm) {
			r.oneOf(p+".algorithm", s.Algorithm, Algorithms...)
			continue
		}
		ch.check(r, p, s.Algorithm, s.Set)
	}
}

// setChecker tries settings on a clone of the lab and reports what breaks.
type setChecker struct {
	lab      *Lab
	validate func(*Lab, *reporter) // what a setting must keep valid
	script   bool                  // a setting may name a field of a script event (compare settings; not set events)
	base     map[string]bool       // the lab's own problems, not blamed on a setting
}

// check applies algorithm and set to a clone and reports each problem at
// the set entry that caused it (or at the setting when none matches).
func (ch *setChecker) check(r *reporter, p, algorithm string, set map[string]string) {
	if algorithm == "" && len(set) == 0 {
		return
	}
	c := ch.lab.Clone()
	inner := applySetting(c, algorithm, set, ch.script)
	if len(inner) == 0 {
		if ch.base == nil {
			ch.base = map[string]bool{}
			br := &reporter{}
			ch.validate(ch.lab, br)
			for _, e := range br.errs {
				ch.base[e.Error()] = true
			}
		}
		cr := &reporter{}
		ch.validate(c, cr)
		for _, e := range cr.errs {
			if !ch.base[e.Error()] {
				inner = append(inner, e)
			}
		}
	}
	seen := map[string]bool{}
	for _, e := range inner {
		field, msg := p+".set", e.Field+": "+e.Msg
		if len(set) == 0 { // only the algorithm can have caused it
			field = p + ".algorithm"
		} else if key, ok := matchSetKey(e.Field, set); ok {
			field = JoinPath(p+".set", key)
			if key == e.Field || key == generalize(e.Field) {
				msg = e.Msg // servers.x applied to every group: one report
			}
		} else if algorithm != "" && strings.HasSuffix(e.Field, ".algorithm") {
			field = p + ".algorithm"
		}
		if !seen[field+"\x00"+msg] {
			seen[field+"\x00"+msg] = true
			r.add(field, "%s", msg)
		}
	}
}

// matchSetKey finds the set key responsible for a problem at field: the
// field itself or an ancestor, also through "servers." meaning every group;
// failing that, a key in the same section (limiter.min vs limiter.initial).
func matchSetKey(field string, set map[string]string) (string, bool) {
	for f := field; f != ""; f = parentPath(f) {
		if _, ok := set[f]; ok {
			return f, true
		}
		if g := generalize(f); g != f {
			if _, ok := set[g]; ok {
				return g, true
			}
		}
	}
	section := parentPath(generalize(field))
	best := ""
	for k := range set {
		if section != "" && parentPath(generalize(k)) == section && (best == "" || k < best) {
			best = k
		}
	}
	return best, best != ""
}

// generalize turns servers[i].x into servers.x.
func generalize(path string) string {
	rest, ok := strings.CutPrefix(path, "servers[")
	if !ok {
		return path
	}
	n := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
	if n == 0 || !strings.HasPrefix(rest[n:], "]") {
		return path
	}
	return "servers" + rest[n+1:]
}

// fleet tracks the servers present as the script runs; live: the events
// are drills on a running lab, all now.
type fleet struct {
	names []string
	has   map[string]bool
	live  bool
	zones []string // the lab's zones, a zone drill's targets
}

func (f *fleet) add(name string) { f.names = append(f.names, name); f.has[name] = true }

func (f *fleet) remove(name string) {
	f.names = slices.DeleteFunc(f.names, func(n string) bool { return n == name })
	delete(f.has, name)
}

// list names the servers for messages, eliding a long fleet.
func (f *fleet) list() string {
	if len(f.names) > 8 {
		return strings.Join(f.names[:4], ", ") + ", ..., " + strings.Join(f.names[len(f.names)-2:], ", ")
	}
	return strings.Join(f.names, ", ")
}

func validateEvents(l *Lab, r *reporter, ch *setChecker, live bool) {
	var fl *fleet
	if totalServers(l.Servers) > 0 {
		fl = &fleet{has: map[string]bool{}, live: live, zones: l.zoneNames()}
		for _, s := range l.ExpandServers() {
			fl.add(s.Name)
		}
	}
	for i := range l.Events {
		e := &l.Events[i]
		p := IndexPath("events", i)
		checkEventTime(l, i, p, r)
		if _, ok := DrillOf(e.Action); !ok {
			oneOfEnum(r, p+".action", e.Action, Actions...)
		}
	}
	// each event's fields against the lab as the script has made it by
	// then, its targets against the servers present, for: and its undos
	validateTimeline(l, r, fl, ch.validate)
}

func checkEventTime(l *Lab, i int, p string, r *reporter) {
	at := l.Events[i].At
	switch {
	case at < 0:
		r.add(p+".at", "must be >= 0, got %v", at)
	case at >= l.Duration:
		r.add(p+".at", "must be before the end of the lab (duration %v), got %v", l.Duration, at)
	case i > 0 && at < l.Events[i-1].At:
		r.add(p+".at", "events must be in time order: %v comes after %v (events[%d])", at, l.Events[i-1].At, i-1)
	}
}

// usedEventFields lists the optional event fields given a non-zero value.
func usedEventFields(e *Event) []string {
	var out []string
	v := reflect.ValueOf(*e)
	for _, f := range eventFields { // every field a drill may take, in the struct's order
		if f.name != "at" && f.name != "action" && f.name != "for" && !v.FieldByIndex(f.index).IsZero() {
			out = append(out, f.name)
		}
	}
	return out
}

// checkTarget checks an event's target against the servers present at its
// time (e.At: an undo carries its own instant), and tracks add-server and
// remove-server; problems are reported at field (the event's target, or the
// for: of the event an undo ends). It reports whether the target was fine.
func checkTarget(e *Event, field string, fl *fleet, r *reporter) bool {
	before := len(r.errs)
	if d, ok := DrillOf(e.Action); ok && d.Zone {
		switch {
		case len(fl.zones) == 0:
			r.add(field, "%s acts on a zone, and the lab declares none (zones: [{name: a}])", e.Action)
		case !slices.Contains(fl.zones, e.Target):
			r.oneOf(field, e.Target, fl.zones...)
		}
		return len(r.errs) == before
	}
	switch {
	case e.Action == ActionAddServer:
		if e.Target == "" {
			r.add(field, "add-server needs the new server's name")
		} else if msg := checkServerName(e.Target); msg != "" {
			r.add(field, "%s", msg)
		} else if fl.has[e.Target] {
			r.add(field, "server %q already exists; add-server needs a new name", e.Target)
		} else {
			fl.add(e.Target)
		}
	case e.Target == "":
		r.add(field, "action %s needs a target: a server name (%s) or all", e.Action, fl.list())
	case e.Target == "all" && e.Action == ActionRemoveServer:
		r.add(field, "remove-server takes one server name (%s), not all", fl.list())
	case e.Target == "all":
	case !fl.has[e.Target] && fl.live:
		r.add(field, "no server named %s; servers now: %s%s", Quote(e.Target), fl.list(), allHint(e.Action))
	case !fl.has[e.Target]:
		r.add(field, "no server named %s at %v; servers then: %s%s", Quote(e.Target), e.At, fl.list(), allHint(e.Action))
	case e.Action == ActionRemoveServer && len(fl.names) == 1:
		r.add(field, "cannot remove %q, the last server", e.Target)
	case e.Action == ActionRemoveServer:
		fl.remove(e.Target)
	}
	return len(r.errs) == before
}

func allHint(action Action) string {
	if action == ActionRemoveServer {
		return ""
	}
	return ", or all"
}
