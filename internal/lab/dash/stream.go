package dash

import "sync"

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
