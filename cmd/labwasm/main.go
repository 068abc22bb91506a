//go:build js && wasm

// Command labwasm is lab watch in a browser tab: built with GOOS=js
// GOARCH=wasm into the module of make site's page, it runs in the page's
// Web Worker (internal/site/worker.js) and answers the dashboard's requests
// (the same paths and JSON bodies lab watch serves) with lab watch's own
// code, internal/watch, handed each request in memory (watch.Server.Answer,
// the routes lab watch serves over HTTP): no server, no socket, and no
// net/http linked. The worker calls tick on a timer to pace playback against the
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
// speed), else after interval_ms. While a request runs long (compare all,
// the JSON report), the module calls the worker's postSnapshot(snapshot)
// with each snapshot showing its progress (watch.Options.Busy).
package main

import (
	"runtime/debug"
	"syscall/js"
	"time"

	"github.com/lblab/lblab/internal/lab/dash"
	_ "github.com/lblab/lblab/internal/proxies" // balancers.kind: a lab file pasted into the page may name a proxy, as lab sim takes it
	"github.com/lblab/lblab/internal/watch"
)

// gcPercent is the module's GOGC. A js/wasm program has one thread and no
// preemption: once a collection starts, its marking runs only as the
// simulator's allocations pay for it, so the mark phase (write barriers
// on) lasts seconds of a run instead of milliseconds, and the first run of
// a tab, whose heap grows from the runtime's 4 MB floor, goes through one
// collection after another (goals of 8, 6, 13 and 30 MB in bench/site.sh's
// lab, about 65 MB allocated, 50 MB live at most). At 400 the floor is
// 16 MB and that run starts one; docs/BENCHMARKS.md, "The page".
const gcPercent = 400

func main() {
	debug.SetGCPercent(gcPercent)
	l, err := watch.DemoLab()
	if err != nil {
		panic(err)
	}
	var srv *watch.Server
	var shown uint64
	fresh := func(out map[string]any) map[string]any { // with the snapshot, if a new one was published
		if seq, data := srv.Latest(); seq != shown && data != nil {
			shown = seq
			out["snapshot"] = string(data)
		}
		return out
	}
	// While a long request runs (compare all, the JSON report) the worker
	// cannot tick: the snapshots showing its progress go out through the
	// worker's postSnapshot as they are published.
	busy := func() {
		if out := fresh(map[string]any{}); out["snapshot"] != nil {
			js.Global().Call("postSnapshot", out["snapshot"])
		}
	}
	srv, err = watch.New(watch.Options{Lab: l, Demo: true, Busy: busy, Budget: watch.PageBudget()})
	if err != nil {
		panic(err)
	}
	api := js.Global().Get("Object").New()
	api.Set("request", js.FuncOf(func(_ js.Value, args []js.Value) any {
		a := srv.Answer(dash.NewRequest(args[0].String(), args[1].String(), []byte(args[2].String())))
		return fresh(map[string]any{"status": a.Status, "type": a.Type, "disposition": a.Disposition, "body": string(a.Body)})
	}))
	api.Set("tick", js.FuncOf(func(js.Value, []js.Value) any {
		again := srv.Tick(time.Now())
		return fresh(map[string]any{"again": again, "interval_ms": watch.TickInterval.Milliseconds()})
	}))
	js.Global().Set("lblab", api)
	select {} // the worker's calls run on this module from now on
}
