// Package dash is the dashboard's snapshot, built the same way on both
// clocks: the live controller (internal/lab/control) has every process's
// /admin/state each 250 ms (a Reading), lab watch (internal/watch) presents
// the simulator's world in the same formats (VirtualReading), and from
// there one code derives the bins, the views and the Snapshot the page
// draws. It also holds what both serve the page with: the snapshot stream
// (Stream), the routes both clocks serve, declared once with their typed
// answers (SharedRoutes, against the Clock each server implements; Table
// adds a clock's own), the built-in scenarios' list, and the API's request
// and answer values with their helpers (Request, Answer, Typed, TypedBody,
// Decode, ValidateDrill, JSON, Refuse, Fail), over HTTP in native builds
// (http.go: Handler, ReadRequest, Write, the stream).
//
// It links no process: no fasthttp, no Prometheus, no zap (the processes'
// answers are internal/shell/state's types), and in GOOS=js builds no
// net/http, so the dashboard builds for GOOS=js GOARCH=wasm (make site)
// with nothing of the live lab in it.
package dash
