package sim

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// Every server setting a set event changes reaches the running servers
// through the table the live backend applies from (assemble.ServerSettings):
// each case fails if the simulator leaves its setting in the lab copy only.
func TestSetServerSettingsAtRunTime(t *testing.T) {
	const overload = `
seed: 5
duration: 3s
network: {hop: 0s}
clients: {rate: 400, work: {dist: constant, mean: 10ms}}
servers:
  - {workers: 1}
`
	for _, c := range []struct {
		name, lab string
		mid       time.Duration
		check     func(t *testing.T, w *world)
	}{
		{"speed", `
duration: 3s
servers:
  - {count: 2}
events:
  - {at: 1s, action: set, set: {servers.speed: 0.5}}
`, 1500 * time.Millisecond, func(t *testing.T, w *world) {
			for _, s := range w.servers {
				if sp := s.core.Snapshot(w.now).Speed; sp != 0.5 {
					t.Errorf("%s runs at speed %g after the set, want 0.5", s.spec.Name, sp)
				}
			}
		}},
		{"errors and fail", `
duration: 3s
servers:
  - {name: a}
  - {name: b}
events:
  - {at: 1s, action: set, set: {servers.errors: 0.3, "servers[1].fail": "true"}}
`, 1500 * time.Millisecond, func(t *testing.T, w *world) {
			a, b := w.servers[0].core.Snapshot(w.now), w.servers[1].core.Snapshot(w.now)
			if a.ErrorShare != 0.3 || a.Failing || !b.Failing {
				t.Errorf("after the set: a errors %g failing %v, b failing %v; want 0.3, false, true", a.ErrorShare, a.Failing, b.Failing)
			}
		}},
		{"limiter", `
duration: 3s
servers:
  - {count: 2, limiter: {kind: aimd, initial: 10}}
events:
  - {at: 1s, action: set, set: {servers.limiter.initial: 57}}
`, time.Second, func(t *testing.T, w *world) {
			for _, s := range w.servers {
				if l := s.core.Snapshot(w.now).Limit; l != 57 {
					t.Errorf("%s's limit is %d just after the set, want a fresh limiter at its initial 57", s.spec.Name, l)
				}
			}
		}},
		{"max_outstanding", overload + `
events:
  - {at: 1s, action: set, set: {servers.max_outstanding: 3}}
`, time.Second, func(t *testing.T, w *world) {
			// the cap takes no queued job away, but every arrival over it is
			// rejected: the queue drains at 100/s instead of growing by 300/s
			at := w.servers[0].core.Snapshot(w.now).Queued
			w.loopUntil(clock.Instant(2 * time.Second))
			if now := w.servers[0].core.Snapshot(w.now).Queued; now >= at {
				t.Errorf("%d queued at the set of max_outstanding 3, %d a second later; want it draining", at, now)
			}
		}},
		{"queue_timeout", overload + `
events:
  - {at: 1s, action: set, set: {servers.queue_timeout: 20ms}}
`, 2 * time.Second, func(t *testing.T, w *world) {
			// 400/s offered over a 20 ms wait: about 8 queued; without the
			// timeout the queue grows by 300/s
			if q := w.servers[0].core.Snapshot(w.now).Queued; q > 20 {
				t.Errorf("%d queued a second after queue_timeout 20ms", q)
			}
		}},
		{"error_time", `
duration: 2s
network: {hop: 0s}
clients: {attempt_timeout: 20ms}
servers:
  - {count: 2, errors: 1}
events:
  - {at: 1s, action: set, set: {servers.error_time: 50ms}}
`, time.Second, func(t *testing.T, w *world) {
			// every answer an error: after 1 ms before the set, after 50 ms
			// (past the clients' 20 ms attempt timeout) from then on
			if n := w.rt.Rec.Total.Timeouts; n != 0 {
				t.Fatalf("%d timeouts before the set", n)
			}
			w.loopUntil(clock.Instant(1900 * time.Millisecond))
			if n := w.rt.Rec.Total.Timeouts; n == 0 {
				t.Error("no attempt timed out with every error held 50ms and a 20ms attempt timeout")
			}
		}},
		{"cache.size", `
duration: 2s
clients: {rate: 100, keys: 5}
servers:
  - {count: 2}
events:
  - {at: 1s, action: set, set: {servers.cache.size: 100}}
`, 1900 * time.Millisecond, func(t *testing.T, w *world) {
			for _, s := range w.servers {
				if snap := s.core.Snapshot(w.now); snap.CacheHits == 0 {
					t.Errorf("%s: no cache hit on 5 keys after cache.size 100 (%d lookups)", s.spec.Name, snap.CacheLookups)
				}
			}
		}},
		{"cache.hit_factor", `
duration: 2s
network: {hop: 0s}
clients: {rate: 50, keys: 5, work: {dist: constant, mean: 10ms}}
servers:
  - {cache: {size: 100, hit_factor: 0.2}}
events:
  - {at: 100ms, action: set, set: {servers.cache.hit_factor: 1}}
`, 1900 * time.Millisecond, func(t *testing.T, w *world) {
			if p50 := w.rt.Rec.Lat.Quantile(0.5); p50 < 9*time.Millisecond {
				t.Errorf("median latency %v with a hit costing all of its 10ms", p50)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			runSet(t, c.lab, clock.Instant(c.mid), func(w *world) { c.check(t, w) })
		})
	}
}

// A set of network.hop reaches every leg sent from then on (the client's,
// the balancer's and the server's): four hops of 20 ms on every request.
func TestSetHopAtRunTime(t *testing.T) {
	runSet(t, `
duration: 2s
network: {hop: 0s}
servers:
  - {count: 2}
events:
  - {at: 100ms, action: set, set: {network.hop: 20ms}}
`, clock.Instant(1900*time.Millisecond), func(w *world) {
		if p50 := w.rt.Rec.Lat.Quantile(0.5); p50 < 80*time.Millisecond {
			t.Errorf("median latency %v after network.hop 20ms, want at least four hops", p50)
		}
	})
}

// A set of balancers.health.enabled starts the health checks (the failing
// server is ejected) and a set back off puts every server back in rotation
// at once, as the live lb does.
func TestSetHealthChecksOnAndOff(t *testing.T) {
	runSet(t, `
duration: 4s
servers:
  - {name: bad, fail: true}
  - {count: 2}
balancers: {health: {interval: 100ms}}
events:
  - {at: 1s, action: set, set: {balancers.health.enabled: "true"}, for: 2s}
`, clock.Instant(2*time.Second), func(w *world) {
		if w.health.Healthy(0) {
			t.Error("the failing server is in rotation a second after the health checks were turned on")
		}
		w.loopUntil(clock.Instant(3*time.Second + time.Millisecond))
		if !w.health.Healthy(0) {
			t.Error("the failing server is still out after the health checks were turned off")
		}
		var log []string
		for _, l := range w.col.Log {
			if strings.HasPrefix(l.Text, "health bad:") {
				log = append(log, l.Text)
			}
		}
		// the live lb's words (internal/shell/lb writes the same lines)
		if want := []string{"health bad: down after 2 failed checks", "health bad: up (health checks off)"}; strings.Join(log, "|") != strings.Join(want, "|") {
			t.Errorf("health log %q, want %q", log, want)
		}
	})
}
