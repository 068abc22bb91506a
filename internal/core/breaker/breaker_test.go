package breaker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

const ms = clock.Instant(time.Millisecond)

type transition struct {
	at       clock.Instant
	from, to State
}

func newTest(t *testing.T, cfg Config) (*Breaker, *[]transition) {
	t.Helper()
	b, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var log []transition
	b.OnChange = func(now clock.Instant, from, to State) {
		log = append(log, transition{now, from, to})
	}
	return b, &log
}

func cfg10() Config {
	return Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 2}
}

// send lets one non-probe request through at now and reports its result.
func send(t *testing.T, b *Breaker, now clock.Instant, success bool) {
	t.Helper()
	ok, probe := b.Allow(now)
	if !ok || probe {
		t.Fatalf("at %v: Allow = %v, %v; want true, false", now, ok, probe)
	}
	b.Done(now, success, false)
}

func TestStateString(t *testing.T) {
	for s, want := range map[State]string{Closed: "closed", Open: "open", HalfOpen: "half-open", 7: "state(7)"} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
}

func TestTripNeedsFullWindow(t *testing.T) {
	b, log := newTest(t, cfg10())
	for i := range 9 { // 9 failures: window not yet full
		send(t, b, clock.Instant(i)*ms, false)
	}
	if s := b.State(9 * ms); s != Closed {
		t.Fatalf("state after 9 failures = %v, want closed (window not full)", s)
	}
	if f, n := b.Failures(); f != 9 || n != 9 {
		t.Fatalf("Failures = %d/%d, want 9/9", f, n)
	}
	send(t, b, 10*ms, false) // the 10th result fills the window
	if s := b.State(10 * ms); s != Open {
		t.Fatalf("state = %v, want open", s)
	}
	if len(*log) != 1 || (*log)[0] != (transition{10 * ms, Closed, Open}) {
		t.Fatalf("OnChange log = %v", *log)
	}
}

func TestTripAtThreshold(t *testing.T) {
	b, _ := newTest(t, cfg10())
	now := clock.Instant(0)
	for range 10 { // a full window of successes
		send(t, b, now, true)
		now += ms
	}
	for i := range 4 { // 4/10 failed: below 0.5
		send(t, b, now, false)
		now += ms
		if f, n := b.Failures(); f != i+1 || n != 10 {
			t.Fatalf("Failures = %d/%d, want %d/10", f, n, i+1)
		}
	}
	if b.State(now) != Closed {
		t.Fatal("tripped below the threshold")
	}
	send(t, b, now, false) // 5/10 = 0.5 >= Threshold
	if b.State(now) != Open {
		t.Fatal("did not trip at the threshold")
	}
	if d, ok := b.NextDeadline(); !ok || d != now+clock.Instant(time.Second) {
		t.Fatalf("NextDeadline = %v, %v; want %v", d, ok, now+clock.Instant(time.Second))
	}
}

func TestWindowSlides(t *testing.T) {
	b, _ := newTest(t, Config{Window: 10, Threshold: 0.3, Open: time.Second, Probes: 1})
	// Alternate 2 failures and 8 successes: the oldest failures leave the
	// window before a third one arrives, so it never holds 3 failures.
	for i := range 100 {
		send(t, b, clock.Instant(i)*ms, i%10 < 8)
	}
	if f, n := b.Failures(); f != 2 || n != 10 {
		t.Fatalf("Failures = %d/%d, want 2/10", f, n)
	}
}

// tripped returns a breaker that opened at instant 10 ms.
func tripped(t *testing.T, cfg Config) (*Breaker, *[]transition) {
	b, log := newTest(t, cfg)
	for i := range cfg.Window {
		send(t, b, clock.Instant(i+1)*ms, false)
	}
	if b.State(clock.Instant(cfg.Window)*ms) != Open {
		t.Fatal("not open")
	}
	return b, log
}

func TestOpenToHalfOpenToClosed(t *testing.T) {
	b, log := tripped(t, cfg10())
	opened := 10 * ms
	end := opened + clock.Instant(time.Second)
	if ok, _ := b.Allow(end - 1); ok {
		t.Fatal("open breaker allowed a request")
	}
	if b.Ready(end - 1) {
		t.Fatal("open breaker ready")
	}
	b.Done(end-1, true, false) // a late result while open is ignored
	if f, n := b.Failures(); f != 10 || n != 10 {
		t.Fatalf("window changed while open: %d/%d", f, n)
	}
	if !b.Ready(end) || b.State(end) != HalfOpen {
		t.Fatalf("at %v: state %v, want half-open and ready", end, b.State(end))
	}
	if _, ok := b.NextDeadline(); ok {
		t.Fatal("NextDeadline while half-open")
	}
	ok1, p1 := b.Allow(end)
	ok2, p2 := b.Allow(end + ms)
	ok3, p3 := b.Allow(end + 2*ms)
	if !ok1 || !p1 || !ok2 || !p2 || ok3 || p3 {
		t.Fatalf("probes: %v %v, %v %v, %v %v; want two probes then refused", ok1, p1, ok2, p2, ok3, p3)
	}
	if b.Ready(end + 2*ms) {
		t.Fatal("ready with every probe handed out")
	}
	b.Done(end+3*ms, false, false) // a non-probe result while half-open: ignored
	b.Done(end+4*ms, true, true)
	if b.State(end+4*ms) != HalfOpen {
		t.Fatal("closed after one of two probes")
	}
	b.Done(end+5*ms, true, true)
	if b.State(end+5*ms) != Closed {
		t.Fatal("not closed after all probes succeeded")
	}
	if f, n := b.Failures(); f != 0 || n != 0 {
		t.Fatalf("window after closing = %d/%d, want empty", f, n)
	}
	want := []transition{{opened, Closed, Open}, {end, Open, HalfOpen}, {end + 5*ms, HalfOpen, Closed}}
	if fmt.Sprint(*log) != fmt.Sprint(want) {
		t.Fatalf("OnChange log = %v, want %v", *log, want)
	}
}

func TestProbeFailureReopens(t *testing.T) {
	b, log := tripped(t, Config{Window: 10, Threshold: 1, Open: 100 * time.Millisecond, Probes: 3})
	half := 110 * ms
	if ok, probe := b.Allow(half); !ok || !probe {
		t.Fatal("no probe at the end of the open period")
	}
	b.Allow(half)
	b.Done(half+ms, true, true)
	b.Done(half+2*ms, false, true)
	if b.State(half+2*ms) != Open {
		t.Fatal("probe failure did not reopen")
	}
	reopenEnd := half + 2*ms + 100*ms
	if d, ok := b.NextDeadline(); !ok || d != reopenEnd {
		t.Fatalf("NextDeadline = %v, %v; want %v", d, ok, reopenEnd)
	}
	// A new half-open period hands out Probes probes afresh.
	n := 0
	for {
		ok, probe := b.Allow(reopenEnd)
		if !ok {
			break
		}
		if !probe {
			t.Fatal("half-open allowed a non-probe")
		}
		n++
	}
	if n != 3 {
		t.Fatalf("second half-open period handed out %d probes, want 3", n)
	}
	for range 3 {
		b.Done(reopenEnd+ms, true, true)
	}
	want := []transition{
		{10 * ms, Closed, Open}, {half, Open, HalfOpen}, {half + 2*ms, HalfOpen, Open},
		{reopenEnd, Open, HalfOpen}, {reopenEnd + ms, HalfOpen, Closed},
	}
	if fmt.Sprint(*log) != fmt.Sprint(want) {
		t.Fatalf("OnChange log = %v, want %v", *log, want)
	}
}

func TestStaleProbeIgnoredWhenClosed(t *testing.T) {
	b, _ := newTest(t, cfg10())
	b.Done(0, false, true)
	if f, n := b.Failures(); f != 0 || n != 0 {
		t.Fatalf("probe result counted while closed: %d/%d", f, n)
	}
}

func TestNilOnChange(t *testing.T) {
	b, err := New(cfg10())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		send(t, b, clock.Instant(i), false)
	}
	if b.State(clock.Instant(time.Hour)) != HalfOpen {
		t.Fatal("want half-open an hour later")
	}
}

func TestOpenSaturates(t *testing.T) {
	b, _ := newTest(t, Config{Window: 10, Threshold: 1, Open: time.Duration(1<<63 - 1), Probes: 1})
	for range 10 {
		b.Done(clock.Never-10, false, false)
	}
	if d, ok := b.NextDeadline(); !ok || d != clock.Never {
		t.Fatalf("NextDeadline = %v, %v; want Never", d, ok)
	}
}

func TestConfigErrors(t *testing.T) {
	good := cfg10()
	cases := []struct {
		mutate func(*Config)
		field  string
	}{
		{func(c *Config) { c.Window = 9 }, "Window"},
		{func(c *Config) { c.Window = MaxWindow + 1 }, "Window"},
		{func(c *Config) { c.Threshold = 0 }, "Threshold"},
		{func(c *Config) { c.Threshold = 1.01 }, "Threshold"},
		{func(c *Config) { c.Threshold = -1 }, "Threshold"},
		{func(c *Config) { c.Open = 0 }, "Open"},
		{func(c *Config) { c.Probes = 0 }, "Probes"},
	}
	for _, tc := range cases {
		c := good
		tc.mutate(&c)
		b, err := New(c)
		if err == nil || b != nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("New(%+v) = %v, %v; want an error naming %s", c, b, err, tc.field)
		}
	}
	if _, err := New(Config{Window: 10, Threshold: nan(), Open: 1, Probes: 1}); err == nil {
		t.Error("NaN threshold accepted")
	}
}

func nan() float64 { z := 0.0; return z / z }

// A probe withdrawn without a verdict gives its place back: the half-open
// breaker lets another probe through, and closes when that one succeeds.
func TestReleasedProbeFreesItsPlace(t *testing.T) {
	b, _ := newTest(t, Config{Window: 10, Threshold: 0.5, Open: time.Second, Probes: 1})
	for i := range 10 {
		send(t, b, clock.Instant(i)*ms, false)
	}
	now := 2000 * ms
	ok, probe := b.Allow(now)
	if !ok || !probe {
		t.Fatalf("half-open Allow = %v, %v; want a probe", ok, probe)
	}
	if ok, _ := b.Allow(now); ok || b.Ready(now) {
		t.Fatal("a second probe was let through while the first is out")
	}
	b.Release(now, true)
	if !b.Ready(now) || b.State(now) != HalfOpen {
		t.Fatalf("after the probe was released: ready %v, state %v; want ready and half-open", b.Ready(now), b.State(now))
	}
	ok, probe = b.Allow(now)
	if !ok || !probe {
		t.Fatalf("Allow after release = %v, %v; want a probe", ok, probe)
	}
	b.Done(now, true, true)
	if s := b.State(now); s != Closed {
		t.Fatalf("state after the new probe succeeded = %v, want closed", s)
	}
	b.Release(now, true) // a stray release while closed changes nothing
	b.Release(now, false)
	if s := b.State(now); s != Closed {
		t.Fatalf("a release while closed moved the breaker to %v", s)
	}
}
