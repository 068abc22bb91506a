package labyaml

import (
	"errors"
	"reflect"
	"strings"

	"github.com/lblab/lblab/internal/labfile"
)

// Locate gives the problems of err that have no position (found by
// labfile's Apply, ApplyAll or WithSetting, which validate a lab built from
// a file but hold no positions) the position of their field in the lab
// file the lab came from: file names it and data is its text, as given to
// Parse. Fields at or
// under one of the set paths keep no position: their value came from
// elsewhere (a flag), not from the file. err is returned as it is when it
// is not a lab-file problem or data does not parse.
func Locate(err error, file string, data []byte, set ...string) error {
	var one *labfile.Error
	var many labfile.Errors
	switch {
	case errors.As(err, &many):
	case errors.As(err, &one):
		many = labfile.Errors{one}
	default:
		return err
	}
	if precheck(file, data) != nil {
		return err
	}
	f, perr := parseYAML(file, data)
	if perr != nil {
		return err
	}
	d := newDecoder(file)
	d.document(f, reflect.ValueOf(&labfile.Lab{}).Elem())
	for _, e := range many {
		if e.Line > 0 || fromElsewhere(e.Field, set) {
			continue
		}
		if at := d.pos.Find(e.Field); at.Line > 0 {
			e.File, e.Line, e.Col = file, at.Line, at.Col
		}
	}
	return err
}

// fromElsewhere reports whether field is one of paths, under one, or a
// step of one (events[5] of events[5].speed: the path itself is wrong).
func fromElsewhere(field string, paths []string) bool {
	for _, p := range paths {
		if field == p || strings.HasPrefix(field, p+".") || strings.HasPrefix(field, p+"[") ||
			strings.HasPrefix(p, field+".") || strings.HasPrefix(p, field+"[") {
			return true
		}
	}
	return false
}
