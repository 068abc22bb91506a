package turns

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// peer accepts one connection on 127.0.0.1 and hands both ends to the
// test: the dialed side wrapped with Client, the accepted one plain.
func peer(t *testing.T) (client net.Conn, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := ln.Accept()
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	w := Client(c)
	if _, ok := w.(*Conn); !ok {
		t.Fatalf("a TCP connection is not wrapped: %T", w)
	}
	return w, s
}

// readN reads exactly n bytes from c within a few seconds (what it got
// and the error, if it did not).
func readN(c net.Conn, n int) string {
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, n)
	k, err := io.ReadFull(c, b)
	if err != nil {
		return string(b[:k]) + " (" + err.Error() + ")"
	}
	return string(b)
}

func TestExchangeSendsHeldRequestsInOrderBeforeReadingTheAnswer(t *testing.T) {
	c, s := peer(t)
	for _, part := range []string{"GET / HTTP/1.1\r\n", "Host: x\r\n\r\n"} {
		if n, err := c.Write([]byte(part)); err != nil || n != len(part) {
			t.Fatalf("Write(%q) = %d, %v", part, n, err)
		}
	}
	go func() {
		want := "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
		if got := readN(s, len(want)); got != want {
			t.Errorf("the backend got %q, want %q", got, want)
		}
		_, _ = s.Write([]byte("answer"))
	}()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b := make([]byte, 64)
	n, err := c.Read(b)
	if err != nil || string(b[:n]) != "answer" {
		t.Fatalf("Read = %q, %v; want the answer", b[:n], err)
	}
	// The next exchange on the same connection works the same way.
	if _, err := c.Write([]byte("again")); err != nil {
		t.Fatal(err)
	}
	go func() {
		if got := readN(s, 5); got != "again" {
			t.Errorf("the backend got %q, want again", got)
		}
		_, _ = s.Write([]byte("second"))
	}()
	n, err = c.Read(b)
	if err != nil || string(b[:n]) != "second" {
		t.Fatalf("second Read = %q, %v", b[:n], err)
	}
}

func TestExchangeSendsALargeRequestAtOnce(t *testing.T) {
	c, s := peer(t)
	big := bytes.Repeat([]byte("x"), MaxHeld+1)
	done := make(chan string, 1)
	go func() { done <- readN(s, len(big)) }() // the socket may not take it all at once
	if n, err := c.Write(big); err != nil || n != len(big) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := <-done; got != string(big) {
		t.Fatalf("the backend got %d bytes, not the request", len(got))
	}
}

func TestExchangeCloseSendsWhatIsHeld(t *testing.T) {
	c, s := peer(t)
	if _, err := c.Write([]byte("last")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_ = s.SetReadDeadline(time.Now().Add(5 * time.Second))
	got, err := io.ReadAll(s)
	if err != nil || string(got) != "last" {
		t.Fatalf("the backend got %q, %v; want the held request, then EOF", got, err)
	}
}

func TestExchangeReadDeadline(t *testing.T) {
	c, s := peer(t)
	if _, err := c.Write([]byte("never answered")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
	_, err := c.Read(make([]byte, 16))
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read past the deadline = %v, want a timeout", err)
	}
	if !strings.HasPrefix(err.Error(), "read tcp ") {
		t.Errorf("error %q does not read as a plain connection's", err)
	}
	if got := readN(s, len("never answered")); got != "never answered" {
		t.Fatalf("the backend got %q", got)
	}
}

func TestExchangeBackendGone(t *testing.T) {
	c, s := peer(t)
	s.Close()
	if _, err := c.Write([]byte("to nobody")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := c.Read(make([]byte, 16))
	if err == nil || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("Read from a closed backend = %v, want EOF or a reset", err)
	}
	if !errors.Is(err, io.EOF) && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("Read from a closed backend = %v, want EOF, ECONNRESET or EPIPE as a plain connection gives", err)
	}
}

// served accepts one connection wrapped with Server and dials it plainly.
func served(t *testing.T) (server net.Conn, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	wl := Listen(ln)
	defer wl.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	s, err := wl.Accept()
	if err != nil {
		c.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); s.Close() })
	if _, ok := s.(*Conn); !ok {
		t.Fatalf("an accepted TCP connection is not wrapped: %T", s)
	}
	return s, c
}

// readOne reads what one Read returns, with a deadline of d.
func readOne(c net.Conn, d time.Duration) (string, error) {
	_ = c.SetReadDeadline(time.Now().Add(d))
	b := make([]byte, 64)
	n, err := c.Read(b)
	return string(b[:n]), err
}

func TestServerTakesTurns(t *testing.T) {
	s, c := served(t)
	for i, req := range []string{"first", "second", "third"} {
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		if got, err := readOne(s, 5*time.Second); err != nil || got != req {
			t.Fatalf("exchange %d: the server read %q, %v", i, got, err)
		}
		if _, err := s.Write([]byte("answer to " + req)); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			break
		}
		// The answer goes out when the server reads for the next request.
		go func() {
			if got := readN(c, len("answer to "+req)); got != "answer to "+req {
				t.Errorf("the client got %q", got)
			}
		}()
		time.Sleep(time.Millisecond) // not needed: only so that both orders occur
	}
	// Close sends the last answer.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if got, err := io.ReadAll(c); err != nil || string(got) != "answer to third" {
		t.Fatalf("after Close the client got %q, %v", got, err)
	}
}

// A pipelining client's next request may come before the server's answer
// went out; the server's read must still return it (not wait for a
// wake-up that came before it began).
func TestServerPipelinedRequestIsRead(t *testing.T) {
	s, c := served(t)
	if _, err := c.Write([]byte("req1")); err != nil {
		t.Fatal(err)
	}
	if got, err := readOne(s, 5*time.Second); err != nil || got != "req1" {
		t.Fatalf("the server read %q, %v", got, err)
	}
	for i := 2; i <= 3; i++ {
		req, ans := fmt.Sprintf("req%d", i), fmt.Sprintf("ans%d", i-1)
		if _, err := c.Write([]byte(req)); err != nil { // before the last one's answer
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // let it arrive while the server is busy
		if _, err := s.Write([]byte(ans)); err != nil {
			t.Fatal(err)
		}
		if got, err := readOne(s, 5*time.Second); err != nil || got != req {
			t.Fatalf("the server's next read = %q, %v; want the pipelined %s", got, err, req)
		}
		if got := readN(c, 4); got != ans {
			t.Fatalf("the client got %q, want %s", got, ans)
		}
	}
	// Found early twice in a row, the connection is read the ordinary way.
	if _, err := s.Write([]byte("ans3")); err != nil {
		t.Fatal(err)
	}
	if got := readN(c, 4); got != "ans3" {
		t.Fatalf("the client got %q, want ans3 sent at once", got)
	}
	if left := s.(*Conn).early; left != EarlyReads-1 {
		t.Fatalf("%d ordinary reads left after one, want %d", left, EarlyReads-1)
	}
}

func TestServerIdleReadEndsAtTheCallersDeadline(t *testing.T) {
	s, c := served(t)
	if _, err := c.Write([]byte("req")); err != nil {
		t.Fatal(err)
	}
	if got, err := readOne(s, 5*time.Second); err != nil || got != "req" {
		t.Fatalf("the server read %q, %v", got, err)
	}
	if _, err := s.Write([]byte("ans")); err != nil {
		t.Fatal(err)
	}
	// Longer than the guard: the read goes on waiting past it.
	_, err := readOne(s, 20*Guard)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !strings.HasPrefix(err.Error(), "read tcp ") {
		t.Fatalf("an idle read = %v, want the caller's deadline as a plain connection reports it", err)
	}
	if got := readN(c, 3); got != "ans" {
		t.Fatalf("the client got %q", got)
	}
	// A deadline sooner than the guard: the ordinary read.
	if _, err := s.Write([]byte("more")); err != nil {
		t.Fatal(err)
	}
	if _, err := readOne(s, Guard/10); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read with a short deadline = %v, want the deadline's error", err)
	}
	if got := readN(c, 4); got != "more" {
		t.Fatalf("the client got %q", got)
	}
}

func TestNotTCPIsLeftAlone(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if Client(a) != a || Server(b) != b {
		t.Fatal("a connection that is not TCP was wrapped")
	}
}

// A goroutine that the scheduler runs late (on a busy machine, or a process
// stopped and continued) reaches the poller's read after its guard has run
// out. The poller then returns the deadline error without running the
// callback that sends the held answer; the answer must still go out, and
// the next request must still be read.
func TestServerAnswerSentWhenTheReadRunsPastTheGuard(t *testing.T) {
	stall = func() { time.Sleep(3 * Guard) }
	t.Cleanup(func() { stall = nil })
	for _, callerDeadline := range []time.Duration{0, time.Minute} {
		s, c := served(t)
		for i, req := range []string{"first", "second"} {
			if _, err := c.Write([]byte(req)); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				if got, err := readOne(s, 5*time.Second); err != nil || got != req {
					t.Fatalf("the server read %q, %v", got, err)
				}
			}
		}
		if _, err := s.Write([]byte("answer")); err != nil {
			t.Fatal(err)
		}
		// The client has its answer although the server's read that sends
		// it started after the guard ran out ...
		got := make(chan string, 1)
		go func() { got <- readN(c, len("answer")) }()
		// ... and the server's read finds the request that was waiting.
		var dl time.Time
		if callerDeadline > 0 {
			dl = time.Now().Add(callerDeadline)
		}
		_ = s.SetReadDeadline(dl)
		b := make([]byte, 64)
		n, err := s.Read(b)
		if err != nil || string(b[:n]) != "second" {
			t.Fatalf("deadline %v: the server's next read = %q, %v; want second", callerDeadline, b[:n], err)
		}
		if a := <-got; a != "answer" {
			t.Fatalf("deadline %v: the client got %q, want the answer", callerDeadline, a)
		}
	}
}
