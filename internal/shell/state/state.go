// Package state is the JSON contract of the processes' admin APIs: the
// answers GET /admin/state, GET /load and GET /admin/events of the lb,
// backend and loadgen send, which the lab controller and the dashboard
// read; and how every admin API (the processes', lab's controller's, lab
// watch's) reads a request body (DecodeStrict) and how long it has to write
// an answer (WriteTime). The shells fill these types; internal/lab and internal/watch read them without linking a shell
// (no fasthttp, no Prometheus, no zap), so the dashboard builds for
// GOOS=js GOARCH=wasm with nothing of the live processes in it.
package state
