package server

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/rng"
)

func TestParseFault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Fault
	}{
		{"status=503:10,delay=50ms:25", Fault{Status: 503, StatusPercent: 10, Delay: 50 * time.Millisecond, DelayPercent: 25}},
		{"status=500", Fault{Status: 500, StatusPercent: 100}},
		{" delay=1.5s ", Fault{Delay: 1500 * time.Millisecond, DelayPercent: 100}},
		{"status=429:0", Fault{Status: 429, StatusPercent: 0}},
		{"", Fault{}},
	} {
		got, err := ParseFault(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseFault(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
		if err == nil && !got.IsZero() {
			back, err := ParseFault(got.String())
			if err != nil || back != got {
				t.Errorf("%q: String %q reads back as %+v, %v", tc.in, got.String(), back, err)
			}
		}
	}
	for _, tc := range []struct{ in, names string }{
		{"status=99", "status"}, {"status=600", "status"}, {"status=abc", "status"},
		{"status=503:101", "status"}, {"status=503:-1", "status"}, {"status=503:x", "status"},
		{"delay=-5ms", "delay"}, {"delay=2m", "delay"}, {"delay=soon", "delay"}, {"delay=5ms:200", "delay"},
		{"status=503,status=500", "status"}, {"speed=2", "speed"}, {"status", "status"},
	} {
		if _, err := ParseFault(tc.in); err == nil || !strings.Contains(err.Error(), tc.names) {
			t.Errorf("ParseFault(%q) = %v; want an error naming %s", tc.in, err, tc.names)
		}
	}
	if f, err := ParseFaultParams("503:10", "50ms:25"); err != nil || f.Status != 503 || f.DelayPercent != 25 {
		t.Errorf("ParseFaultParams = %+v, %v", f, err)
	}
}

// The draws hit their percent over many pick numbers, independently, and
// depend on (seed, pick) alone.
func TestFaultDrawShares(t *testing.T) {
	f := Fault{Status: 503, StatusPercent: 10, Delay: 50 * time.Millisecond, DelayPercent: 25}
	const n = 200_000
	var st, de, both int
	for pick := range uint64(n) {
		s, d := f.Draw(7, pick)
		if s != 0 {
			st++
		}
		if d != 0 {
			de++
		}
		if s != 0 && d != 0 {
			both++
		}
		if s2, d2 := f.Draw(7, pick); s2 != s || d2 != d {
			t.Fatalf("pick %d drew differently twice", pick)
		}
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"status", float64(st) / n, 0.10}, {"delay", float64(de) / n, 0.25}, {"both", float64(both) / n, 0.025}} {
		if math.Abs(c.got-c.want) > 0.005 {
			t.Errorf("%s drawn for %.4f of picks, want %.3f", c.name, c.got, c.want)
		}
	}
	if s, d := (Fault{Status: 500, StatusPercent: 100}).Draw(1, 2); s != 500 || d != 0 {
		t.Errorf("a 100%% status drew %d %v", s, d)
	}
}

// A status fault answers at once (plus its delay) without a worker; a delay
// fault on an admitted job holds no worker and delays only its answer.
func TestArriveWithFault(t *testing.T) {
	s, err := New(Config{Name: "s1", Workers: 1, Work: rng.Constant{Value: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	status := Job{ID: 1, Work: 10 * time.Millisecond, Pick: 17,
		Fault: Fault{Status: 504, StatusPercent: 100, Delay: 30 * time.Millisecond, DelayPercent: 100}}
	out := s.Arrive(0, status, nil)
	if len(out) != 1 || out[0].Code != 504 || out[0].Status != Dropped || out[0].Reason != ReasonFault ||
		out[0].At != ms(30) || out[0].HTTPCode() != 504 || out[0].Served() {
		t.Fatalf("status fault: %+v", out)
	}
	if q, busy := s.Load(); q != 0 || busy != 0 {
		t.Fatalf("a status fault took a place: queued %d busy %d", q, busy)
	}
	delayed := Job{ID: 2, Work: 10 * time.Millisecond, Pick: 18, Fault: Fault{Delay: 40 * time.Millisecond, DelayPercent: 100}}
	plain := Job{ID: 3, Work: 10 * time.Millisecond}
	out = s.Arrive(0, delayed, out[:0])
	out = s.Arrive(0, plain, out)
	if len(out) != 0 {
		t.Fatalf("admitted jobs answered at once: %+v", out)
	}
	// Job 2 finishes its work at 10 ms and frees the worker for job 3; its
	// answer leaves at 50 ms.
	at, _ := s.NextDeadline()
	out = s.Advance(at, out)
	if at != ms(10) || len(out) != 1 || out[0].ID != 2 || out[0].At != ms(50) || !out[0].Served() || out[0].Service != dms(10) {
		t.Fatalf("delayed job at %v: %+v", at, out)
	}
	at, _ = s.NextDeadline()
	out = s.Advance(at, out[:0])
	if at != ms(20) || len(out) != 1 || out[0].ID != 3 || out[0].At != ms(20) {
		t.Fatalf("the next job was held behind the delay: at %v %+v", at, out)
	}
	snap := s.Snapshot(ms(20))
	if snap.Faults != 1 || snap.Completed != 2 {
		t.Errorf("counters: faults %d completed %d", snap.Faults, snap.Completed)
	}
	// A killed job gets no delayed answer: it is lost now.
	s.Arrive(ms(20), Job{ID: 4, Work: time.Second, Fault: Fault{Delay: time.Second, DelayPercent: 100}}, nil)
	out = s.Kill(ms(25), out[:0])
	if len(out) != 1 || out[0].Status != Lost || out[0].At != ms(25) {
		t.Errorf("killed delayed job: %+v", out)
	}
}

func TestFaultStatusReadsLikeHTTP(t *testing.T) {
	for code, want := range map[int]Status{200: OK, 404: OK, 429: OK, 500: Error, 502: Error, 503: Rejected, 504: Dropped, 599: Error} {
		if got := FaultStatus(code); got != want {
			t.Errorf("FaultStatus(%d) = %v, want %v", code, got, want)
		}
	}
}
