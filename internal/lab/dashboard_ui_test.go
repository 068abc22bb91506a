package lab

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
)

// startUp runs Up on 127.0.0.1:0 until the test ends and returns the
// controller's address.
func startUp(t *testing.T, lab *labfile.Lab, mods ...func(*UpOptions)) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	lastControllerAddr.Store("")
	opts := UpOptions{Options: testOptions(t), Listen: "127.0.0.1:0"}
	for _, m := range mods {
		m(&opts)
	}
	go func() {
		done <- Up(ctx, lab, opts)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Up: %v", err)
		}
		lastControllerAddr.Store("")
	})
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	return waitController(t, wctx)
}

// The dashboard in a browser: every server drawn; a slowed server's share
// falls when round robin gives way to p2c; killing a server from its
// inspector shows its badge and a log line; one column at phone width; no
// JavaScript errors throughout.
func TestDashboardInBrowser(t *testing.T) {
	b := newBrowser(t)
	lab := smallLab(t, "round-robin", 3600)
	for _, kv := range [][2]string{{"servers[0].workers", "1"}} { // s1 slowed to x0.25: 31/s against its 50/s
		if err := lab.Apply(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	addr := startUp(t, lab)
	b.do(t, 60*time.Second, chromedp.Navigate("http://"+addr+"/"))
	b.wait(t, 30*time.Second, `document.querySelectorAll('#diagram .server').length === 3 && !!document.querySelector('#chart-latency .uplot')`)
	names := eval[string](t, b, `[...document.querySelectorAll('#diagram .server')].map(e => e.dataset.name).join(',')`)
	if names != "s1,s2,s3" {
		t.Fatalf("servers drawn: %q, want s1,s2,s3", names)
	}

	t.Run("legends show the latest values without hovering", func(t *testing.T) {
		// every legend value a number (not "–"), on every line chart
		b.wait(t, 10*time.Second, `(() => { const v = [...document.querySelectorAll('#charts .u-legend .u-value')];
			return v.length >= 10 && v.every(e => /^[0-9.]+( s)?$/.test(e.textContent.trim())); })()`)
		offered := eval[string](t, b, `document.querySelector('#chart-load .u-legend .u-series:nth-child(2) .u-value').textContent`)
		if v, err := strconv.ParseFloat(offered, 64); err != nil || v < 50 || v > 400 {
			t.Errorf("offered in the legend: %q, want the latest rate (about 150/s)", offered)
		}
	})

	t.Run("the tiles are the figure table's", func(t *testing.T) {
		var want []string
		for _, f := range dash.PageFigures() {
			if f.Window != "" {
				want = append(want, f.Name+"="+f.Label+" ("+map[bool]string{true: "higher", false: "lower"}[f.Higher]+")")
			}
		}
		got := eval[string](t, b, `[...document.querySelectorAll('#counters .tile')].map(e =>
			e.dataset.key + '=' + e.querySelector('.label').textContent + ' (' + e.dataset.better + ')').join('|')`)
		if got != strings.Join(want, "|") {
			t.Errorf("the counters' tiles:\n page  %s\n table %s", got, strings.Join(want, "|"))
		}
		if v := eval[string](t, b, `document.querySelector('#counters .tile[data-key="requests"] .value').textContent`); !strings.HasSuffix(v, "/s") {
			t.Errorf("the offered tile reads %q, want a rate per second", v)
		}
	})

	t.Run("one small line per server", func(t *testing.T) {
		b.wait(t, 5*time.Second, `(() => { const r = [...document.querySelectorAll('#chart-servers .spark-row')];
			return r.map(e => e.dataset.name).join(',') === 's1,s2,s3' &&
				r.every(e => !!e.querySelector('.uplot') && /^[0-9]+$/.test(e.querySelector('.spark-value').textContent)); })()`)
	})

	t.Run("slowed server's share falls under p2c", func(t *testing.T) {
		b.do(t, 5*time.Second, click(`#diagram .server[data-name="s1"]`), click(`#inspector button[data-action="slow"]`),
			click(`#inspector .close`))
		b.wait(t, 5*time.Second, `!!document.querySelector('#diagram .server[data-name="s1"] .badge.slowed')`)
		chromedp.Run(b.ctx, chromedp.Sleep(2500*time.Millisecond))
		before := share(t, b, "s1")
		if before < 0.25 {
			t.Fatalf("round robin gave the slowed s1 %.3f of the requests, want about 1/3", before)
		}
		b.do(t, 5*time.Second, chromedp.Evaluate[chromedp.Void](
			`(() => { const s = document.querySelector('#algorithm'); s.value = 'p2c'; s.dispatchEvent(new Event('change')); })()`))
		b.wait(t, 5*time.Second, `(document.querySelector('#narration .changes') || {}).textContent === 'now: algorithm p2c (was round-robin)'`)
		b.wait(t, 12*time.Second, `Number(document.querySelector('#diagram .server[data-name="s1"]').dataset.share) < 0.12`)
		t.Logf("s1's share: %.3f under round robin, %.3f under p2c", before, share(t, b, "s1"))
	})

	t.Run("kill from the inspector", func(t *testing.T) {
		b.do(t, 5*time.Second, click(`#diagram .server[data-name="s2"]`), click(`#inspector button[data-action="kill"]`))
		b.wait(t, 5*time.Second, `!!document.querySelector('#diagram .server[data-name="s2"] .badge.down')`)
		b.wait(t, 5*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('chaos: kill s2'))`)
		b.wait(t, 3*time.Second, `document.querySelector('#inspector dd').textContent.includes('DOWN')`)
		b.screenshot(t, "dashboard")
		b.do(t, 5*time.Second, click(`#inspector .close`))
	})

	t.Run("a time-boxed drill undoes itself; the target rate is drawn", func(t *testing.T) {
		target := eval[string](t, b, `[...document.querySelectorAll('#chart-load .u-legend .u-series')].map(e => e.textContent).join('|')`)
		if !strings.Contains(target, "target150") {
			t.Errorf("the load chart's legend %q has no target line at 150/s", target)
		}
		// The menu offers 10 s and more; a test cannot wait that long.
		b.do(t, 5*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.querySelector('#time-box');
			s.append(new Option('1 s', '1s')); s.value = '1s'; })()`),
			click(`#diagram .server[data-name="s3"]`), click(`#inspector button[data-action="slow"]`), click(`#inspector .close`))
		b.wait(t, 5*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('chaos: slow s3 speed=0.25 for=1s'))`)
		b.wait(t, 10*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('chaos: restore s3 (end of slow s3 speed=0.25 for=1s)'))`)
		b.wait(t, 5*time.Second, `!document.querySelector('#diagram .server[data-name="s3"] .badge.slowed')`)
		b.do(t, 5*time.Second, chromedp.Evaluate[chromedp.Void](`document.querySelector('#time-box').value = ''`))
	})

	// lab chaos set balancers.timeout=2s (the same POST /api/chaos): the
	// timeout box shows the 2 s in force, not a tick beside "100 ms"; untick
	// turns it off and names the preset, a tick sets the preset. (Its id is
	// the control's key in the snapshot.)
	t.Run("a valued box shows the value in force", func(t *testing.T) {
		box := `(() => { const i = document.querySelector('#timeout_ms'); return (i.checked ? 'on ' : 'off ') + i.parentElement.textContent.trim(); })()`
		b.do(t, 10*time.Second, chromedp.Evaluate[chromedp.Void](`lblab.engine.request('POST', '/api/chaos', JSON.stringify({action: 'set', set: {'balancers.timeout': '2s'}})).then(r => r.ok || Promise.reject(r.text))`, chromedp.EvalAwaitPromise))
		b.wait(t, 5*time.Second, box+` === 'on timeout 2 s'`)
		b.do(t, 5*time.Second, click(`#timeout_ms`))
		b.wait(t, 5*time.Second, box+` === 'off timeout 100 ms'`)
		b.do(t, 5*time.Second, click(`#timeout_ms`))
		b.wait(t, 5*time.Second, box+` === 'on timeout 100 ms'`)
		b.wait(t, 5*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('chaos: set balancers.timeout=100ms'))`)
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		defer cancel()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`fetch('/api/snapshot').then(r => r.json()).then(s => s.settings.timeout_ms)`, chromedp.EvalAwaitPromise))
		if err != nil || got != 100 {
			t.Errorf("after the tick the lab's timeout is %v ms (%v), want the preset 100", got, err)
		}
	})

	t.Run("one column at phone width", func(t *testing.T) {
		b.do(t, 5*time.Second, chromedp.EmulateViewport(390, 844))
		b.wait(t, 3*time.Second, `getComputedStyle(document.querySelector('.layout')).gridTemplateColumns.trim().split(/\s+/).length === 1`)
		b.wait(t, 3*time.Second, `document.querySelectorAll('#diagram .server').length === 3`)
		b.screenshot(t, "dashboard-phone")
	})

	if errs := b.jsErrors(); len(errs) > 0 {
		t.Errorf("JavaScript errors in the dashboard:\n%v", errs)
	}
}

// share is a server card's share of the requests over the last 2 s.
func share(t *testing.T, b *browser, name string) float64 {
	t.Helper()
	s := eval[string](t, b, fmt.Sprintf(`document.querySelector('#diagram .server[data-name="%s"]').dataset.share`, name))
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("share of %s: %q", name, s)
	}
	return v
}

// The scenario picker replaces the lab with a built-in scenario and shows
// its narration; the balancer and clients open their own inspectors.
func TestDashboardScenarioPicker(t *testing.T) {
	b := newBrowser(t)
	addr := startUp(t, smallLab(t, "p2c", 3600))
	b.do(t, 60*time.Second, chromedp.Navigate("http://"+addr+"/"))
	b.wait(t, 30*time.Second, `document.querySelectorAll('#diagram .server').length === 3 && document.querySelector('#scenario').options.length > 10`)
	b.do(t, 5*time.Second, chromedp.Evaluate[chromedp.Void](`document.querySelector('#scenario').value = 'slow-server'`),
		click(`#scenario-run`))
	b.wait(t, 15*time.Second, `document.querySelectorAll('#diagram .server').length === 5 && !!document.querySelector('#diagram .server[data-name="slow"]') && document.querySelector('#lab-name').textContent === 'slow-server'`)
	b.wait(t, 3*time.Second, `document.querySelector('#narration').textContent.includes('slow-server') && !document.querySelector('#narration').hidden`)
	b.do(t, 5*time.Second, click(`#diagram .node.balancer`))
	b.wait(t, 3*time.Second, `document.querySelector('#inspector').dataset.kind === 'balancer' && document.querySelector('#inspector dd').textContent !== ''`)
	b.do(t, 5*time.Second, click(`#inspector .close`), click(`#diagram .node.clients`))
	b.wait(t, 3*time.Second, `document.querySelector('#inspector').dataset.kind === 'clients' && !document.querySelector('#inspector').hidden`)
	b.wait(t, 3*time.Second, `[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('scenario slow-server'))`)
	b.screenshot(t, "dashboard-scenario")
	if errs := b.jsErrors(); len(errs) > 0 {
		t.Errorf("JavaScript errors in the dashboard:\n%v", errs)
	}
}
