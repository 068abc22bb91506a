package labfile_test

import (
	"strings"
	"testing"
)

// A set event is checked on the lab as the events before it (and their
// undos) leave it, as the simulator applies it: raising limiter.initial and
// then limiter.min above the old initial is a valid script, lowering
// initial under the new min is not, and neither is an undo that would
// return initial under a min raised meanwhile. (Each set was checked
// against the lab file as given: the first script was refused and the
// other two accepted, and the simulator refused their events mid-run.)
func TestSetEventsCheckedOnTheLabAsTheScriptLeavesIt(t *testing.T) {
	const head = "name: x\nduration: 4s\nservers:\n  - count: 2\n    limiter: {kind: aimd, initial: 20, min: 1, max: 200}\nevents:\n"
	mustParse(t, head+
		"  - {at: 1s, action: set, set: {servers.limiter.initial: \"60\"}}\n"+
		"  - {at: 2s, action: set, set: {servers.limiter.min: \"50\"}}\n")
	err := parseErr(t, head+
		"  - {at: 1s, action: set, set: {servers.limiter.initial: \"60\"}}\n"+
		"  - {at: 2s, action: set, set: {servers.limiter.min: \"50\"}}\n"+
		"  - {at: 3s, action: set, set: {servers.limiter.initial: \"10\"}}\n")
	if !strings.Contains(err, "events[2].set.servers.limiter.initial") || !strings.Contains(err, "min 50, initial 10") || strings.Contains(err, "events[1]") {
		t.Errorf("initial lowered under a min raised before it: %q", err)
	}
	err = parseErr(t, head+
		"  - {at: 1s, action: set, set: {servers.limiter.initial: \"60\"}, for: 1s}\n"+
		"  - {at: 1.5s, action: set, set: {servers.limiter.min: \"50\"}}\n")
	if !strings.Contains(err, "events[0].for") || !strings.Contains(err, "undo at 2s") || !strings.Contains(err, "min 50, initial 20") {
		t.Errorf("an undo that returns initial under a min raised meanwhile: %q", err)
	}
}
