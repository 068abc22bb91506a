package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	browsertest "github.com/lblab/lblab/internal/testbin/browser"
)

// The browser tests drive Debian's chromium (headless, through chromedp)
// against a running lab's dashboard. Without chromium they skip, except
// under CI, where they fail. DASHBOARD_SCREENSHOTS names a directory to keep
// the screenshots in (default: the test's temp dir).

// browser is one headless chromium tab that records JavaScript errors.
type browser struct {
	ctx    context.Context
	mu     sync.Mutex
	errors []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	b := &browser{}
	ctx, cancel := chromedp.NewContext(browsertest.Allocator(t), chromedp.WithListener(b.listen))
	t.Cleanup(cancel)
	b.ctx = ctx
	if err := chromedp.Do(ctx); err != nil { // starts the browser (no timeout on this first call)
		t.Fatalf("start chromium: %v", err)
	}
	return b
}

// listen keeps uncaught exceptions and console.error calls.
func (b *browser) listen(ev any) {
	var msg string
	switch e := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg = "exception: " + e.ExceptionDetails.Text
		if ex := e.ExceptionDetails.Exception; ex != nil {
			msg += " " + ex.Description
		}
	case *runtime.EventConsoleAPICalled:
		if e.Type != "error" {
			return
		}
		var parts []string
		for _, a := range e.Args {
			parts = append(parts, a.Description+string(a.Value))
		}
		msg = "console.error: " + strings.Join(parts, " ")
	default:
		return
	}
	b.mu.Lock()
	b.errors = append(b.errors, msg)
	b.mu.Unlock()
}

func (b *browser) jsErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// do runs steps with a time limit.
func (b *browser) do(t *testing.T, limit time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, limit)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.screenshot(t, "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
		t.Fatalf("browser: %v (JavaScript errors: %v)", err, b.jsErrors())
	}
}

// wait polls a JavaScript condition until it holds.
func (b *browser) wait(t *testing.T, limit time.Duration, cond string) {
	t.Helper()
	b.do(t, limit+time.Second, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(100*time.Millisecond),
			chromedp.WithPollingTimeout(limit))(ctx, tg)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return nil
	}))
}

// eval evaluates a JavaScript expression into T.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// screenshot saves the page as NAME.png in DASHBOARD_SCREENSHOTS (or the
// test's temp dir) and logs where.
func (b *browser) screenshot(t *testing.T, name string) {
	dir := os.Getenv("DASHBOARD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	t.Logf("screenshot: %s", path)
}

// click clicks the element a CSS selector finds.
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Click(chromedp.CSS(sel))
}
