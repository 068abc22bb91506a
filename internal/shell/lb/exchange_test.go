package lb

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// peer accepts one connection on 127.0.0.1 and hands it to the test,
// which gets the dialed side wrapped as the lb wraps its pooled ones.
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
	w := newExchangeConn(c)
	if _, ok := w.(*exchangeConn); !ok {
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
	big := bytes.Repeat([]byte("x"), maxHeld+1)
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
	if !retryStaleErr(err) {
		t.Fatalf("Read from a closed backend = %v: not what the stale-connection retry recognizes", err)
	}
}

// retryStaleErr is whether retryStale would retry a first attempt failing with err.
func retryStaleErr(err error) bool {
	_, retry := retryStale(nil, 1, err)
	return retry
}
