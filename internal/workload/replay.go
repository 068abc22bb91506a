package workload

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/rng"
)

// maxInstant is what Next returns when a replay is over.
const maxInstant = clock.Never

// Replay plays a trace as a Source, one line at a time (a trace is never
// held in memory): an lblab trace (JSON Lines, see TraceRequest) or a plain
// CSV access log of `timestamp,duration[,key]` lines.
//
// An access log's timestamps are seconds (unix or any origin, with a
// fraction) or RFC 3339 times, and the first line is instant 0; durations
// are the work at speed 1, in seconds (nginx's $request_time) or with a
// unit (12ms). A key that is not a number is hashed. Whatever a line leaves
// out (an access log's client, and its key when there is no third column)
// is what the lab's seeded stream draws for the same request number, so a
// replay stays a pure function of the trace and the seed. Client ids at or
// above the lab's client count are folded onto it (id mod count).
//
// Requests must come in time order: a line whose time is before the
// previous one's ends the replay with an error naming the file and line.
type Replay struct {
	name     string
	sc       *bufio.Scanner
	line     int
	csv      bool
	peek     string // a CSV data line read while looking for a header
	hasPeek  bool
	header   *TraceHeader
	recorded time.Duration
	fill     *Stream // draws what a line leaves out; nil = zeros (ScanTrace)

	rfc3339 bool  // the access log's timestamps are RFC 3339
	base    int64 // its first timestamp, ns
	seq     uint64
	prev    clock.Instant
	count   uint64
	last    Request
	again   bool // the last request was withdrawn (SetRate): return it again
	done    bool
	err     error
}

// NewReplay reads the trace's first line (an lblab trace's header, or an
// access log's optional `timestamp,duration[,key]` header) and returns the
// replay, positioned before its first request. fill is the lab's stream
// (nil: what a line leaves out is zero).
func NewReplay(r io.Reader, name string, fill *Stream) (*Replay, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxTraceLine)
	p := &Replay{name: name, sc: sc, fill: fill}
	first, ok := p.nextLine(true) // a CSV may start with # comments; JSON never does
	if !ok {
		if p.err != nil {
			return nil, p.err
		}
		return nil, fmt.Errorf("%s: empty trace", name)
	}
	if strings.HasPrefix(first, "{") {
		return p, p.readHeader(first)
	}
	p.csv = true
	fields := strings.Split(first, ",")
	if strings.EqualFold(strings.TrimSpace(fields[0]), "timestamp") {
		return p, nil // the column names
	}
	p.peek, p.hasPeek = first, true
	return p, nil
}

func (p *Replay) readHeader(text string) error {
	var h TraceHeader
	if err := json.Unmarshal([]byte(text), &h); err != nil || h.Format != TraceFormat {
		return p.errorf(`not an lblab trace header: the first line must be {"format":"%s","version":%d,...} (or give a CSV of timestamp,duration[,key])`,
			TraceFormat, TraceVersion)
	}
	if h.Version < 1 || h.Version > TraceVersion {
		return p.errorf("trace version %d: this lblab reads versions 1 to %d", h.Version, TraceVersion)
	}
	if h.Duration != "" {
		d, err := ParseMs(h.Duration.String())
		if err != nil {
			return p.errorf("duration_ms: %v", err)
		}
		p.recorded = d
	}
	p.header = &h
	return nil
}

// Next returns the trace's next request, or a request at clock.Never when
// the trace is over or a line was bad (Err says which).
func (p *Replay) Next() Request {
	if p.again {
		p.again = false
		return p.last
	}
	if !p.done {
		if req, ok := p.read(); ok {
			p.last = req
			return req
		}
		p.done = true
	}
	return Request{Seq: p.last.Seq + 1, At: maxInstant}
}

// SetRate does not change a replay's arrivals (they are the trace's), but
// honours the Source contract: a pending arrival later than now is
// withdrawn and comes again.
func (p *Replay) SetRate(now clock.Instant, _ float64) {
	if p.count > 0 && !p.again && p.last.At > now && p.last.At != maxInstant {
		p.again = true
	}
}

// Err is the first bad line or read error, naming the file and line.
func (p *Replay) Err() error { return p.err }

// Requests is the number of requests read so far.
func (p *Replay) Requests() uint64 { return p.count }

func (p *Replay) format() string {
	if p.csv {
		return "CSV access log (timestamp,duration[,key])"
	}
	return fmt.Sprintf("lblab trace v%d", p.header.Version)
}

func (p *Replay) errorf(format string, args ...any) error {
	p.err = fmt.Errorf("%s:%d: %s", p.name, p.line, fmt.Sprintf(format, args...))
	p.done = true
	return p.err
}

// nextLine returns the next line that is not blank (nor, in a CSV, a
// comment).
func (p *Replay) nextLine(comments bool) (string, bool) {
	if p.hasPeek {
		p.hasPeek = false
		return p.peek, true
	}
	for p.sc.Scan() {
		p.line++
		text := strings.TrimSpace(p.sc.Text())
		if text == "" || comments && strings.HasPrefix(text, "#") {
			continue
		}
		return text, true
	}
	if err := p.sc.Err(); err != nil {
		p.line++
		if errors.Is(err, bufio.ErrTooLong) {
			p.errorf("line longer than %d bytes", MaxTraceLine)
		} else {
			p.errorf("%v", err)
		}
	}
	return "", false
}

// read parses the next request line and checks its order and the bounds.
func (p *Replay) read() (Request, bool) {
	text, ok := p.nextLine(p.csv)
	if !ok {
		return Request{}, false
	}
	var req Request
	var err error
	if p.csv {
		req, err = p.parseCSV(text)
	} else {
		req, err = p.parseJSON(text)
	}
	switch {
	case err != nil:
		p.errorf("%v", err)
		return Request{}, false
	case req.At < p.prev:
		p.errorf("time %v is before the previous request's (%v): a trace must be in time order (sort an access log first: sort -t, -k1,1n)",
			time.Duration(req.At), time.Duration(p.prev))
		return Request{}, false
	case time.Duration(req.At) > MaxTraceSpan:
		p.errorf("time %v is more than %v after the first request", time.Duration(req.At), MaxTraceSpan)
		return Request{}, false
	case p.count >= MaxTraceRequests:
		p.errorf("more than %d requests: split the trace", MaxTraceRequests)
		return Request{}, false
	}
	p.prev = req.At
	p.count++
	return req, true
}

func (p *Replay) parseJSON(text string) (Request, error) {
	var tr TraceRequest
	if err := json.Unmarshal([]byte(text), &tr); err != nil {
		return Request{}, fmt.Errorf("not a trace line: %v", err)
	}
	if tr.T == "" || tr.Work == "" {
		return Request{}, errors.New("a request line needs t_ms and work_ms")
	}
	at, err := ParseMs(tr.T.String())
	if err != nil {
		return Request{}, fmt.Errorf("t_ms: %v", err)
	}
	work, err := ParseMs(tr.Work.String())
	if err != nil {
		return Request{}, fmt.Errorf("work_ms: %v", err)
	}
	if tr.Client < 0 {
		return Request{}, fmt.Errorf("client %d: must be >= 0", tr.Client)
	}
	return Request{Seq: tr.Seq, At: clock.Instant(at), Work: work, Key: tr.Key, Client: p.fold(tr.Client)}, nil
}

func (p *Replay) fold(client int) int {
	if p.fill == nil {
		return client
	}
	return client % p.fill.cfg.Clients
}

func (p *Replay) parseCSV(text string) (Request, error) {
	fields := strings.Split(text, ",")
	if len(fields) < 2 || len(fields) > 3 {
		return Request{}, fmt.Errorf("want timestamp,duration[,key], got %d fields", len(fields))
	}
	for i := range fields {
		fields[i] = strings.Trim(strings.TrimSpace(fields[i]), `"`)
	}
	ts, err := p.timestamp(fields[0])
	if err != nil {
		return Request{}, err
	}
	if p.count == 0 {
		p.base = ts
	}
	work, err := parseWork(fields[1])
	if err != nil {
		return Request{}, fmt.Errorf("duration %q: %v", fields[1], err)
	}
	req := Request{Seq: p.seq, At: clock.Instant(ts - p.base), Work: work}
	if p.fill != nil {
		d := p.fill.Draw(p.seq, req.At)
		req.Key, req.Client = d.Key, d.Client
	}
	if len(fields) == 3 && fields[2] != "" {
		if k, err := strconv.ParseUint(fields[2], 10, 64); err == nil {
			req.Key = k
		} else {
			req.Key = rng.StringHash(fields[2])
		}
	}
	p.seq++
	return req, nil
}

// timestamp reads an access log's timestamp in ns: decimal seconds or RFC
// 3339, the same kind on every line.
func (p *Replay) timestamp(s string) (int64, error) {
	isRFC := strings.ContainsAny(s, "T:")
	if p.count == 0 {
		p.rfc3339 = isRFC
	} else if isRFC != p.rfc3339 {
		return 0, fmt.Errorf("timestamp %q: the first line's is %s, every line must use the same kind", s,
			map[bool]string{true: "RFC 3339", false: "in seconds"}[p.rfc3339])
	}
	if isRFC {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return 0, fmt.Errorf("timestamp %q: not RFC 3339 (2024-05-01T12:00:00.123Z)", s)
		}
		return t.UnixNano(), nil
	}
	d, err := parseDecimal(s, 9)
	if err != nil {
		return 0, fmt.Errorf("timestamp %s: want seconds (1714564800.123) or RFC 3339", err)
	}
	return int64(d), nil
}

// parseWork reads a duration: seconds as a bare number, or with a unit.
func parseWork(s string) (time.Duration, error) {
	if s != "" && (s[len(s)-1] < '0' || s[len(s)-1] > '9') && s[len(s)-1] != '.' {
		d, err := time.ParseDuration(s)
		if err != nil || d < 0 {
			return 0, errors.New("want seconds (0.012) or a duration with a unit (12ms), >= 0")
		}
		return d, nil
	}
	return parseDecimal(s, 9)
}
