package labfile

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Undo returns the event that ends a time-boxed event (one with For > 0),
// given lab as it is just before ev applies: the lab file's settings as the
// events applied so far (set, rate, algorithm) have left them (Record).
// Both clocks apply it at ev.At + ev.For: the simulator's script, and the
// live lab's script and drills alike. Each drill's undo is in its entry of
// Drills (slow -> restore, kill -> restart, set -> every path's value
// before, ...); a drill without one (gc, the undos themselves,
// remove-server) gets an error that says why.
func Undo(lab *Lab, ev Event) (Event, error) {
	d, ok := DrillOf(ev.Action)
	switch {
	case !ok:
		return Event{}, fmt.Errorf("unknown action %q", ev.Action)
	case d.Undo == "":
		return Event{}, errors.New(d.noUndo)
	}
	undo := Event{Target: ev.Target}
	if d.undoWith != nil {
		var err error
		if undo, err = d.undoWith(lab, ev); err != nil {
			return Event{}, err
		}
	}
	undo.Action = d.Undo
	return undo, nil
}

// UndoText is the event log's line for undo, the end of cause: "restore s3
// (end of slow s3 speed=0.25 for=30s)".
func UndoText(undo, cause Event) string { return undo.String() + " (end of " + cause.String() + ")" }

// errorShare is the lab's error share of target (a server, or all when
// every server has the same).
func errorShare(lab *Lab, target string) (float64, error) {
	servers := lab.ExpandServers()
	if target != "all" {
		for _, s := range servers {
			if s.Name == target {
				return s.Errors, nil
			}
		}
		if len(servers) > 0 { // added at run time: a copy of the last server
			return servers[len(servers)-1].Errors, nil
		}
		return 0, nil
	}
	for _, s := range servers[min(1, len(servers)):] {
		if s.Errors != servers[0].Errors {
			return 0, fmt.Errorf("the servers' error shares differ (%s %s, %s %s): time-box errors per server",
				servers[0].Name, num(servers[0].Errors), s.Name, num(s.Errors))
		}
	}
	if len(servers) == 0 {
		return 0, nil
	}
	return servers[0].Errors, nil
}

// Record changes l as event ev changes the lab of a running run (what
// Undo then reads): rate sets clients.rate (a pause, rate 0, leaves it) and
// replaces the profile; algorithm and set change their settings. Events
// that act on servers change no setting.
func (l *Lab) Record(ev Event) {
	if d, ok := DrillOf(ev.Action); ok && d.record != nil {
		d.record(l, ev)
	}
}

// validateCoreOK reports whether the knobs of l are valid (its script aside).
func validateCoreOK(l *Lab, r *reporter) bool {
	validateCore(l, r)
	return len(r.errs) == 0
}

// Get returns the value of the setting at a dotted path (as Apply takes
// it), written so that Apply reads it back: 50ms, 0.1, true. A path without
// an index into a list (servers.queue.capacity) needs the same value in
// every element.
func (l *Lab) Get(path string) (string, error) {
	segs, perr := parsePath(path)
	if perr != nil {
		return "", perr
	}
	var top []field
	for _, f := range fieldsOf(reflect.TypeOf(*l)) {
		if slices.Contains(knobSections, f.name) {
			top = append(top, f)
		}
	}
	return l.get(reflect.ValueOf(l).Elem(), top, segs, "")
}

func (l *Lab) get(v reflect.Value, fields []field, segs []segment, prefix string) (string, error) {
	seg, rest := segs[0], segs[1:]
	here := JoinPath(prefix, seg.name)
	f, ok := lookupField(fields, seg.name)
	if !ok {
		return "", &Error{Field: here, Msg: unknownKeyMsg(seg.name, orLab(prefix), fieldNames(fields))}
	}
	fv := v.FieldByIndex(f.index)
	if fv.Kind() == reflect.Slice {
		return l.getEach(fv, seg, rest, here)
	}
	if fv.Kind() == reflect.Pointer {
		if fv.IsNil() { // a server's work left out: the clients' (what setting it starts from)
			if fv.Type() != reflect.TypeOf((*Dist)(nil)) {
				return "", &Error{Field: here, Msg: seg.name + " is not set"}
			}
			w := l.Clients.Work.clone()
			fv = reflect.ValueOf(&w)
		}
		fv = fv.Elem()
	}
	if len(rest) == 0 {
		if !IsScalar(fv.Type()) {
			return "", &Error{Field: here, Msg: seg.name + " is a section, not a value"}
		}
		return scalarText(fv), nil
	}
	sub := settableFields(fv.Type())
	if sub == nil {
		return "", &Error{Field: here, Msg: seg.name + " is a value, not a section"}
	}
	return l.get(fv, sub, rest, here)
}

// getEach reads the rest of the path in one element of a list, or in every
// element when the segment has no index (they must agree).
func (l *Lab) getEach(list reflect.Value, seg segment, rest []segment, here string) (string, error) {
	sub := settableFields(list.Type().Elem())
	switch {
	case sub == nil || len(rest) == 0:
		return "", &Error{Field: here, Msg: seg.name + " is a list; name a field of its elements"}
	case seg.index >= list.Len() || list.Len() == 0:
		return "", &Error{Field: IndexPath(here, seg.index), Msg: fmt.Sprintf("index out of range: %s has %d entries", seg.name, list.Len())}
	case seg.index >= 0:
		return l.get(list.Index(seg.index), sub, rest, IndexPath(here, seg.index))
	}
	var first string
	for i := 0; i < list.Len(); i++ {
		v, err := l.get(list.Index(i), sub, rest, here)
		if err != nil {
			return "", err
		}
		if i == 0 {
			first = v
		} else if v != first {
			return "", &Error{Field: here, Msg: fmt.Sprintf("the %s differ here (%s[0] %s, %s[%d] %s): name one with %s[i]",
				seg.name, seg.name, first, seg.name, i, v, seg.name)}
		}
	}
	return first, nil
}

func orLab(prefix string) string {
	if prefix == "" {
		return "the lab's settable sections"
	}
	return prefix
}

// scalarText writes a scalar as setScalar reads it.
func scalarText(v reflect.Value) string {
	switch {
	case v.Type() == durationType:
		return time.Duration(v.Int()).String()
	case v.Kind() == reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case v.Kind() == reflect.Int, v.Kind() == reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case v.Kind() == reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case v.Kind() == reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return v.String()
}

// timedItem is an event of the script's timeline: a lab-file event, or the
// undo of a time-boxed one (cause is then its index).
type timedItem struct {
	at    time.Duration
	ev    Event
	cause int
}

// validateTimeline walks the script as the drivers run it, undos included
// at At + For (after the events of the same instant), and checks what
// depends on the order: each event's target against the servers present
// then, each for: (its undo, and that it falls within the run), and that no
// event changes what an earlier time-boxed one holds before its undo.
func validateTimeline(l *Lab, r *reporter, fl *fleet, validate func(*Lab, *reporter)) {
	lab := l.Clone()
	var undos []timedItem
	fire := func(before time.Duration, inclusive bool) {
		for len(undos) > 0 && (undos[0].at < before || inclusive && undos[0].at == before) {
			u := undos[0]
			undos = undos[1:]
			d, ok := DrillOf(u.ev.Action)
			if ok && fl != nil && d.Takes("target") {
				checkTarget(&u.ev, IndexPath("events", u.cause)+".for", fl, r)
			}
			if ok && (len(u.ev.Set) > 0 || u.ev.Algorithm != "") {
				// the undo of a setting must hold in the lab as it is
				// then, which later events may have changed
				checkUndoSetting(lab, u, r, validate)
			}
			lab.Record(u.ev)
		}
	}
	for i := range l.Events {
		e := &l.Events[i]
		p := IndexPath("events", i)
		fire(e.At, false)
		d, known := DrillOf(e.Action)
		if known {
			// a setting is checked on the lab as the events before it
			// (and their undos) have made it: the simulator applies it there
			checkFields(d, e, p, r, &setChecker{lab: lab, validate: validate})
		}
		targetOK := true
		if known && fl != nil && d.Takes("target") {
			targetOK = checkTarget(e, p+".target", fl, r)
		}
		if e.For != 0 && known {
			// an event on a server that is not there has been blamed once,
			// at its own instant: its undo is not checked a second time
			if u, ok := checkFor(l, lab, i, r); ok && targetOK {
				at := e.At + e.For
				u.At = at // what the undo's check names
				k, _ := slices.BinarySearchFunc(undos, at, func(x timedItem, t time.Duration) int {
					if x.at <= t {
						return -1
					}
					return 1
				})
				undos = slices.Insert(undos, k, timedItem{at: at, ev: u, cause: i})
			}
		}
		lab.Record(*e)
	}
	for len(undos) > 0 {
		fire(undos[0].at, true)
	}
	checkOverlaps(l, r)
}

// checkUndoSetting reports, at the for: of the event it ends, an undo
// whose setting the lab as it is at the undo's instant cannot take.
func checkUndoSetting(lab *Lab, u timedItem, r *reporter, validate func(*Lab, *reporter)) {
	ur := &reporter{}
	(&setChecker{lab: lab, validate: validate}).check(ur, "undo", u.ev.Algorithm, u.ev.Set)
	for _, e := range ur.errs {
		what := strings.TrimPrefix(strings.TrimPrefix(e.Field, "undo"), ".")
		if what != "" {
			what += ": "
		}
		r.add(IndexPath("events", u.cause)+".for", "its undo at %v cannot apply to the lab as the events before it leave it: %s%s", u.at, what, e.Msg)
	}
}

// checkFor checks events[i].for and returns its undo.
func checkFor(l, now *Lab, i int, r *reporter) (Event, bool) {
	e := l.Events[i]
	p := IndexPath("events", i) + ".for"
	switch {
	case e.For < 0:
		r.add(p, "must be > 0 (how long the event lasts before its undo), got %v", e.For)
		return Event{}, false
	case e.At+e.For >= l.Duration:
		r.add(p, "the undo at %v (at %v + for %v) must come before the end of the lab (duration %v)", e.At+e.For, e.At, e.For, l.Duration)
		return Event{}, false
	}
	u, err := Undo(now, e)
	if err != nil {
		r.add(p, "%v", err)
		return Event{}, false
	}
	return u, true
}

// checkOverlaps reports an event that changes what an earlier time-boxed
// event holds while it is in force: the earlier one's undo would silently
// override it.
func checkOverlaps(l *Lab, r *reporter) {
	for i, a := range l.Events {
		if a.For <= 0 {
			continue
		}
		end := a.At + a.For
		for j := i + 1; j < len(l.Events) && l.Events[j].At < end; j++ {
			if conflicts(a, l.Events[j]) {
				r.add(IndexPath("events", j)+".action", "changes what events[%d] (%s) holds until %v: its undo then would override this; end that one earlier or time-box this one instead",
					i, a, end)
			}
		}
	}
}

// conflicts reports whether events a and b change the same thing.
func conflicts(a, b Event) bool {
	for _, x := range touches(a) {
		for _, y := range touches(b) {
			if x.what == y.what && (x.target == y.target || x.target == "all" || y.target == "all") {
				return true
			}
		}
	}
	return false
}

// touched is one thing an event changes: what, on which server ("" for
// settings of the whole lab).
type touched struct{ what, target string }

func touches(e Event) []touched {
	if d, ok := DrillOf(e.Action); ok && d.holds != nil {
		return d.holds(e)
	}
	return nil
}
