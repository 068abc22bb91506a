package watch

import (
	"fmt"
	browsertest "github.com/lblab/lblab/internal/testbin/browser"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestWatchPageRunPlaysWhenPaused: a scenario picked and run while the
// page is paused plays from 0 (it said "running" and stayed paused at 0:
// the switch keeps the pause), and so does a lab run from Your lab.
func TestWatchPageRunPlaysWhenPaused(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent === 'virtual · paused' && !document.getElementById('scenario').disabled
		&& [...document.getElementById('scenario').options].some(o => o.value === 'herd')`)
	const playing = `!document.getElementById('status').textContent.includes('paused') && parseFloat(document.getElementById('clock').textContent) >= 0.5`

	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scenario');
		s.value = 'herd'; document.getElementById('scenario-run').click(); })()`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'herd'`)
	waitJS(t, ctx, 20*time.Second, playing)
	// the toast turns from "starting herd…" when the switch's answer comes,
	// which a loaded machine delivers after the stream already shows herd
	waitJS(t, ctx, 20*time.Second, `document.getElementById('toast').textContent === 'herd is running'`)

	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('status').textContent === 'virtual · paused'`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		document.getElementById('ownlab').open = true;
		document.getElementById('own-yaml').value = %q;
		document.getElementById('own-file').value = 'mine.yaml';
		document.getElementById('own-run').click(); })()`, "name: mine\nduration: 60s\nservers:\n  - count: 2\nclients:\n  rate: 20\n")))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'mine'`)
	waitJS(t, ctx, 20*time.Second, playing)
}
