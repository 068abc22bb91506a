package loadgen

import (
	"bufio"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/shell/wire"
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

// The one pass over an answer's headers finds what Peek finds for every
// lab header: the first value, whatever the case the server wrote the name
// in, nothing for a header absent or merely prefixed alike.
func TestLabAnswerReadsAsPeek(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nServer: nginx\r\nx-lab-server: s3\r\nENDPOINT-LOAD-METRICS: TEXT eps:2\r\n" +
		"Endpoint-Load-Metrics: TEXT eps:9\r\nX-Lab-Queue-Ms: 1.5\r\nX-Lab-Service-Msx: 4\r\nX-Lab-Reason: queue-full\r\nContent-Length: 0\r\n\r\n"
	var resp fasthttp.Response
	if err := resp.Read(bufio.NewReader(strings.NewReader(raw))); err != nil {
		t.Fatal(err)
	}
	var a labAnswer
	a.read(&resp.Header)
	got := map[string][]byte{wire.HReason: a.reason, wire.HServer: a.server, wire.HBalancer: a.balancer,
		wire.HLoadMetrics: a.load, wire.HQueueMs: a.queueMs, wire.HServiceMs: a.serviceMs}
	for name, v := range got {
		if want := resp.Header.Peek(name); string(v) != string(want) {
			t.Errorf("%s: read %q, Peek %q", name, v, want)
		}
	}
	if string(a.server) != "s3" || string(a.load) != "TEXT eps:2" || a.serviceMs != nil || a.balancer != nil {
		t.Errorf("server %q, load %q, service %q, balancer %q: want s3, TEXT eps:2 (the first), none, none", a.server, a.load, a.serviceMs, a.balancer)
	}
}
