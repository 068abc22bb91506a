package dash

import (
	"net/http"
	"sync"
	"time"
)

// hub hands every encoded snapshot to the stream clients. Each client has a
// one-slot mailbox that always holds the newest snapshot, so a slow client
// skips snapshots and never holds up the aggregator or other clients.
type hub struct {
	mu   sync.Mutex
	subs map[chan []byte]struct{}
	last []byte
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

// publish replaces every client's pending snapshot with data.
func (h *hub) publish(data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.last = data
	for ch := range h.subs {
		select {
		case <-ch: // drop the one the client has not taken yet
		default:
		}
		ch <- data // cannot block: the slot is empty and only we send
	}
}

// latest is the newest snapshot (nil before the first).
func (h *hub) latest() []byte {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

func (h *hub) subscribe() chan []byte {
	ch := make(chan []byte, 1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.subs[ch] = struct{}{}
	if h.last != nil {
		ch <- h.last
	}
	return ch
}

func (h *hub) unsubscribe(ch chan []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.subs, ch)
}

// streamWriteTimeout drops a client that cannot take one snapshot in time.
const streamWriteTimeout = 10 * time.Second

// serveStream sends h's snapshots as server-sent events until the client
// leaves or the server stops.
func serveStream(h *hub, w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(200)
	ch := h.subscribe()
	defer h.unsubscribe(ch)
	for {
		select {
		case <-r.Context().Done():
			return
		case data := <-ch:
			_ = rc.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
			if _, err := w.Write(append(append([]byte("data: "), data...), '\n', '\n')); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
	}
}
