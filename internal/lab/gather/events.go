package gather

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lblab/lblab/internal/lab/admin"
	"github.com/lblab/lblab/internal/lab/proc"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/shell/state"
)

// Log is the lab's event log: script and chaos lines plus what the
// balancers report on their event streams (breaker transitions, health,
// changes), timed from its start.
type Log struct {
	mu    sync.Mutex
	start time.Time
	lines []report.LogLine
}

// NewLog is an empty log whose lines are timed from start.
func NewLog(start time.Time) *Log { return &Log{start: start} }

// Start is the instant the log's times count from.
func (l *Log) Start() time.Time { return l.start }

// Add logs text at instant at.
func (l *Log) Add(at time.Time, text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, report.LogLine{T: at.Sub(l.start).Seconds(), Text: text})
}

// AddLines adds lines timed from the log's start.
func (l *Log) AddLines(lines []report.LogLine) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, lines...)
}

// Snapshot returns the lines so far, in time order.
func (l *Log) Snapshot() []report.LogLine {
	l.mu.Lock()
	out := append([]report.LogLine(nil), l.lines...)
	l.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].T < out[j].T })
	return out
}

// followRetry is how long Follow waits before it reconnects to a balancer
// whose stream ended or could not be opened (an attached lb may start later
// than the dashboard, or restart).
const followRetry = time.Second

// Follow reads a balancer's server-sent events into the log until ctx
// ends, reconnecting when the stream breaks. A new stream replays recent
// events first; those already logged are skipped by their time.
func (l *Log) Follow(ctx context.Context, p *proc.Proc) {
	var last int64 // the newest event logged, unix ns
	for {
		last = l.read(ctx, p, last)
		select {
		case <-ctx.Done():
			return
		case <-time.After(followRetry):
		}
	}
}

// read copies one event stream into the log and returns the newest event time.
func (l *Log) read(ctx context.Context, p *proc.Proc, last int64) int64 {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://"+p.Ready.Admin+"/admin/events", nil)
	if err != nil {
		return last
	}
	admin.Authorize(req)
	resp, err := http.DefaultClient.Do(req) // no timeout: the stream is long-lived
	if err != nil {
		return last
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev state.Event
		if json.Unmarshal([]byte(data), &ev) != nil || ev.TUnixNs <= last {
			continue
		}
		last = ev.TUnixNs
		if ev.Kind != "settings" {
			l.Add(time.Unix(0, ev.TUnixNs), p.Name+": "+ev.Text)
		}
	}
	return last
}
