//go:build !js

package wasmprims

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/testbin/browser"
)

// runner runs the module's benchmarks in the tab (wasm_exec.js's Go with
// the arguments go test gives a test binary) and writes what they print
// into the page; the title says when they are done.
const runner = `<!doctype html><meta charset="utf-8"><pre id="out"></pre>
<script src="wasm_exec.js"></script><script>
const out = document.getElementById('out'), dec = new TextDecoder();
globalThis.fs.writeSync = (fd, buf) => { out.textContent += dec.decode(buf); return buf.length; };
const go = new Go();
go.argv = ['prims.wasm', '-test.run', '^$', '-test.bench', '.', '-test.count', '2'];
WebAssembly.instantiateStreaming(fetch('prims.wasm'), go.importObject)
  .then((r) => go.run(r.instance)).then(() => { document.title = 'done'; }, (e) => { document.title = 'failed: ' + e; });
</script>`

// TestPrimitivesInChromium runs this package's benchmarks, built for
// js/wasm, in headless chromium and prints their lines: bench/wasm-primitives.sh
// sets LBLAB_PRIMS_DIR to a folder with the module (prims.wasm) and the
// toolchain's wasm_exec.js.
func TestPrimitivesInChromium(t *testing.T) {
	dir := os.Getenv("LBLAB_PRIMS_DIR")
	if dir == "" {
		t.Skip("a benchmark: bench/wasm-primitives.sh runs it (LBLAB_PRIMS_DIR=folder with prims.wasm and wasm_exec.js)")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, runner) })
	mux.Handle("/", http.FileServer(http.Dir(dir)))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })

	ctx, cancel := chromedp.NewContext(browser.Allocator(t))
	t.Cleanup(cancel)
	ctx, stop := context.WithTimeout(ctx, 5*time.Minute)
	defer stop()
	if err := chromedp.Do(ctx, chromedp.Navigate("http://"+ln.Addr().String()+"/")); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.Poll[string](`document.title !== '' && document.title`, chromedp.WithPollingInterval(100*time.Millisecond)))
	if err != nil {
		t.Fatalf("waiting for the benchmarks: %v", err)
	}
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById('out').textContent`))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Print(out)
	if title != "done" {
		t.Fatalf("the module: %s", title)
	}
}
