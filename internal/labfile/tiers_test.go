package labfile_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// labfile checks balancers.kind against the kinds it is handed (lb alone
// when handed none), and a tier's refusals, of the lab's settings and of
// its drills (also a compare setting's), carry the lab file's line and
// column as labfile's own do.
func TestTiersAreHanded(t *testing.T) {
	t.Cleanup(labfile.KeepTiers())
	parse := func(kind, extra string) error {
		_, err := labyaml.Parse("x.yaml", []byte(fmt.Sprintf("name: x\nbalancers:\n  kind: %s\n  algorithm: maglev\n%s", kind, extra)))
		return err
	}
	want := func(err error, parts ...string) {
		t.Helper()
		for _, p := range parts {
			if err == nil || !strings.Contains(err.Error(), p) {
				t.Errorf("%v, want it to contain %q", err, p)
			}
		}
	}

	labfile.UseTiers(labfile.Tiers{})
	if err := parse("lb", ""); err != nil {
		t.Errorf("kind lb, no tiers handed: %v", err)
	}
	want(parse("toy", ""), `x.yaml:3:9: balancers.kind: must be one of lb; got "toy"`)

	labfile.UseTiers(labfile.Tiers{
		Kinds: []string{"toy"},
		Check: func(l *labfile.Lab, refuse labfile.Refuse) {
			if l.Balancers.Kind == "toy" && l.Balancers.Algorithm == "maglev" {
				refuse("balancers.algorithm", "toy has no %s", l.Balancers.Algorithm)
			}
		},
		Script: func(l *labfile.Lab, refuse labfile.Refuse) {
			for i, ev := range l.Events {
				if l.Balancers.Kind == "toy" && ev.Action == labfile.ActionRemoveServer {
					refuse(fmt.Sprintf("events[%d].action", i), "toy keeps its servers")
				}
			}
		},
	})
	if got := strings.Join(labfile.Kinds(), ","); got != "lb,toy" {
		t.Errorf("Kinds() = %s, want lb,toy", got)
	}
	if err := parse("lb", ""); err != nil {
		t.Errorf("kind lb: %v", err)
	}
	want(parse("toi", ""), "x.yaml:3:9: balancers.kind: must be one of lb, toy", `(did you mean "toy"?)`)
	want(parse("toy", ""), "x.yaml:4:14: balancers.algorithm: toy has no maglev")
	want(parse("lb", "events:\n  - {at: 1s, action: remove-server, target: s1}\n"+
		"compare:\n  - {name: toy, set: {balancers.kind: toy, balancers.algorithm: p2c}}\n"),
		"x.yaml:8:17: compare[0].set: events[0].action: toy keeps its servers") // the setting runs the script through toy

	toy := labfile.Default()
	if err := toy.Apply("balancers.kind", "toy"); err != nil {
		t.Fatal(err)
	}
	ev := labfile.Event{Action: labfile.ActionRemoveServer, Target: "s1"}
	if err := toy.CheckDrill(&ev); err == nil || err.Error() != "action: toy keeps its servers" {
		t.Errorf("a drill the tier refuses: %v, want its refusal", err)
	}
	ev = labfile.Event{Action: labfile.ActionAlgorithm, Algorithm: "maglev"}
	if err := toy.CheckDrill(&ev); err == nil || !strings.Contains(err.Error(), "toy has no maglev") {
		t.Errorf("an algorithm the tier lacks: %v, want its refusal", err)
	}
}
