// Package state is the processes' answers as JSON: what GET /admin/state,
// GET /load and GET /admin/events of the lb, backend and loadgen send, and
// what the lab controller and the dashboard read. The shells fill these
// types; internal/lab and internal/watch read them without linking a shell
// (no fasthttp, no Prometheus, no zap), so the dashboard builds for
// GOOS=js GOARCH=wasm with nothing of the live processes in it.
package state
