//go:build js && wasm

// Command labwasm is lab watch in a browser tab: built with GOOS=js
// GOARCH=wasm into the module of make site's page, it runs in the page's
// Web Worker (internal/site/worker.js) and answers the dashboard's requests
// (the same paths and JSON bodies lab watch serves) with lab watch's own
// code, internal/watch, handed each request in memory: no server, no
// socket. The worker calls tick on a timer to pace playback against the
// wall clock, as lab watch's ticker does; the simulator itself reads no
// clock.
//
// The module sets one global, lblab, with:
//
//	request(method, path, body) -> {status, type, disposition, body, snapshot}
//	tick() -> {again, interval_ms, snapshot}
//
// snapshot is there when one was published since the last call (what
// GET /api/stream would send); again asks for the next tick at once (max
// speed), else after interval_ms.
package main

import (
	"bytes"
	"net/http"
	"strings"
	"syscall/js"
	"time"

	"github.com/lblab/lblab/internal/watch"
)

func main() {
	l, err := watch.DemoLab()
	if err != nil {
		panic(err)
	}
	srv, err := watch.New(watch.Options{Lab: l, Demo: true})
	if err != nil {
		panic(err)
	}
	h := srv.Handler()
	var shown uint64
	fresh := func(out map[string]any) map[string]any { // with the snapshot, if a new one was published
		if seq, data := srv.Latest(); seq != shown && data != nil {
			shown = seq
			out["snapshot"] = string(data)
		}
		return out
	}
	api := js.Global().Get("Object").New()
	api.Set("request", js.FuncOf(func(_ js.Value, args []js.Value) any {
		return fresh(serve(h, args[0].String(), args[1].String(), args[2].String()))
	}))
	api.Set("tick", js.FuncOf(func(js.Value, []js.Value) any {
		again := srv.Tick(time.Now())
		return fresh(map[string]any{"again": again, "interval_ms": watch.TickInterval.Milliseconds()})
	}))
	js.Global().Set("lblab", api)
	select {} // the worker's calls run on this module from now on
}

// serve hands one request of the page to the handler and returns its
// answer to JavaScript.
func serve(h http.Handler, method, path, body string) map[string]any {
	req, err := http.NewRequest(method, path, strings.NewReader(body))
	if err != nil {
		return map[string]any{"status": 400, "type": "application/json", "body": `{"error":"bad request","code":400}`}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	w := &response{header: http.Header{}, status: 200}
	h.ServeHTTP(w, req)
	return map[string]any{"status": w.status, "type": w.header.Get("Content-Type"),
		"disposition": w.header.Get("Content-Disposition"), "body": w.body.String()}
}

// response is an in-memory http.ResponseWriter.
type response struct {
	header http.Header
	status int
	wrote  bool
	body   bytes.Buffer
}

func (r *response) Header() http.Header { return r.header }

func (r *response) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
}

func (r *response) Write(p []byte) (int, error) {
	r.wrote = true
	return r.body.Write(p)
}
