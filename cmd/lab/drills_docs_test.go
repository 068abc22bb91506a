package main

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
)

// docDrillSpan is a drill as the README and docs write one: a `lab chaos
// ...` command (in a code block or a backquoted span), or a backquoted span
// that starts with a drill's action ("slow s3 speed=0.25").
var (
	docChaosLine = regexp.MustCompile("lab chaos ([^`#\n(]*)")
	docSpan      = regexp.MustCompile("`([a-z-]+(?: [^` ]+)+)`")
)

// madeUpDrills are drills the docs name to show how one would be added, not
// drills lblab has (docs/architecture.md, "How to add a drill").
var madeUpDrills = []string{"flush"}

// docDrills are the drill forms of the README and docs/: each a list of
// words, with where it was found. Placeholders (TARGET, sN, ...), the
// event log's "(end of ...)" lines and a bare "lab chaos ACTION" naming a
// kind of drill are not drill forms and are left out.
func docDrills(t *testing.T) (forms [][]string, where []string) {
	t.Helper()
	isAction := func(w string) bool { return slices.Contains(labfile.ActionNames(), w) }
	for _, path := range docFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			var cands []string
			for _, m := range docChaosLine.FindAllStringSubmatch(line, -1) {
				cands = append(cands, m[1])
			}
			for _, m := range docSpan.FindAllStringSubmatch(line, -1) {
				if first, _, _ := strings.Cut(m[1], " "); isAction(first) {
					cands = append(cands, m[1])
				}
			}
			for _, c := range cands {
				words := strings.Fields(c)
				// the flags of lab chaos are not the drill's
				for j := 0; j < len(words); j++ {
					if strings.HasPrefix(words[j], "--") {
						words = slices.Delete(words, j, min(j+2, len(words)))
						j--
					}
				}
				if len(words) < 2 || !isAction(words[0]) && !slices.Contains(madeUpDrills, words[0]) {
					continue // lab chaos --help, lab chaos rate, kill -9, ...
				}
				if words[0] == "set" && !strings.Contains(c, "=") || strings.Contains(c, "(") {
					continue // a path named for what set changes; an event log's "(end of ...)" line
				}
				if strings.ContainsAny(c, "[]<>") || strings.Contains(c, "...") || strings.ContainsFunc(c, unicode.IsUpper) || words[1] == "-9" || words[1] == "sN" {
					continue // a form with placeholders (TARGET, speed=F, [NAME], sN), or kill -9
				}
				if slices.Contains(madeUpDrills, words[0]) {
					continue
				}
				forms = append(forms, words)
				where = append(where, path+":"+strconv.Itoa(i+1))
			}
		}
	}
	return forms, where
}

// Every drill form the README and docs write parses as lab chaos reads it
// and is accepted on the lab lab up runs (with the servers it names), so a
// drill a reader copies cannot fail, nor panic as `lab chaos add-server
// workers=4` once did in the drill line's parser.
func TestDocDrillFormsWork(t *testing.T) {
	forms, where := docDrills(t)
	seen := map[string]bool{}
	for i, words := range forms {
		seen[words[0]] = true
		ev, err := labfile.ParseDrill(words)
		if err != nil {
			t.Errorf("%s: %q: %v", where[i], strings.Join(words, " "), err)
			continue
		}
		lab := labfile.Default()
		if d, _ := labfile.DrillOf(ev.Action); d.NeedsZones { // a zone drill's docs name zones a and b
			lab.Zones = []labfile.Zone{{Name: "a"}, {Name: "b"}}
		} else if ev.Target != "" && ev.Target != "all" && ev.Action != labfile.ActionAddServer && !slices.ContainsFunc(lab.ExpandServers(), func(s labfile.NamedServer) bool { return s.Name == ev.Target }) {
			extra := lab.Servers[len(lab.Servers)-1]
			extra.Count, extra.Name = 1, ev.Target
			lab.Servers = append(lab.Servers, extra) // backend-7 of the compose lab, a container id of docs/compose.md
		}
		if err := dash.ValidateDrill(lab, &ev); err != nil { // what POST /api/chaos checks
			t.Errorf("%s: %q on the playground lab: %v", where[i], strings.Join(words, " "), err)
		}
	}
	if len(forms) < 20 || !seen["add-server"] {
		t.Errorf("found %d drill forms in the docs (want at least 20, add-server's among them): the finder is broken", len(forms))
	}
	t.Logf("%d drill forms in the README and docs", len(forms))
}
