package loadgen

import (
	"net"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
)

// countingConn counts the deadline settings that reach the connection.
type countingConn struct {
	net.Conn
	reads, writes int
}

func (c *countingConn) SetReadDeadline(time.Time) error  { c.reads++; return nil }
func (c *countingConn) SetWriteDeadline(time.Time) error { c.writes++; return nil }
func (c *countingConn) SetDeadline(time.Time) error      { c.reads++; c.writes++; return nil }

// A deadline within deadlineSlack of the one set already is not set again
// (fasthttp asks for nearly the same instant on every request); one further
// off, or clearing it, is.
func TestTrackedConnSkipsNearDeadlines(t *testing.T) {
	inner := &countingConn{}
	c := &trackedConn{Conn: inner}
	at := time.Now().Add(time.Minute)
	steps := []struct {
		t            time.Time
		reads, write int
	}{
		{at, 1, 1},
		{at.Add(deadlineSlack / 10), 1, 1},  // near: kept
		{at.Add(-deadlineSlack / 10), 1, 1}, // near, earlier: kept
		{at.Add(5 * deadlineSlack), 2, 2},   // far: set
		{time.Time{}, 3, 3},                 // cleared: set
		{time.Time{}, 3, 3},                 // cleared again: nothing to do
		{at, 4, 4},
	}
	for i, s := range steps {
		if err := c.SetReadDeadline(s.t); err != nil {
			t.Fatal(err)
		}
		if err := c.SetWriteDeadline(s.t); err != nil {
			t.Fatal(err)
		}
		if inner.reads != s.reads || inner.writes != s.write {
			t.Fatalf("step %d: %d read and %d write deadlines set, want %d and %d", i, inner.reads, inner.writes, s.reads, s.write)
		}
	}
	if err := c.SetDeadline(at.Add(deadlineSlack / 2)); err != nil || inner.reads != 4 {
		t.Fatalf("SetDeadline near both: %d read deadlines set (err %v), want 4", inner.reads, err)
	}
	if err := c.SetDeadline(at.Add(time.Hour)); err != nil || inner.reads != 5 || inner.writes != 5 {
		t.Fatalf("SetDeadline far: %d/%d set (err %v), want 5/5", inner.reads, inner.writes, err)
	}
}

// The loop's timer fires at most once per pacingGrain: an entry due sooner
// after the last firing waits for the grain's end; later ones are timed to
// their instant.
func TestLoopTimerGrain(t *testing.T) {
	l := &loop{}
	l.ticked = clock.Instant(time.Millisecond)
	l.q.push(event{at: l.ticked.Add(pacingGrain / 4), kind: evStop})
	if got, want := l.armAt(l.ticked), l.ticked.Add(pacingGrain); got != want {
		t.Fatalf("an entry %v after the last firing: armed at %v, want %v (the grain's end)", pacingGrain/4, got, want)
	}
	l.q.pop()
	far := l.ticked.Add(3 * pacingGrain)
	l.q.push(event{at: far, kind: evStop})
	if got := l.armAt(l.ticked); got != far {
		t.Fatalf("an entry 3 grains after the last firing: armed at %v, want its instant %v", got, far)
	}
}
