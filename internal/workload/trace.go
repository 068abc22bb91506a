package workload

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// The lblab trace format (docs/traces.md): JSON Lines, a header line, then
// one line per request in the order the requests started (their intended
// times never go back). The replay reads seq, t_ms, client, key and work_ms;
// the rest is what the recorded run saw, for people and tools.
const (
	TraceFormat  = "lblab-trace"
	TraceVersion = 1 // bumped when a field changes meaning; readers refuse newer versions
)

// Bounds on what a replay reads, so a bad or huge file fails clearly
// instead of exhausting memory or running for days.
const (
	MaxTraceLine     = 64 << 10   // bytes in one line
	MaxTraceRequests = 50_000_000 // requests in one trace
	MaxTraceSpan     = 31 * 24 * time.Hour
)

// TraceHeader is the first line of an lblab trace.
type TraceHeader struct {
	Format   string      `json:"format"` // TraceFormat
	Version  int         `json:"version"`
	Lab      string      `json:"lab,omitempty"`
	Run      string      `json:"run,omitempty"`  // the setting that ran
	Mode     string      `json:"mode,omitempty"` // sim | live
	Seed     uint64      `json:"seed"`
	Duration json.Number `json:"duration_ms,omitempty"` // how long arrivals were sent
}

// TraceRequest is one request line of an lblab trace.
type TraceRequest struct {
	Seq    uint64      `json:"seq"`
	T      json.Number `json:"t_ms"` // intended send time, from the run's start
	Client int         `json:"client"`
	Key    uint64      `json:"key"`
	Work   json.Number `json:"work_ms"` // at speed 1

	// What the recorded run saw (not read by a replay).
	Sent     json.Number   `json:"sent_ms,omitempty"`    // when the first attempt really left
	Latency  json.Number   `json:"latency_ms,omitempty"` // intended start to end
	Outcome  string        `json:"outcome,omitempty"`    // succeeded | failed | rejected | timed-out
	Attempts int           `json:"attempts,omitempty"`   // attempts sent, hedges included
	Answers  []TraceAnswer `json:"answers,omitempty"`    // the answers the request used, in order
}

// TraceAnswer is one attempt's answer that its request used.
type TraceAnswer struct {
	Kind    string      `json:"kind"` // first | retry | hedge | probe
	Sent    json.Number `json:"sent_ms"`
	Server  string      `json:"server,omitempty"` // "" = no server was picked (or none said)
	Result  string      `json:"result"`           // ok | error | rejected | timeout
	Queue   json.Number `json:"queue_ms,omitempty"`
	Service json.Number `json:"service_ms,omitempty"`
}

// FormatMs writes d in milliseconds with up to six decimals: exact to the
// nanosecond, so a replay reads back the instants that were written.
func FormatMs(d time.Duration) json.Number {
	neg := d < 0
	if neg {
		d = -d
	}
	ms, ns := int64(d/time.Millisecond), int64(d%time.Millisecond)
	s := strconv.FormatInt(ms, 10)
	if ns != 0 {
		s += "." + strings.TrimRight(fmt.Sprintf("%06d", ns), "0")
	}
	if neg {
		s = "-" + s
	}
	return json.Number(s)
}

// ParseMs reads a decimal number of milliseconds, exactly to the nanosecond.
func ParseMs(s string) (time.Duration, error) { return parseDecimal(s, 6) }

// parseDecimal reads a non-negative decimal number of units into
// nanoseconds, where one unit is 10^scale ns; digits below a nanosecond
// are dropped. No float is involved, so unix seconds keep their
// nanoseconds.
func parseDecimal(s string, scale int) (time.Duration, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole+frac == "" || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("%q is not a non-negative decimal number", s)
	}
	frac = (frac + strings.Repeat("0", scale))[:scale]
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(digits, 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return time.Duration(n), nil
}

func allDigits(s string) bool {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Trace is a trace to replay: its name (for errors) and how to open it. A
// driver opens it once per run (a compare replays it once per setting), so
// a trace is streamed, never held in memory. File I/O stays with the
// caller: the command line gives Open.
type Trace struct {
	Name string
	Open func() (io.ReadCloser, error)
	Info TraceInfo // from ScanTrace
}

// TraceInfo is what a full read of a trace found.
type TraceInfo struct {
	Format   string        // "lblab trace v1" or "CSV access log"
	Header   *TraceHeader  // nil for an access log
	Requests uint64        // request lines
	Last     time.Duration // the last request's intended time
	Recorded time.Duration // the recorded run's duration (header), 0 when unknown
}

// Duration is how long a replay of the trace runs by default: the recorded
// run's duration, or else past its last request, rounded up to whole
// seconds.
func (ti TraceInfo) Duration() time.Duration {
	if ti.Recorded > 0 {
		return ti.Recorded
	}
	return ti.Last.Truncate(time.Second) + time.Second
}

// ScanTrace reads a whole trace once, checking every line, and sums it up;
// the first bad line is an error naming name:line.
func ScanTrace(r io.Reader, name string) (TraceInfo, error) {
	p, err := NewReplay(r, name, nil)
	if err != nil {
		return TraceInfo{}, err
	}
	var last Request
	for {
		req := p.Next()
		if req.At == maxInstant {
			break
		}
		last = req
	}
	if p.Err() != nil {
		return TraceInfo{}, p.Err()
	}
	if p.count == 0 {
		return TraceInfo{}, fmt.Errorf("%s: no requests in the trace", name)
	}
	ti := TraceInfo{Format: p.format(), Requests: p.count, Last: time.Duration(last.At)}
	if p.header != nil {
		ti.Header = p.header
		ti.Recorded = p.recorded
	}
	return ti, nil
}
