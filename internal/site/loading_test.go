package site

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	browsertest "github.com/lblab/lblab/internal/testbin/browser"
)

// serveSlowly serves dir as serve does, but lab.wasm in 512 KB pieces 40 ms
// apart (about 0.7 s for the module), as a slow link or a busy machine
// would, so that the page's loading progress can be watched.
func serveSlowly(t *testing.T, dir string) string {
	t.Helper()
	files := http.FileServer(http.Dir(dir))
	mux := http.NewServeMux()
	mux.Handle("/", files)
	mux.HandleFunc("/"+WasmFile, func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(filepath.Join(dir, WasmFile))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		defer f.Close()
		fi, _ := f.Stat()
		w.Header().Set("Content-Type", "application/wasm")
		w.Header().Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
		buf := make([]byte, 512<<10)
		for {
			n, err := f.Read(buf)
			if n > 0 {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-r.Context().Done():
					return
				case <-time.After(40 * time.Millisecond):
				}
			}
			if err == io.EOF {
				return
			}
			if err != nil {
				return
			}
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// recordStatus keeps every text the header's status shows, from the page's
// first parse on, in window.lblabStatus.
func recordStatus() chromedp.Action[chromedp.Void] {
	const script = `window.lblabStatus = [];
		new MutationObserver((records) => {
			for (const r of records) {
				if (r.target.id !== 'status' && (r.target.parentElement || {}).id !== 'status') continue;
				for (const n of r.addedNodes) window.lblabStatus.push(n.textContent);
				if (r.type === 'characterData') window.lblabStatus.push(r.target.textContent);
			}
		}).observe(document, {subtree: true, childList: true, characterData: true});`
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, cdppage.AddScriptToEvaluateOnNewDocument, cdppage.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	})
}

var downloadRE = regexp.MustCompile(`^loading the simulator: ([0-9.]+) of ([0-9.]+) MB$`)

// TestPageShowsLoadingProgress: while the module loads, the status line
// says how far: the bytes downloaded of the module's size, growing, up to
// all of it; then compiling; then starting; then the first frame's status.
// (On a busy 2-core machine the first frame came 3.6 s after opening with
// "connecting…" shown all along; docs/site.md says what it waits for.)
func TestPageShowsLoadingProgress(t *testing.T) {
	dir := siteDir(t)
	fi, err := os.Stat(filepath.Join(dir, WasmFile))
	if err != nil {
		t.Fatal(err)
	}
	size := fmt.Sprintf("%.1f", float64(fi.Size())/1e6)
	ctx, cancel := chromedp.NewContext(browsertest.Allocator(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	run(t, ctx, 10*time.Second, recordStatus())
	run(t, ctx, 30*time.Second, chromedp.Navigate(serveSlowly(t, dir)))
	waitJS(t, ctx, 60*time.Second, `window.lblab && lblab.firstFrameMs !== null && document.getElementById('status').textContent.startsWith('virtual')`)
	shown := evalJS[[]string](t, ctx, 5*time.Second, `lblabStatus`)
	t.Logf("the status showed: %q", shown)

	// The texts in order: downloads (growing, ending at the whole module),
	// compiling, starting, then the first frame's.
	var downloads []float64
	i := 0
	for ; i < len(shown) && !strings.HasPrefix(shown[i], "loading"); i++ { // "connecting…" from the HTML
	}
	for ; i < len(shown); i++ {
		m := downloadRE.FindStringSubmatch(shown[i])
		if m == nil {
			break
		}
		if m[2] != size {
			t.Errorf("%q: the module is %s MB", shown[i], size)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		if len(downloads) > 0 && v < downloads[len(downloads)-1] {
			t.Errorf("the download went back: %q", shown)
		}
		downloads = append(downloads, v)
	}
	if len(downloads) < 3 || downloads[len(downloads)-1] != mustParse(t, size) {
		t.Fatalf("the download's progress: %v MB of %s, want at least three steps up to all of it (status: %q)", downloads, size, shown)
	}
	rest := shown[i:]
	want := []string{"compiling the simulator (" + size + " MB)…", "starting the simulator…"}
	if len(rest) < 3 || rest[0] != want[0] || rest[1] != want[1] || !strings.HasPrefix(rest[2], "virtual") {
		t.Fatalf("after the download the status showed %q, want %q then the first frame's", rest, want)
	}
	phases := evalJS[map[string]float64](t, ctx, 5*time.Second, `lblab.engine.phases`)
	if !(phases["download_ms"] > 0 && phases["download_ms"] <= phases["compile_ms"] && phases["compile_ms"] <= phases["start_ms"]) || phases["bytes"] != float64(fi.Size()) {
		t.Errorf("the load's phases %v: want download <= compile <= start, and %d bytes", phases, fi.Size())
	}
}

func mustParse(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
