package load

import (
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

func at(ms int) clock.Instant { return clock.Instant(time.Duration(ms) * time.Millisecond) }

func TestLocalSentDone(t *testing.T) {
	tb := NewTable(3, Local, 0)
	tb.Sent(at(0), 1)
	tb.Sent(at(1), 1)
	tb.Sent(at(2), 2)
	if got := tb.Stats[1].Outstanding; got != 2 {
		t.Fatalf("Outstanding[1] = %d, want 2", got)
	}
	if got := tb.Stats[1].Queued; got != 2 {
		t.Fatalf("Queued[1] = %d, want 2 (optimistic increments)", got)
	}
	if got := tb.InFlight(); got != 3 {
		t.Fatalf("InFlight = %d, want 3", got)
	}
	tb.Done(at(10), 1, 10*time.Millisecond)
	tb.Done(at(11), 1, 9*time.Millisecond)
	tb.Done(at(12), 1, 9*time.Millisecond) // one too many: stays at 0
	if got := tb.Stats[1].Outstanding; got != 0 {
		t.Fatalf("Outstanding[1] = %d, want 0", got)
	}
	if got := tb.InFlight(); got != 1 {
		t.Fatalf("InFlight = %d, want 1", got)
	}
	if !tb.Stats[1].Latency.Set() || tb.Stats[1].Latency.Value() <= 0 {
		t.Fatalf("latency not observed: %+v", tb.Stats[1].Latency)
	}
	if got := tb.Stats[1].Peak.At(at(12)); got < 9e6 || got > 10e6 {
		t.Fatalf("Peak.At = %g, want within [9ms, 10ms]", got)
	}
}

func TestPeakJumps(t *testing.T) {
	tb := NewTable(1, Local, time.Second)
	tb.Done(at(0), 0, time.Millisecond)
	tb.Done(at(1), 0, 50*time.Millisecond)
	if got := tb.Stats[0].Peak.At(at(1)); got != 50e6 {
		t.Fatalf("peak after a slow sample = %g, want 50e6", got)
	}
	if got := tb.Stats[0].Latency.Value(); got >= 50e6 {
		t.Fatalf("plain EWMA jumped to %g", got)
	}
}

func TestSharedReport(t *testing.T) {
	tb := NewTable(2, Shared, time.Second)
	tb.Sent(at(0), 0)
	if got := tb.Stats[0].Outstanding; got != 0 {
		t.Fatalf("Shared Sent changed Outstanding to %d", got)
	}
	if got := tb.Stats[0].Queued; got != 1 {
		t.Fatalf("Shared Sent: Queued = %d, want 1", got)
	}
	tb.Report(0, Report{At: at(500), Valid: true, Queued: 4, InService: 3})
	s := tb.Stats[0]
	if s.Outstanding != 7 || s.Queued != 4 || s.Last.InService != 3 || s.Last.At != at(500) || !s.Last.Valid {
		t.Fatalf("after report: %+v", s)
	}
	tb.Done(at(600), 0, time.Millisecond)
	if got := tb.Stats[0].Outstanding; got != 7 {
		t.Fatalf("Shared Done changed Outstanding to %d", got)
	}
	if got := tb.InFlight(); got != 7 {
		t.Fatalf("InFlight = %d, want 7", got)
	}
}

func TestLocalReportKeepsOutstanding(t *testing.T) {
	tb := NewTable(1, Local, 0)
	tb.Sent(at(0), 0)
	tb.Report(0, Report{At: at(1), Valid: true, Queued: 9, InService: 2})
	if s := tb.Stats[0]; s.Outstanding != 1 || s.Queued != 9 || s.Last.InService != 2 {
		t.Fatalf("after local report: %+v", s)
	}
}

func TestResize(t *testing.T) {
	tb := NewTable(2, Local, 0)
	tb.Sent(at(0), 1)
	tb.Resize(4)
	if len(tb.Stats) != 4 || tb.Stats[1].Outstanding != 1 || tb.Stats[3].Outstanding != 0 {
		t.Fatalf("grow: %+v", tb.Stats)
	}
	if tb.Stats[3].Latency.Tau != DefaultDecay {
		t.Fatalf("new entry tau = %v", tb.Stats[3].Latency.Tau)
	}
	tb.Resize(1)
	if len(tb.Stats) != 1 || tb.InFlight() != 0 {
		t.Fatalf("shrink: %+v", tb.Stats)
	}
	tb.Resize(-1)
	if len(tb.Stats) != 0 {
		t.Fatalf("negative size: %d entries", len(tb.Stats))
	}
}

func TestOutOfRangeIgnored(t *testing.T) {
	tb := NewTable(1, Local, 0)
	tb.Sent(at(0), 5)
	tb.Done(at(0), -1, time.Millisecond)
	tb.Report(1, Report{At: at(0), Valid: true, Queued: 1, InService: 1})
	if tb.InFlight() != 0 {
		t.Fatalf("out-of-range calls changed the table")
	}
}

func TestModeString(t *testing.T) {
	if Local.String() != "local" || Shared.String() != "shared" || Mode(9).String() != "unknown" {
		t.Fatal("Mode.String")
	}
}

// A failure answered in 1 ms makes a server look fast unless the table has
// a penalty (ingress-nginx issue 5540); with one it looks at least that
// slow in both averages, and a success is folded in as it came.
func TestFailedCountsAtLeastThePenalty(t *testing.T) {
	for _, penalty := range []time.Duration{0, time.Second} {
		tb := NewTable(2, Local, 0)
		tb.Penalty = penalty
		tb.Sent(at(0), 0)
		tb.Failed(at(5), 0, time.Millisecond)
		want := float64(max(time.Millisecond, penalty))
		if s := tb.Stats[0]; s.Latency.Value() != want || s.Peak.Value() != want || s.Outstanding != 0 {
			t.Errorf("penalty %v: after a 1 ms failure latency %g, peak %g, outstanding %d; want %g and 0", penalty, s.Latency.Value(), s.Peak.Value(), s.Outstanding, want)
		}
		tb.Done(at(5), 1, time.Millisecond)
		if got := tb.Stats[1].Latency.Value(); got != float64(time.Millisecond) {
			t.Errorf("penalty %v: a 1 ms success counts as %g", penalty, got)
		}
	}
}

// A new decay keeps the counts and what the averages learnt: an answer to
// a send made before it is counted off.
func TestSetDecayKeepsCounts(t *testing.T) {
	tb := NewTable(2, Local, time.Second)
	tb.Sent(0, 0)
	tb.Sent(0, 0)
	tb.Done(clock.Instant(time.Millisecond), 0, 5*time.Millisecond)
	tb.Report(1, Report{At: clock.Instant(time.Millisecond), Valid: true, Queued: 3, InService: 2})
	tb.SetDecay(clock.Instant(2*time.Millisecond), 10*time.Second)
	s := tb.Stats
	if s[0].Outstanding != 1 || s[0].Latency.Value() != float64(5*time.Millisecond) || s[1].Queued != 3 || !s[1].Last.Valid {
		t.Fatalf("after SetDecay: %+v", s)
	}
	if s[0].Latency.Tau != 10*time.Second || s[0].Peak.Tau != 10*time.Second || tb.Decay() != 10*time.Second {
		t.Fatalf("decay not taken: %v %v", s[0].Latency.Tau, s[0].Peak.Tau)
	}
	tb.Done(clock.Instant(3*time.Millisecond), 0, 5*time.Millisecond)
	if tb.InFlight() != 0 {
		t.Fatalf("the send before the new decay was not counted off: %d in flight", tb.InFlight())
	}
	tb.Resize(3)
	if tb.Stats[2].Latency.Tau != 10*time.Second {
		t.Fatal("a server added later has the old decay")
	}
}

// TestUnkeptKeepsCountsOnly: an Unkept table still counts what is
// outstanding, and keeps no latency average.
func TestUnkeptKeepsCountsOnly(t *testing.T) {
	tb := NewTable(2, Local, 0)
	tb.Unkept = true
	tb.Sent(0, 1)
	tb.Sent(0, 1)
	tb.Done(clock.Instant(5e6), 1, 5*time.Millisecond)
	s := tb.Stats[1]
	if s.Outstanding != 1 {
		t.Fatalf("outstanding %d after two sent and one done, want 1", s.Outstanding)
	}
	if s.Latency.Set() || s.Peak.Set() {
		t.Fatalf("an Unkept table kept a latency average: %v, peak %v", s.Latency.Value(), s.Peak.Value())
	}
}
