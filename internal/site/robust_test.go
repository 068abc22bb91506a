package site

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// What a new user does to the static page that its first tests did not:
// a main thread that falls behind the worker at max, a link or a seed
// that is not what it should be.

// longLab plays for an hour of virtual time: at max it does not end
// while a test watches it.
const longLab = "name: long\nduration: 3600s\nservers:\n  - count: 12\nclients:\n  rate: 400\n"

// runLab plays text as Your lab's run does (POST /api/lab) and waits for
// its first frame.
func runLab(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	got := evalJS[string](t, ctx, 20*time.Second, fmt.Sprintf(`lblab.engine.request('POST', '/api/lab', JSON.stringify({file: 'long.yaml', yaml: %q})).then(r => r.status + ' ' + r.text)`, text))
	if got[:3] != "200" {
		t.Fatalf("POST /api/lab: %s", got)
	}
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'long'`)
}

// TestPageKeepsUpAtMaxWhenBehind: at max the worker publishes a snapshot
// every tick; a page whose main thread fell behind (a long task: a big
// fleet's diagram, a loaded machine) draws only the newest when it catches
// up, as lab watch's stream hands a slow page only the newest, so a
// click's effect shows after a frame or two, not after every frame missed.
// The test holds the main thread for 5 s while max plays (a snapshot
// published each tick meanwhile: 15 or more even on a loaded machine),
// then clicks pause and counts the frames drawn (the clock's changes)
// before the page says paused: without coalescing, every snapshot missed
// is drawn first.
func TestPageKeepsUpAtMaxWhenBehind(t *testing.T) {
	ctx := page(t)
	runLab(t, ctx, longLab)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`lblab.engine.request('POST', '/api/playback', JSON.stringify({max: true, paused: false}))`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('status').textContent === 'virtual · max' && parseFloat(document.getElementById('clock').textContent) > 1`)
	frames := evalJS[float64](t, ctx, 60*time.Second, `(async () => {
		const end = performance.now() + 5000;
		while (performance.now() < end) {} // the main thread busy: the worker's snapshots queue up
		let drawn = 0;
		const clock = document.getElementById('clock');
		new MutationObserver(() => drawn++).observe(clock, { childList: true, characterData: true, subtree: true });
		document.getElementById('pb-pause').click();
		while (document.getElementById('pb-pause').dataset.paused !== 'true') await new Promise((r) => setTimeout(r, 10));
		return drawn;
	})()`)
	if frames > 4 {
		t.Errorf("the page drew %v frames after falling behind before it showed the pause clicked, want the newest only (at most a few)", frames)
	}
	t.Logf("frames drawn before the pause showed: %v", frames)
}
