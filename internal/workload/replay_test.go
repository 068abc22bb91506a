package workload

import (
	"strings"
	"testing"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

func TestMsRoundTripIsExact(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, time.Millisecond, 1234567891, 20 * time.Second, 7*time.Hour + 3} {
		got, err := ParseMs(FormatMs(d).String())
		if err != nil || got != d {
			t.Errorf("%v: wrote %s, read %v (%v)", d, FormatMs(d), got, err)
		}
	}
	if s := FormatMs(1500 * time.Microsecond); s != "1.5" {
		t.Errorf("1.5ms written as %s", s)
	}
	// Unix seconds keep their nanoseconds (no float on the way).
	if d, err := parseDecimal("1714564800.123456789", 9); err != nil || d != 1714564800123456789 {
		t.Errorf("unix seconds: %d %v", d, err)
	}
	for _, bad := range []string{"", "-1", "1e3", "1.2.3", "x", "99999999999999999999"} {
		if _, err := ParseMs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func fillStream(t *testing.T, clients int) *Stream {
	t.Helper()
	s, err := New(Config{Seed: 3, Rate: 100, Clients: clients, Keys: 50, Work: rng.Constant{Value: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readAll(t *testing.T, p *Replay) []Request {
	t.Helper()
	var out []Request
	for r := p.Next(); r.At != clock.Never; r = p.Next() {
		out = append(out, r)
	}
	return out
}

const header = `{"format":"lblab-trace","version":1,"lab":"x","run":"p2c","mode":"live","seed":1,"duration_ms":2000}` + "\n"

func TestReplayReadsAnLblabTrace(t *testing.T) {
	trace := header +
		`{"seq":4,"t_ms":1.5,"client":1,"key":7,"work_ms":12.25,"outcome":"succeeded","answers":[{"kind":"first","sent_ms":1.5,"server":"s1","result":"ok"}]}` + "\n" +
		"\n" +
		`{"seq":5,"t_ms":1.5,"client":9,"key":8,"work_ms":0}` + "\n" +
		`{"seq":9,"t_ms":1999.000001,"client":2,"key":0,"work_ms":3,"future_field":true}` + "\n"
	p, err := NewReplay(strings.NewReader(trace), "t.jsonl", fillStream(t, 4))
	if err != nil {
		t.Fatal(err)
	}
	got := readAll(t, p)
	want := []Request{
		{Seq: 4, At: clock.Instant(1500 * time.Microsecond), Work: 12250 * time.Microsecond, Key: 7, Client: 1},
		{Seq: 5, At: clock.Instant(1500 * time.Microsecond), Work: 0, Key: 8, Client: 1}, // 9 mod 4
		{Seq: 9, At: clock.Instant(1999*time.Millisecond + 1), Work: 3 * time.Millisecond, Key: 0, Client: 2},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d requests: %+v", len(got), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if p.Err() != nil {
		t.Error(p.Err())
	}
	info, err := ScanTrace(strings.NewReader(trace), "t.jsonl")
	if err != nil || info.Requests != 3 || info.Duration() != 2*time.Second || info.Header.Run != "p2c" {
		t.Errorf("scan: %+v %v", info, err)
	}
}

func TestReplayReadsAnAccessLog(t *testing.T) {
	fill := fillStream(t, 8)
	seconds := "# an nginx log, cut down\ntimestamp,duration,key\n1714564800.000,0.012,/a\n1714564800.250,0.030\n1714564801.5,15ms,42\n"
	rfc := "2024-05-01T12:00:00Z,0.012,/a\n2024-05-01T12:00:00.25Z,0.030\n2024-05-01T12:00:01.5Z,15ms,42\n"
	for name, text := range map[string]string{"seconds": seconds, "rfc3339": rfc} {
		p, err := NewReplay(strings.NewReader(text), name, fill)
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, p)
		if p.Err() != nil || len(got) != 3 {
			t.Fatalf("%s: %d requests, err %v", name, len(got), p.Err())
		}
		ats := []time.Duration{0, 250 * time.Millisecond, 1500 * time.Millisecond}
		works := []time.Duration{12 * time.Millisecond, 30 * time.Millisecond, 15 * time.Millisecond}
		for i, r := range got {
			d := fill.Draw(uint64(i), 0) // what the lab's stream has for request i
			if r.Seq != uint64(i) || time.Duration(r.At) != ats[i] || r.Work != works[i] || r.Client != d.Client {
				t.Errorf("%s: request %d: %+v (the stream's client %d)", name, i, r, d.Client)
			}
		}
		if got[0].Key != rng.StringHash("/a") || got[1].Key != fill.Draw(1, 0).Key || got[2].Key != 42 {
			t.Errorf("%s: keys %d %d %d", name, got[0].Key, got[1].Key, got[2].Key)
		}
	}
	info, err := ScanTrace(strings.NewReader(seconds), "log.csv")
	if err != nil || info.Requests != 3 || info.Header != nil || info.Duration() != 2*time.Second {
		t.Errorf("scan: %+v %v", info, err)
	}
}

// Every bad line is an error naming the file and the line.
func TestReplayErrorsNameTheLine(t *testing.T) {
	long := "0," + strings.Repeat("1", MaxTraceLine) + "\n"
	cases := map[string]struct{ text, want string }{
		"order":    {"0,1\n2,1\n1,1\n", "f:3: time 1s is before the previous request's (2s)"},
		"duration": {"0,1\n1,fast\n", "f:2: duration \"fast\""},
		"fields":   {"0\n", "f:1: want timestamp,duration[,key], got 1 fields"},
		"mixed":    {"0,1\n2024-05-01T12:00:00Z,1\n", "f:2: timestamp \"2024-05-01T12:00:00Z\": the first line's is in seconds"},
		"rfc":      {"2024-05-01T12:00:00Z,1\n2024-05-01T12:00,1\n", "f:2: timestamp \"2024-05-01T12:00\": not RFC 3339"},
		"long":     {"0,1\n" + long, "f:2: line longer than"},
		"header":   {`{"format":"other"}` + "\n", "f:1: not an lblab trace header"},
		"version":  {`{"format":"lblab-trace","version":2}` + "\n", "f:1: trace version 2"},
		"missing":  {header + `{"seq":1,"client":1}` + "\n", "f:2: a request line needs t_ms and work_ms"},
		"negative": {header + `{"t_ms":-1,"work_ms":1}` + "\n", "f:2: t_ms:"},
		"json":     {header + `{"t_ms":1,` + "\n", "f:2: not a trace line"},
		"empty":    {"\n# nothing\n", "f: empty trace"},
		"none":     {header, "f: no requests in the trace"},
	}
	for name, c := range cases {
		_, err := ScanTrace(strings.NewReader(c.text), "f")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}

// A rate change never alters a replay, but the arrival it withdraws comes
// again (the Source contract the drivers rely on).
func TestReplaySetRateGivesTheArrivalAgain(t *testing.T) {
	p, err := NewReplay(strings.NewReader("0,1\n1,1\n2,1\n"), "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	p.Next()
	second := p.Next()
	p.SetRate(clock.Instant(500*time.Millisecond), 10) // before the pending one: withdrawn
	if again := p.Next(); again != second {
		t.Errorf("after SetRate: %+v, want %+v again", again, second)
	}
	p.SetRate(clock.Instant(3*time.Second), 10) // after it: nothing withdrawn
	if third := p.Next(); third.Seq != 2 || third.At != clock.Instant(2*time.Second) {
		t.Errorf("third: %+v", third)
	}
	if end := p.Next(); end.At != clock.Never {
		t.Errorf("after the end: %+v", end)
	}
}

// No input crashes a replay, and what it returns is in time order with
// client ids folded into the lab's.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(header + `{"seq":1,"t_ms":1.5,"client":7,"key":2,"work_ms":3}` + "\n"))
	f.Add([]byte("timestamp,duration,key\n1714564800.1,0.012,/a\n1714564800.2,15ms\n"))
	f.Add([]byte("2024-05-01T12:00:00Z,1\n0001-01-01T00:00:00Z,1\n"))
	f.Add([]byte("9999999999999999999.9,1\n0,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := New(Config{Seed: 1, Clients: 3, Keys: 5, Work: rng.Constant{Value: time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewReplay(strings.NewReader(string(data)), "fuzz", s)
		if err != nil {
			return
		}
		prev := clock.Instant(0)
		for i := 0; i < 1000; i++ {
			r := p.Next()
			if r.At == clock.Never {
				break
			}
			if r.At < prev || r.Client < 0 || r.Client >= 3 || r.Work < 0 || time.Duration(r.At) > MaxTraceSpan {
				t.Fatalf("request %+v after %v", r, prev)
			}
			prev = r.At
		}
		_, _ = ScanTrace(strings.NewReader(string(data)), "fuzz")
	})
}
