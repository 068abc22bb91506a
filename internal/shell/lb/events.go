package lb

import (
	"bufio"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
	"go.uber.org/zap"

	"github.com/lblab/lblab/internal/clock"
	"github.com/lblab/lblab/internal/shell/state"
	"github.com/lblab/lblab/internal/shell/wire"
)

// Event is state.Event.
type Event = state.Event

// subBuffer is how many events a slow subscriber may lag before it misses
// some; publishing never waits for a subscriber.
const subBuffer = 256

// events keeps the last events in a ring and fans new ones out to the
// subscribers of GET /admin/events.
type events struct {
	mu   sync.Mutex
	ring []Event
	next int // ring write position once full
	subs map[*subscriber]struct{}
}

type subscriber struct {
	ch      chan Event
	dropped int // guarded by events.mu
}

func newEvents(size int) *events {
	return &events{ring: make([]Event, 0, size), subs: map[*subscriber]struct{}{}}
}

// add records e and offers it to every subscriber without blocking.
func (e *events) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.ring) < cap(e.ring) {
		e.ring = append(e.ring, ev)
	} else {
		e.ring[e.next] = ev
		e.next = (e.next + 1) % len(e.ring)
	}
	for s := range e.subs {
		select {
		case s.ch <- ev:
		default:
			s.dropped++
		}
	}
}

// subscribe returns the backlog (oldest first) and a new subscriber, taken
// together so no event falls between them.
func (e *events) subscribe() ([]Event, *subscriber) {
	e.mu.Lock()
	defer e.mu.Unlock()
	backlog := make([]Event, 0, len(e.ring))
	backlog = append(backlog, e.ring[e.next:]...)
	backlog = append(backlog, e.ring[:e.next]...)
	s := &subscriber{ch: make(chan Event, subBuffer)}
	e.subs[s] = struct{}{}
	return backlog, s
}

func (e *events) unsubscribe(s *subscriber) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.subs, s)
}

// takeDropped returns and clears how many events s missed.
func (e *events) takeDropped(s *subscriber) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := s.dropped
	s.dropped = 0
	return n
}

// publish records an event that happened at now (a pipeline instant).
func (l *LB) publish(now clock.Instant, kind, text string) {
	t := l.clock.Epoch().Add(now.Duration()).UnixNano()
	l.ev.add(Event{TUnixNs: t, Kind: kind, Text: text})
	l.note.Event(kind)
	l.log.Info("event", zap.String("kind", kind), zap.String("text", text))
}

// keepAlive is how often an idle event stream gets a comment line, which is
// also how a stream notices that its client went away.
const keepAlive = 15 * time.Second

// serveEvents streams the event log as server-sent events: the backlog
// first, then new events until the client leaves or the lb shuts down.
func (l *LB) serveEvents(ctx *fasthttp.RequestCtx) {
	ctx.SetContentType("text/event-stream")
	ctx.Response.Header.Set("Cache-Control", "no-cache")
	conn := ctx.Conn()
	// The admin listener's write timeout bounds a whole response; a stream
	// lives on, so each of its writes gets the timeout afresh.
	extend := func() { _ = conn.SetWriteDeadline(time.Now().Add(wire.DefaultWriteTime)) }
	ctx.SetBodyStreamWriter(func(w *bufio.Writer) {
		backlog, sub := l.ev.subscribe()
		defer l.ev.unsubscribe(sub)
		extend()
		for _, ev := range backlog {
			writeEvent(w, ev)
		}
		if w.Flush() != nil {
			return
		}
		tick := time.NewTicker(keepAlive)
		defer tick.Stop()
		for {
			select {
			case <-l.done:
				return
			case ev := <-sub.ch:
				extend()
				if n := l.ev.takeDropped(sub); n > 0 {
					fmt.Fprintf(w, ": %d events dropped (slow reader)\n\n", n)
				}
				writeEvent(w, ev)
			case <-tick.C:
				extend()
				w.WriteString(": keep-alive\n\n")
			}
			if w.Flush() != nil {
				return
			}
		}
	})
}

// writeEvent writes one "data: JSON" record; arrows stay readable (no
// HTML escaping of '>').
func writeEvent(w *bufio.Writer, ev Event) {
	w.WriteString("data: ")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(ev) // strings and an int: cannot fail; adds the first newline
	w.WriteString("\n")
}
