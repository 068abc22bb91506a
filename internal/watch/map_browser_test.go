package watch

import (
	browsertest "github.com/lblab/lblab/internal/testbin/browser"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The metastability map in the page (lab watch retry-storm --map): the
// grid of the first map's cells, coloured by the share of seeds that
// recovered, with the boundary along the cells' edges; a click on a cell
// (on the seed chosen) switches the lab to that cell's values from 0 and
// outlines it, and the run shows the trigger with those values.
func TestWatchPageMapPlaysACell(t *testing.T) {
	ctx := chromium(t)
	srv := watchingMap(t) // paused at 0: the click plays
	base := serveTest(t, srv)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('#map-grid td').length === 6`)
	if !evalJS[bool](t, ctx, `document.getElementById('mapview').open`) {
		t.Error("the map's panel is closed with a map given")
	}
	// the map of retries (testdata/retry-storm-map.json): 1/3 0.25 s | 3/3 3/3 over 0/3 0/3 | 3/3
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#map-grid .map-play')].map(b => b.dataset.x + '@' + b.dataset.y + ' ' + b.textContent).join(', ')`); got !=
		"0.5@500ms 1/3 0.25 s, 0.6@500ms 3/3 0.25 s, 0.8@500ms 3/3 0 s, 0.5@1500ms 0/3 –, 0.6@1500ms 0/3 –, 0.8@1500ms 3/3 0 s" {
		t.Errorf("the cells: %q", got)
	}
	edges := `(cls) => [...document.querySelectorAll('#map-grid td.' + cls + ' .map-play')].map(b => b.dataset.x + '@' + b.dataset.y).join(',')`
	if r, b := evalJS[string](t, ctx, `(`+edges+`)('edge-r')`), evalJS[string](t, ctx, `(`+edges+`)('edge-b')`); r != "0.5@500ms,0.6@1500ms" || b != "0.6@500ms" {
		t.Errorf("the boundary: right of %q and below %q, want right of 0.5@500ms,0.6@1500ms and below 0.6@500ms", r, b)
	}
	colours := `[...document.querySelectorAll('#map-grid td')].map(td => td.style.background).join(' ')`
	none, all := evalJS[string](t, ctx, `document.querySelector('#map-grid .map-play[data-x="0.5"][data-y="1500ms"]').parentElement.style.background`),
		evalJS[string](t, ctx, `document.querySelector('#map-grid .map-play[data-x="0.8"][data-y="1500ms"]').parentElement.style.background`)
	if none == all || none == "" {
		t.Errorf("no seed and every seed recovered are coloured %q and %q (all: %s)", none, all, evalJS[string](t, ctx, colours))
	}
	if n := evalJS[int](t, ctx, `document.querySelectorAll('#map-grid td.playing').length`); n != 0 {
		t.Errorf("%d cells outlined before a click", n)
	}
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#map-setting option')].map(o => o.value).join(',')`); got != "retries,retry-budget" {
		t.Errorf("the settings' maps: %q", got)
	}

	// seed 2, the cell at 0.6x for 1.5 s
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById('map-seed').value = '2'`),
		chromedp.Click(chromedp.CSS(`#map-grid .map-play[data-x="0.6"][data-y="1500ms"]`)))
	waitJS(t, ctx, 10*time.Second, `(() => { const b = document.querySelector('#map-grid td.playing .map-play'); return !!b && b.dataset.x === '0.6' && b.dataset.y === '1500ms' })()`)
	if got := evalJS[string](t, ctx, `document.getElementById('map-playing').textContent`); got !=
		"playing: retries at events[0].speed=0.6, events[0].for=1500ms, seed 2 (on the sweep's seeds 0 of 3 recovered)" {
		t.Errorf("the cell playing: %q", got)
	}
	srv.mu.Lock()
	l, paused := srv.sess.Lab(), srv.paused
	srv.mu.Unlock()
	if e := l.Events[0]; e.Speed != 0.6 || e.For != 1500*time.Millisecond || l.Seed != 2 || l.Duration != 15*time.Second || paused {
		t.Errorf("the lab after the click: speed %v for %v, seed %d, %v long, paused %v; want 0.6 for 1.5s, seed 2, 15s, playing",
			e.Speed, e.For, l.Seed, l.Duration, paused)
	}
	// played on, the run shows the cell's trigger at its instant
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`window.lblab.engine.request('POST', '/api/playback', '{"max":true}')`))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('log').textContent.includes('speed=0.6 for=1.5s')`)
	shot(t, ctx, "watch-map")

	// another setting's map, and a cell of it
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('map-setting'); s.value = 'retry-budget'; s.dispatchEvent(new Event('change')); })()`))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('#map-grid .map-play[data-x="0.5"][data-y="1500ms"]').textContent.startsWith('3/3')`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#map-grid .map-play[data-x="0.5"][data-y="500ms"]`)))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('map-playing').textContent.startsWith('playing: retry-budget at events[0].speed=0.5, events[0].for=500ms')`)
	srv.mu.Lock()
	l, setting := srv.sess.Lab(), srv.setting
	srv.mu.Unlock()
	if setting != "retry-budget" || l.Events[0].Speed != 0.5 || l.Events[0].For != 500*time.Millisecond {
		t.Errorf("the lab after the second click: %q, speed %v for %v; want retry-budget, 0.5 for 500ms", setting, l.Events[0].Speed, l.Events[0].For)
	}
}
