package sim

import (
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/core/load"
)

// stepCheck runs the periodic checks once on a fresh world of lab text
// after corrupt has broken something, and returns the violations.
func stepCheck(t *testing.T, text string, corrupt func(w *world)) []string {
	t.Helper()
	lab := parseLab(t, text)
	w, err := newWorld(lab, "x", Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	corrupt(w)
	w.events = 1024
	w.checkStep()
	return w.fault
}

func wantFault(t *testing.T, faults []string, word string) {
	t.Helper()
	if len(faults) == 0 || !strings.Contains(strings.Join(faults, "\n"), word) {
		t.Errorf("want a violation mentioning %q, got %v", word, faults)
	}
}

const sharedLab = `
duration: 6s
clients: {rate: 400, retries: 2, timeout: 300ms, hedge: p90}
balancers: {count: 2, load: shared, refresh: 100ms, timeout: 80ms, breaker: {enabled: true}}
servers: [{count: 4, workers: 2}]
events:
  - {at: 2s, action: kill, target: s2}
  - {at: 3s, action: restart, target: s2}
  - {at: 4s, action: add-server}
`

const clientSideLab = `
duration: 6s
clients: {rate: 400, count: 30, algorithm: p2c-stale, subset: 3, refresh: 200ms, retries: 1, hedge: 30ms}
servers: [{count: 6, workers: 2}]
events:
  - {at: 2s, action: kill, target: s2}
  - {at: 3s, action: remove-server, target: s3}
  - {at: 4s, action: algorithm, algorithm: least-outstanding}
`

// Shared-load and client-side labs are checked too, and pass: their runs
// hold the in-flight invariants through kills, removals and switches.
func TestInFlightInvariantsHoldForSharedAndClientSide(t *testing.T) {
	for _, text := range []string{sharedLab, clientSideLab} {
		lab := parseLab(t, text)
		res, err := Run(lab, Options{Check: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Run.Requests < 2000 {
			t.Errorf("only %d requests", res.Run.Requests)
		}
	}
}

// The shared-load checks catch a pick never answered, a count that is not
// the last report, and a lost optimistic increment.
func TestCheckerCatchesSharedLoadFaults(t *testing.T) {
	wantFault(t, stepCheck(t, sharedLab, func(w *world) { w.openTicket(1) }), "picks without an answer")
	wantFault(t, stepCheck(t, sharedLab, func(w *world) { w.bals[0].Loads().Report(2, load.Report{At: 0, Valid: true, Queued: 3, InService: 1}) }), "last report said")
	wantFault(t, stepCheck(t, sharedLab, func(w *world) {
		w.onRefresh()
		w.bals[1].Loads().Stats[0].Queued = -1
	}), "queued")
}

// The client-side check catches a count with no attempt behind it.
func TestCheckerCatchesClientSideFaults(t *testing.T) {
	wantFault(t, stepCheck(t, clientSideLab, func(w *world) { w.bals[7].Loads().Sent(0, 1) }),
		"client 7 counts 1 outstanding at s2")
}
