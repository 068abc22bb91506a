package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// runSet runs text in check mode up to mid, hands the world to at, then
// runs it to its end; it fails on any invariant the checks find.
func runSet(t *testing.T, text string, mid clock.Instant, at func(w *world)) {
	t.Helper()
	w, err := newWorld(parseLab(t, text), "set", Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	w.start()
	w.loopUntil(mid)
	at(w)
	w.loop()
	if _, err := w.result(); err != nil {
		t.Fatal(err)
	}
	for _, l := range w.col.Log {
		if strings.Contains(l.Text, " failed: ") { // an event or its undo that could not be taken (script.go)
			t.Errorf("event log: %s", l.Text)
		}
	}
}

// A set of servers.workers reaches the running servers: fewer workers let
// the jobs in service finish (the check sees busy fall to the new count,
// never rise over it) and queue the rest; more start queued jobs at once.
func TestSetWorkersAtRunTime(t *testing.T) {
	runSet(t, `
seed: 3
duration: 3s
clients: {rate: 600, work: {dist: constant, mean: 20ms}}
servers:
  - {count: 2, workers: 8}
events:
  - {at: 1s, action: set, set: {servers.workers: 2}, for: 1s}
`, clock.Instant(1500*time.Millisecond), func(w *world) {
		for _, s := range w.servers {
			snap := s.core.Snapshot(w.now)
			if snap.Workers != 2 || snap.Busy > 2 || snap.Queued == 0 {
				t.Errorf("%s at 1.5 s: %d workers, %d busy, %d queued; want 2, at most 2 and a queue (300/s need 6 busy)",
					s.spec.Name, snap.Workers, snap.Busy, snap.Queued)
			}
		}
	})
}

// A new decay keeps the load figures: every client balancing itself still
// counts exactly its attempts in flight (checkClientCounts), and the
// averages take the new time constant.
func TestSetDecayKeepsCounts(t *testing.T) {
	runSet(t, `
seed: 324
duration: 3s
clients: {rate: 400, algorithm: p2c-peak-ewma}
servers:
  - {count: 2}
events:
  - {at: 1s, action: set, set: {balancers.decay: 279ms}}
`, clock.Instant(2*time.Second), func(w *world) {
		for i, b := range w.bals {
			if d := b.Loads().Decay(); d != 279*time.Millisecond {
				t.Fatalf("client %d's decay is %v after the set", i, d)
			}
		}
	})
}

// clients.refresh set to 0 (none) mid-run stops the clients' load reports
// instead of reporting again at the same instant for ever (torture seed
// 4368 wedged on it), and a set back on starts them again, once.
func TestSetClientRefreshOffAndOn(t *testing.T) {
	runSet(t, `
seed: 4368
duration: 3s
clients: {algorithm: p2c-latency-load, refresh: 40ms}
servers:
  - {}
events:
  - {at: 1s, action: set, set: {clients.refresh: 0s}, for: 1s}
`, clock.Instant(1500*time.Millisecond), func(w *world) {
		if w.refreshing {
			t.Error("a load report round is pending with clients.refresh 0")
		}
	})
}
