package sim

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/assemble"
	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

func parseLab(t *testing.T, text string) *labfile.Lab {
	t.Helper()
	lab, err := labyaml.Parse(t.Name()+".yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// overflow runs lab under a small bound and returns the guard's error.
func overflow(t *testing.T, lab *labfile.Lab, bound int) *OverflowError {
	t.Helper()
	_, err := Run(lab, Options{MaxPending: bound})
	var oe *OverflowError
	if !errors.As(err, &oe) {
		t.Fatalf("want the memory guard to stop the run, got %v", err)
	}
	if oe.Bound != bound {
		t.Errorf("bound %d, want %d", oe.Bound, bound)
	}
	t.Log(oe)
	return oe
}

// A million requests a second against one slow server for 1000 hours would
// eat the machine's memory; the guard stops it within the first second of
// virtual time, naming the server whose queue grew and the cause.
func TestGuardStopsAnOverload(t *testing.T) {
	lab := parseLab(t, `
duration: 1000h
clients: {rate: 1000000}
servers: [{count: 1, speed: 0.1}]
`)
	oe := overflow(t, lab, 50_000)
	if oe.At.Seconds() > 0.1 {
		t.Errorf("stopped at %v; 50,000 requests pile up in 50 ms", oe.At)
	}
	if !strings.Contains(oe.Queue, "s1") || !strings.Contains(oe.Why, "arrivals faster than service") ||
		!strings.Contains(oe.Why, "about 10/s") {
		t.Errorf("the message should name s1 and the cause (1e6/s offered, about 10/s served): %v", oe)
	}
}

// A fleet that keeps up, but a deadline timer per request that waits for
// an hour: the event queue grows, and the guard says so.
func TestGuardNamesDeadlineTimers(t *testing.T) {
	lab := parseLab(t, `
duration: 1000h
clients: {rate: 100000, timeout: 1h, work: {dist: constant, mean: 1ms}}
servers: [{count: 2, workers: 200}]
`)
	oe := overflow(t, lab, 20_000)
	if !strings.Contains(oe.Queue, "event queue") || !strings.Contains(oe.Why, "deadline timer") {
		t.Errorf("want the event queue and the deadline timers named: %v", oe)
	}
}

// Retries that multiply the load: each request times out and is retried
// three times, so four attempts arrive per request at a fleet that could
// serve the requests once.
func TestGuardNamesARetryStorm(t *testing.T) {
	lab := parseLab(t, `
duration: 1000h
clients: {rate: 150, attempt_timeout: 20ms, retries: 3, backoff: {base: 1ms}, work: {dist: constant, mean: 10ms}}
balancers: {algorithm: round-robin}
servers: [{count: 2}]
`)
	oe := overflow(t, lab, 2_000)
	if !strings.Contains(oe.Why, "retry storm") {
		t.Errorf("want a retry storm named: %v", oe)
	}
}

// Runs that stay within the bound are not touched: the same report with
// the guard at its default and at a bound far above the run's needs.
func TestGuardLeavesNormalRunsAlone(t *testing.T) {
	lab := loadScenario(t, "retry-storm")
	a, err := Run(lab, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(lab, Options{MaxPending: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if a.Run.Requests != b.Run.Requests || a.Run.Latency != b.Run.Latency || a.Run.Events != b.Run.Events {
		t.Errorf("the guard changed the run: %+v vs %+v", a.Run.Latency, b.Run.Latency)
	}
}

// Closed-loop users with no think time, over a network with no delay,
// whose requests a full server refuses at once, send again at the same
// instant for ever: virtual time stands still. The run used to spin for
// ever (or, with timers armed per request, fill the event queue); the
// guard stops it and names the loop.
func TestGuardStopsAZeroDelayLoop(t *testing.T) {
	lab := parseLab(t, `
duration: 2s
network: {hop: 0s}
clients: {mode: closed, users: 5, think: 0s}
balancers: {algorithm: round-robin}
servers: [{count: 1, max_outstanding: 2}]
`)
	oe := overflow(t, lab, 20_000)
	if !strings.Contains(oe.Queue, "virtual time stands still") || !strings.Contains(oe.Why, "clients.think 0") {
		t.Errorf("want the stall and its loop named: %v", oe)
	}
}

// Shared load reports every 0 s are sent every millisecond, as the live lb
// polls; the run used to report again at the same instant for ever. Lab
// files refuse a refresh under 10 ms (labfile.Bounds); a Lab built in code
// can still hold 0.
func TestSharedRefreshZeroDoesNotWedge(t *testing.T) {
	lab := parseLab(t, `
duration: 1s
balancers: {load: shared}
`)
	lab.Balancers.Refresh = 0
	res, err := Run(lab, Options{Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Run.Requests < 50 || res.Run.Goodput < 0.99 {
		t.Errorf("%d requests, goodput %v", res.Run.Requests, res.Run.Goodput)
	}
}

// The work guard stops a run that does more than its budget allows,
// whatever its estimate said: its events and, for an algorithm that scans
// every server on a pick, the servers visited (balance.Caps.Scans), which
// a run of few events but many servers is made of.
func TestWorkGuardStopsARunOverItsBudget(t *testing.T) {
	scan := parseLab(t, "name: scan\nduration: 2s\nclients: {rate: 1000}\nbalancers: {algorithm: least-response-time}\nservers:\n  - {count: 1000}\n")
	_, err := Run(scan, Options{MaxWork: 3e5})
	var be *BudgetError
	if !errors.As(err, &be) || be.Visits < 5e5 || be.Events > 1e5 || !strings.Contains(err.Error(), "--max-cost") {
		t.Fatalf("a scan of 1,000 servers a pick: %v", err)
	}
	if _, err := Run(scan, Options{MaxWork: 1e8}); err != nil {
		t.Errorf("under its bound: %v", err)
	}
	p2c := scan.Clone()
	p2c.Balancers.Algorithm = "p2c" // two servers a pick: its visits are not counted
	if _, err := Run(p2c, Options{MaxWork: 3e5}); err != nil {
		t.Errorf("p2c under the same bound: %v", err)
	}
	if _, err := Run(p2c, Options{MaxWork: 1e3}); !errors.As(err, &be) || be.Visits != 0 {
		t.Errorf("p2c over a bound of 1,000 events: %v", err)
	}
}

// The memory guard stops a run that holds more than its budget allows,
// whatever its estimate said and below --max-pending: a flood of 100,000
// requests/s against a slow server piles up request slots (about 600
// bytes each) until it passes a 20 MiB budget, and the stop says what was
// held, what the budget was and how to raise it. The same run under a
// large budget, or with no memory bound, is stopped by nothing but ends.
func TestMemoryGuardStopsARunOverItsBudget(t *testing.T) {
	flood := parseLab(t, "name: flood\nduration: 1s\nclients: {rate: 100000}\nservers:\n  - {count: 1, speed: 0.1}\n")
	b := assemble.Budget{Memory: 20 << 20, CPU: time.Hour, Raise: "the page's field"}
	_, err := Run(flood, Options{}.Within(b))
	var be *BudgetError
	if !errors.As(err, &be) || be.MaxMemory != 30<<20 || be.Memory <= be.MaxMemory || be.Memory > 2*be.MaxMemory {
		t.Fatalf("a flood under a 20 MiB budget: %v", err)
	}
	for _, want := range []string{"memory guard stopped the run", "attempt slots (requests in flight)", "over the 30 MiB", "raise the budget with the page's field"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the stop does not say %q: %v", want, err)
		}
	}
	res, err := Run(flood, Options{}.Within(b.Scaled(10)))
	if err != nil {
		t.Fatalf("under a 200 MiB budget: %v", err)
	}
	if res.Memory < 30<<20 || res.Memory > 300<<20 {
		t.Errorf("the flood held %s at its most, want over the 30 MiB it was stopped past", assemble.Bytes(res.Memory))
	}
}

// A host stops a run through Options.Stop, looked at every 1,024 events:
// the run ends with ErrStopped within them.
func TestStopEndsTheRun(t *testing.T) {
	lab := parseLab(t, "name: s\nduration: 10s\nclients: {rate: 10000}\n")
	asked := 0
	_, err := Run(lab, Options{Stop: func() bool { asked++; return asked == 3 }})
	if !errors.Is(err, ErrStopped) || asked != 3 {
		t.Fatalf("stopped at the third look: %v after %d looks", err, asked)
	}
}

// Playing in slices (AdvanceWithin) fires the events one AdvanceTo fires:
// a session played to its end in slices of 5,000 events' work reports
// what Run reports, and each slice stops within a look of its work.
func TestSlicesPlayTheSameRun(t *testing.T) {
	lab := parseLab(t, "name: s\nduration: 2s\nclients: {rate: 5000}\nbalancers: {algorithm: least-outstanding}\nservers:\n  - {count: 20}\n")
	want, err := Run(lab, Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSession(lab, SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slices, short := 0, 0
	for !s.Ended() {
		before := assemble.Work(s.w.events, s.w.visits())
		reached, err := s.AdvanceWithin(clock.Never, 5000)
		if err != nil {
			t.Fatal(err)
		}
		slices++
		if !reached {
			short++
			// it stops at the first look past its work: at most one look's
			// more (1,024 events, each pick visiting up to 20 servers)
			if work := assemble.Work(s.w.events, s.w.visits()) - before; work < 5000 || work > 5000+assemble.Work(guardEvery, 20*guardEvery) {
				t.Fatalf("a slice of 5,000 did %v", work)
			}
		}
	}
	got, err := s.Result()
	if err != nil {
		t.Fatal(err)
	}
	if short < 10 || !reflect.DeepEqual(got.Run, want.Run) {
		t.Errorf("in %d slices (%d short): %d requests, %d events; Run: %d, %d", slices, short, got.Run.Requests, got.Run.Events, want.Run.Requests, want.Run.Events)
	}
}
