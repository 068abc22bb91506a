package breaker_test

// lblab's breaker next to sony/gobreaker (v2), which users of Go circuit
// breakers know: the same sequence of results through both, state by
// state. gobreaker reads the wall clock (time.Now, no seam), so it cannot
// run on the simulator's virtual clock, which is why lblab has its own
// (README, Dependencies); here, in a test only, it runs on real time with
// a short open period, and lblab's breaker on virtual instants.
//
// The settings map one to one:
//
//	lblab Window W, Threshold T  gobreaker ReadyToTrip: at least W results
//	                             counted, and failures/results >= T
//	lblab Open                   gobreaker Timeout
//	lblab Probes                 gobreaker MaxRequests (half-open lets that
//	                             many through; all must succeed to close)
//	lblab Release (withdrawn)    gobreaker IsExcluded (neither success nor
//	                             failure; a probe's place is given back)
//
// and gobreaker's Interval is 0 (its counts are cleared only when the state
// changes, as lblab's window starts empty on closing). Both ignore the
// results of requests sent before a trip, and a probe's failure reopens.
// Where the two differ by design, TestBreakerDiffersFromGobreakerByDesign
// runs the sequence that shows it and asserts each side's own behaviour.

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	gobreaker "github.com/sony/gobreaker/v2"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/core/breaker"
)

// gbOpen is gobreaker's Timeout: lblab's Open, on the wall clock. A step
// other than a wait must come well within it (see errStalled).
const gbOpen = 200 * time.Millisecond

var (
	errFailed   = errors.New("failed")
	errExcluded = errors.New("withdrawn")
	// errStalled voids a run: the machine stalled long enough between two
	// steps for gobreaker's open period to pass on the wall clock, which
	// lblab's virtual clock did not. The run is tried again.
	errStalled = errors.New("the wall clock ran past gobreaker's open period between two steps")
)

// twin drives both breakers with one sequence and traces them.
type twin struct {
	lb       *breaker.Breaker
	gb       *gobreaker.TwoStepCircuitBreaker[struct{}]
	now      clock.Instant // lblab's virtual instant
	openedAt time.Time     // when gobreaker last opened (zero: not open)
	pending  []sent
	lbTrace  []string
	gbTrace  []string
}

// sent is a request let through by one or both that has not ended.
type sent struct {
	lbOK, probe bool        // lblab let it through, with this probe flag
	done        func(error) // gobreaker's, nil if it refused it
}

func newTwin(t *testing.T, cfg breaker.Config) *twin {
	t.Helper()
	lb, err := breaker.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w := &twin{lb: lb}
	w.gb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		MaxRequests: uint32(cfg.Probes),
		Timeout:     gbOpen,
		ReadyToTrip: func(c gobreaker.Counts) bool {
			n := c.TotalSuccesses + c.TotalFailures
			return n >= uint32(cfg.Window) && float64(c.TotalFailures)/float64(n) >= cfg.Threshold
		},
		IsExcluded: func(err error) bool { return errors.Is(err, errExcluded) },
		OnStateChange: func(_ string, _, to gobreaker.State) {
			w.openedAt = time.Time{}
			if to == gobreaker.StateOpen {
				w.openedAt = time.Now()
			}
		},
	})
	return w
}

func result(op byte) error {
	switch op {
	case 's', 'S':
		return nil
	case 'f', 'F':
		return errFailed
	}
	return errExcluded
}

// step runs one op on both and appends what each did to its trace:
//
//	s, f  one request, answered at once with a success or a failure
//	a     one request let through and left pending
//	S, F, X  the oldest pending request ends: success, failure, withdrawn
//	w     the open period passes
//
// Each trace entry is the op, whether the request was let through (+ or
// -) for s, f and a, and the state after.
func (w *twin) step(op byte) error {
	if op != 'w' && !w.openedAt.IsZero() && time.Since(w.openedAt) > gbOpen/2 {
		return errStalled
	}
	w.now = w.now.Add(time.Millisecond)
	lbMark, gbMark := "", ""
	switch op {
	case 's', 'f', 'a':
		ok, probe := w.lb.Allow(w.now)
		done, err := w.gb.Allow()
		lbMark, gbMark = mark(ok), mark(err == nil)
		r := sent{lbOK: ok, probe: probe, done: done}
		if op == 'a' {
			if ok || done != nil {
				w.pending = append(w.pending, r)
			}
		} else {
			w.end(r, op)
		}
	case 'S', 'F', 'X':
		if len(w.pending) == 0 {
			return fmt.Errorf("%c: no request pending", op)
		}
		r := w.pending[0]
		w.pending = w.pending[1:]
		w.end(r, op)
	case 'w':
		w.now = w.now.Add(time.Second) // more than lblab's Open below
		time.Sleep(gbOpen + 30*time.Millisecond)
	default:
		return fmt.Errorf("unknown op %c", op)
	}
	w.lbTrace = append(w.lbTrace, string(op)+lbMark+" "+w.lb.State(w.now).String())
	w.gbTrace = append(w.gbTrace, string(op)+gbMark+" "+w.gb.State().String())
	return nil
}

// end reports r's result (op: s or S a success, f or F a failure, X
// withdrawn) to whichever breaker let it through.
func (w *twin) end(r sent, op byte) {
	if r.lbOK {
		if op == 'X' {
			w.lb.Release(w.now, r.probe)
		} else {
			w.lb.Done(w.now, op == 's' || op == 'S', r.probe)
		}
	}
	if r.done != nil {
		r.done(result(op))
	}
}

func mark(ok bool) string {
	if ok {
		return "+"
	}
	return "-"
}

// runTwin plays ops through a fresh pair, again if the machine stalled, and
// returns both traces.
func runTwin(t *testing.T, cfg breaker.Config, ops string) (lb, gb []string, w *twin) {
	t.Helper()
	cfg.Open = time.Second
	for try := 1; ; try++ {
		w = newTwin(t, cfg)
		var err error
		for i := 0; i < len(ops) && err == nil; i++ {
			if ops[i] != ' ' {
				err = w.step(ops[i])
			}
		}
		switch {
		case err == nil:
			return w.lbTrace, w.gbTrace, w
		case errors.Is(err, errStalled) && try < 5:
			t.Logf("try %d: %v", try, err)
		default:
			t.Fatal(err)
		}
	}
}

// The sequences where the two must agree, step by step: a trip when the
// window fills with the failed share at the threshold, refusals while
// open, one probe or several closing it, a failed probe reopening it,
// results of requests sent before a trip ignored, a withdrawn probe's
// place given back, and the window starting empty after closing. Every
// trip here comes within the first Window results since the breaker was
// new or closed, and on a failure: past that the two count differently
// (TestBreakerDiffersFromGobreakerByDesign).
func TestBreakerTransitionsAsGobreaker(t *testing.T) {
	w10 := breaker.Config{Window: 10, Threshold: 0.5, Probes: 1}
	cases := []struct {
		name string
		cfg  breaker.Config
		ops  string
		want string // the state after the last op
	}{
		{"trips when the window fills at the threshold, then one probe closes", w10,
			"sssssfffff s f w s sssssfffff", "open"},
		{"under the threshold it stays closed", breaker.Config{Window: 10, Threshold: 0.6, Probes: 1},
			"fffffsssss", "closed"},
		{"every result a failure, threshold 1", breaker.Config{Window: 10, Threshold: 1, Probes: 1},
			"ffffffffff s f", "open"},
		{"a failed probe reopens, the next one closes", w10,
			"ffffffffff w f s w s", "closed"},
		{"the window starts empty after closing", w10,
			"ffffffffff w s sssssffff f", "open"},
		{"half-open lets Probes through and closes when all succeed", breaker.Config{Window: 10, Threshold: 0.5, Probes: 3},
			"ffffffffff w aaaa S S s S", "closed"},
		{"one failed probe of three reopens; the others' results are ignored", breaker.Config{Window: 10, Threshold: 0.5, Probes: 3},
			"ffffffffff w aaa F S S s", "open"},
		{"results of requests sent before the trip are ignored", w10,
			"aa ffffffffff F w a S S", "closed"},
		{"a withdrawn probe gives its place back", w10,
			"ffffffffff w a s X a S", "closed"},
		{"a withdrawn request counts neither way while closed", w10,
			"a ffffffff X sf", "open"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			lb, gb, _ := runTwin(t, c.cfg, c.ops)
			if strings.Join(lb, "|") != strings.Join(gb, "|") {
				t.Fatalf("%s:\n lblab     %s\n gobreaker %s", c.ops, strings.Join(lb, " | "), strings.Join(gb, " | "))
			}
			if got := lb[len(lb)-1]; !strings.HasSuffix(got, " "+c.want) {
				t.Errorf("%s ends %q, want %s", c.ops, got, c.want)
			}
		})
	}
}

// tripAt is the 1-based op of trace at which the state first reads open.
func tripAt(trace []string) int {
	for i, s := range trace {
		if strings.HasSuffix(s, " open") {
			return i + 1
		}
	}
	return 0
}

// Where the two differ by design, each side's own behaviour:
//   - lblab counts the last Window results, a ring; gobreaker (Interval 0)
//     counts every result since it closed. After Window successes, half a
//     window of failures trips lblab's; gobreaker's needs as many failures
//     as all its successes.
//   - lblab judges a full window after every result; gobreaker asks
//     ReadyToTrip only after a failure, so a window that fills at the
//     threshold with a success trips lblab's at once and gobreaker's at the
//     next failure.
//   - A request sent while closed and answered after the breaker closed
//     again is counted by lblab (it is a result while closed) and ignored by
//     gobreaker (another generation). So is a probe of an earlier half-open
//     period: lblab credits it to the current one, gobreaker ignores it.
func TestBreakerDiffersFromGobreakerByDesign(t *testing.T) {
	w10 := breaker.Config{Window: 10, Threshold: 0.5, Probes: 1}
	t.Run("a ring of the last results against counts since closing", func(t *testing.T) {
		t.Parallel()
		lb, gb, _ := runTwin(t, w10, "ssssssssss ffffffffff")
		if a, b := tripAt(lb), tripAt(gb); a != 15 || b != 20 {
			t.Errorf("tripped at result %d (lblab) and %d (gobreaker), want 15 and 20:\n lblab     %s\n gobreaker %s", a, b, lb, gb)
		}
	})
	t.Run("a window that fills with a success", func(t *testing.T) {
		t.Parallel()
		lb, gb, _ := runTwin(t, w10, "fffffsssss f")
		if a, b := tripAt(lb), tripAt(gb); a != 10 || b != 11 {
			t.Errorf("tripped at result %d (lblab) and %d (gobreaker), want 10 and 11:\n lblab     %s\n gobreaker %s", a, b, lb, gb)
		}
	})
	t.Run("a request answered after the breaker closed again", func(t *testing.T) {
		t.Parallel()
		// a is sent closed; the breaker trips on ten failures, probes and
		// closes; then a's failure comes back.
		lb, gb, w := runTwin(t, w10, "a ffffffffff w s F")
		if strings.Join(lb, "|") != strings.Join(gb, "|") {
			t.Fatalf("the states differ:\n lblab     %s\n gobreaker %s", lb, gb)
		}
		failed, total := w.lb.Failures()
		c := w.gb.Counts()
		if failed != 1 || total != 1 || c.TotalFailures != 0 || c.Requests != 0 {
			t.Errorf("lblab's window holds %d failed of %d (want 1 of 1); gobreaker counts %d failures of %d requests (want 0 of 0)",
				failed, total, c.TotalFailures, c.Requests)
		}
	})
	t.Run("a probe of an earlier half-open period", func(t *testing.T) {
		t.Parallel()
		// Two probes out; the first fails and reopens; in the next half-open
		// period the second comes back a success, then one more probe succeeds.
		lb, gb, _ := runTwin(t, breaker.Config{Window: 10, Threshold: 0.5, Probes: 2}, "ffffffffff w aa F w S s")
		if got, want := lb[len(lb)-1], "s+ closed"; got != want {
			t.Errorf("lblab: %q, want %q (the late probe counted): %v", got, want, lb)
		}
		if got, want := gb[len(gb)-1], "s+ half-open"; got != want {
			t.Errorf("gobreaker: %q, want %q (the late probe ignored): %v", got, want, gb)
		}
	})
}
