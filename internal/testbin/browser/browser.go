// Package browser starts the headless chromium the browser tests of the
// dashboard drive (internal/lab's on the live clock, internal/watch's on
// the virtual one), the same way for both: $CHROMIUM or chromium on PATH,
// skipped when missing (a failure under CI, through testbin.Tool), with
// the flags that keep it off this machine's closed network.
package browser

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/testbin"
)

// ClickLimit is how long a test lets a click take: chromedp waits for the
// element to be drawn visible before it clicks, and beside two CPU hogs a
// page's frames came so seldom that clicks took over 10 s (issue 38's
// runs). A limit on liveness, not on speed.
const ClickLimit = 30 * time.Second

// Path finds the browser ($CHROMIUM, or chromium on PATH), or skips (fails
// under CI).
func Path(t *testing.T) string {
	t.Helper()
	if path := os.Getenv("CHROMIUM"); path != "" {
		return testbin.Tool(t, path, "apt-get install -y chromium, or unset $CHROMIUM")
	}
	return testbin.Tool(t, "chromium", "apt-get install -y chromium", "/usr/bin/chromium")
}

// Allocator starts no browser yet: it is the context a chromedp.NewContext
// starts one headless chromium in, a 1400 x 1000 window with its own
// profile, ended when the test ends.
func Allocator(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(Path(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1400, 1000),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-default-browser-check", true))
	t.Cleanup(cancel)
	return ctx
}
