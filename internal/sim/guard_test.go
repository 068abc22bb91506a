package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/lblab/lblab/internal/labfile"
)

func parseLab(t *testing.T, text string) *labfile.Lab {
	t.Helper()
	lab, err := labfile.Parse(t.Name()+".yaml", []byte(text))
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
