//go:build !js

package dash

import (
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/lblab/lblab/internal/shell/state"
)

// The API over HTTP, for the live controller (internal/lab) and lab
// watch's server: the page's wasm module, which hands requests in memory,
// leaves this file out and links no net/http.

// ReadRequest is req as the API's handlers read it: its body read through
// http.MaxBytesReader (over maxBody it stops there, the connection closes
// after the answer, and Decode refuses it with a 413).
func ReadRequest(w http.ResponseWriter, req *http.Request) Request {
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, maxBody))
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		body, err = nil, errTooLarge
	}
	ctx := req.Context()
	return Request{Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery, Body: body, bodyErr: err,
		Gone: func() bool { return ctx.Err() != nil }, ctx: ctx}
}

// Write sends a.
func Write(w http.ResponseWriter, a Answer) {
	// The server's write timeout counts from the request; an answer that
	// took its time to gather (GET /api/state asks every process) still gets
	// the whole timeout to be written.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(state.WriteTime))
	h := w.Header()
	if a.Type != "" {
		h.Set("Content-Type", a.Type)
	}
	if a.Disposition != "" {
		h.Set("Content-Disposition", a.Disposition)
	}
	if a.NoCache {
		h.Set("Cache-Control", "no-cache")
	}
	if a.Allow != "" {
		h.Set("Allow", a.Allow)
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
}

// HTTP serves route h over HTTP.
func HTTP(h Handle) http.HandlerFunc {
	return func(w http.ResponseWriter, req *http.Request) { Write(w, h(ReadRequest(w, req))) }
}

// Handler serves table (Table) over HTTP: each route's Handle, the
// stream's route as its Stream's events, page for what is the page's
// (nil: none), and the API's JSON 404 or 405 for what no route takes.
func Handler(table []Route, page http.Handler) http.Handler {
	rs := NewRoutes[http.Handler](true)
	for _, r := range table {
		if r.events != nil {
			rs.Add(r.Method, r.Path, r.events)
		} else {
			rs.Add(r.Method, r.Path, HTTP(r.H))
		}
	}
	return Serve(rs, page)
}

// Serve answers each request over HTTP by rs (Routes.Find): a route's
// handler, page for what is the page's (nil: none), or the API's JSON
// refusal, 404 or 405 with its Allow header.
func Serve(rs *Routes[http.Handler], page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch m := rs.Find(req.Method, req.URL.Path); {
		case m.OK:
			m.H.ServeHTTP(w, req)
		case m.Page && page != nil:
			page.ServeHTTP(w, req)
		default:
			Write(w, m.Refusal)
		}
	})
}

// ServeHTTP is GET /api/stream: server-sent events until the client leaves.
func (s *Stream) ServeHTTP(w http.ResponseWriter, r *http.Request) { serveStream(s.h, w, r) }

// subscribe and unsubscribe are a stream client's coming and going (the
// page's wasm module has none: it hands the page each snapshot itself).
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
