package site

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The static page shows a metastability map too: retry-storm picked, the
// JSON of lab sweep retry-storm ... --json loaded through the map's file
// input (POST /api/map, answered by the worker), and a click on a cell
// plays that cell in the worker; a map of another lab is refused with
// the reason.
func TestPageLoadsAMapAndPlaysACell(t *testing.T) {
	ctx := page(t)
	if got := evalJS[string](t, ctx, 20*time.Second, `lblab.engine.request('POST', '/api/scenario', '{"name":"retry-storm"}').then(r => String(r.status))`); got != "200" {
		t.Fatalf("POST /api/scenario: %s", got)
	}
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent.startsWith('retry-storm')`)
	mapFile, err := filepath.Abs("../watch/testdata/retry-storm-map.json") // chromium reads it: a path of its own cwd otherwise
	if err != nil {
		t.Fatal(err)
	}
	run(t, ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#mapview summary`)), chromedp.SetUploadFiles(chromedp.CSS(`#map-upload`), []string{mapFile}))
	waitJS(t, ctx, 20*time.Second, `document.querySelectorAll('#map-grid td').length === 6`)
	run(t, ctx, 20*time.Second, chromedp.Click(chromedp.CSS(`#map-grid .map-play[data-x="0.8"][data-y="1500ms"]`)))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('map-playing').textContent.startsWith('playing: retries at events[0].speed=0.8, events[0].for=1500ms, seed 1')`)
	got := evalJS[string](t, ctx, 20*time.Second, `lblab.engine.request('GET', '/api/source').then(r => JSON.parse(r.text).yaml)`)
	for _, want := range []string{"speed: 0.8", "for: 1.5s", "duration: 15s"} {
		if !strings.Contains(got, want) {
			t.Errorf("the lab playing after the click has no %q:\n%s", want, got)
		}
	}
	// rr-slow playing, the same file is another lab's map
	if got := evalJS[string](t, ctx, 20*time.Second, `lblab.engine.request('POST', '/api/scenario', '{"name":"rr-slow"}').then(r => String(r.status))`); got != "200" {
		t.Fatalf("POST /api/scenario: %s", got)
	}
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent.startsWith('rr-slow')`)
	run(t, ctx, 20*time.Second, chromedp.SetUploadFiles(chromedp.CSS(`#map-upload`), []string{mapFile}))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('toast').textContent.includes('retry-storm-map.json: a map of lab retry-storm, not of rr-slow')`)
}
