package watch

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/lab/webui"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/testbin"
	browsertest "github.com/lblab/lblab/internal/testbin/browser"
)

// The page on the virtual clock in headless chromium, as the live
// dashboard's browser tests drive it (internal/lab/browser_test.go): it
// skips without chromium, except under CI, where it fails.

func chromium(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browsertest.Allocator(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

func do(t *testing.T, ctx context.Context, limit time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		shot(t, ctx, "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
		t.Fatalf("browser: %v", err)
	}
}

func waitJS(t *testing.T, ctx context.Context, limit time.Duration, cond string) {
	t.Helper()
	do(t, ctx, limit+time.Second, chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(limit))(c, tg)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return nil
	}))
}

func evalJS[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// shot saves a screenshot in $DASHBOARD_SCREENSHOTS (or the test's temp dir).
func shot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("DASHBOARD_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
	}
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

// pageAt is what the page shows: the counter tiles' text and the data
// each chart draws.
type pageAt struct {
	Clock    string
	Counters map[string]string
	Charts   map[string][][]*float64
}

func readPage(t *testing.T, ctx context.Context) pageAt {
	t.Helper()
	raw := evalJS[string](t, ctx, `JSON.stringify({
		clock: document.getElementById('clock').textContent,
		counters: Object.fromEntries([...document.querySelectorAll('#counters .tile')].map(e => [e.dataset.key, e.querySelector('.value').textContent])),
		charts: Object.fromEntries([...document.querySelectorAll('#charts .chart')].map(e => [e.id, e.plotData])),
	})`)
	var p pageAt
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// setSpeed picks a playback speed in the page's speed menu.
func setSpeed(v string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('pb-speed');
		s.value = %q; s.dispatchEvent(new Event('change')); })()`, v))
}

// stopAt asks playback to pause on reaching virtual at seconds (the API's
// pause_at_s; the page has no field for it).
func stopAt(at float64) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`fetch('/api/playback', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({pause_at_s: %g})}).then(r => r.ok || Promise.reject(r.status))`, at), chromedp.EvalAwaitPromise)
}

// pausedAt is the page paused at virtual second at.
func pausedAt(at int) string {
	return fmt.Sprintf(`document.getElementById('status').textContent === 'virtual · paused' && document.getElementById('pb-seek').value === '%d'`, at)
}

// TestWatchPageSameAtAnySpeed plays rr-slow to virtual 10 s (later on a
// machine so busy that the pause by hand came after 9.5 s) at 1x and 2x
// with a pause on the way, then again at 200x, with the page's own
// controls: the counters and every chart's data there are identical, and
// the charts are lab sim's bins.
func TestWatchPageSameAtAnySpeed(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('virtual') && !document.getElementById('playback').hidden && document.querySelectorAll('#diagram .server').length === 5`)
	if s := evalJS[string](t, ctx, `document.getElementById('status').textContent`); s != "virtual · paused" {
		t.Errorf("status %q, want virtual · paused", s)
	}

	// 1x, paused by hand on the way, then at 2x on to a stop at 10 s. The
	// stop is asked for once the hand's pause has landed: asked before, a
	// busy machine (a click's POST took seconds beside two CPU hogs) let
	// playback reach it first, and the click then played on. Where the
	// hand's pause came after 9.5 s (a click took 15 s beside the hogs),
	// the stop is the second after the next, and the story is checked
	// there.
	pressure := testbin.CPUPressure()
	do(t, ctx, 10*time.Second, setSpeed("1"), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 30*time.Second, `Number(document.getElementById('pb-seek').value) >= 1`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent === 'virtual · paused'`)
	mid := evalJS[float64](t, ctx, `Number(document.getElementById('pb-seek').value)`)
	stop := 10
	if mid >= 9.5 {
		stop = int(math.Ceil(mid)) + 1
		t.Logf("the pause by hand came at %v s (CPU pressure %.2f): the speeds are compared at %d s", mid, pressure(), stop)
	}
	if stop > 18 {
		if p := pressure(); p > testbin.Starved {
			t.Skipf("starved (CPU pressure %.2f): the pause by hand took until %v s of virtual time at 1x", p, mid)
		}
		t.Fatalf("the pause by hand came at %v s: 17 s of wall time after playback passed 1 s", mid)
	}
	time.Sleep(time.Second) // paused: the virtual clock stands still
	if again := evalJS[float64](t, ctx, `Number(document.getElementById('pb-seek').value)`); again != mid {
		t.Errorf("paused at %v s, the page moved on to %v s", mid, again)
	}
	do(t, ctx, 10*time.Second, setSpeed("2"), stopAt(float64(stop)), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 60*time.Second, pausedAt(stop))
	time.Sleep(300 * time.Millisecond) // a later snapshot changes nothing
	slow := readPage(t, ctx)
	shot(t, ctx, "watch-rr-slow-10s")

	// 200x from 0, without a pause.
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-restart")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0'`)
	do(t, ctx, 10*time.Second, setSpeed("200"), stopAt(float64(stop)), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 60*time.Second, pausedAt(stop))
	time.Sleep(300 * time.Millisecond)
	fast := readPage(t, ctx)

	if want := fmt.Sprintf("%d.0 s", stop); slow.Clock != want {
		t.Errorf("the clock shows %q at virtual %d s", slow.Clock, stop)
	}
	if !reflect.DeepEqual(slow.Counters, fast.Counters) {
		t.Errorf("counters at %d s differ:\n 2x   %v\n 200x %v", stop, slow.Counters, fast.Counters)
	}
	if !reflect.DeepEqual(slow.Charts, fast.Charts) {
		t.Errorf("the charts' data at %d s differ between 2x and 200x", stop)
	}

	// lab sim rr-slow --series --json, its first setting (the one played),
	// bins up to 10 s.
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Compare(l, l.Compare[:1], sim.Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	bins := rep.Runs[0].Series[:4*stop]
	per := func(f func(report.Bin) uint64) []*float64 {
		return column(bins, func(b report.Bin) *float64 { v := float64(f(b)) / 0.25; return &v })
	}
	quant := func(f func(report.Bin) float64) []*float64 {
		return column(bins, func(b report.Bin) *float64 {
			if b.Succeeded == 0 {
				return nil
			}
			v := f(b)
			return &v
		})
	}
	want := map[string][][]*float64{
		"chart-load": {column(bins, func(b report.Bin) *float64 { v := b.T + 0.25; return &v }),
			per(func(b report.Bin) uint64 { return b.Offered }), per(func(b report.Bin) uint64 { return b.Attempts }),
			per(func(b report.Bin) uint64 { return b.Succeeded }), column(bins, func(report.Bin) *float64 { v := 400.0; return &v })},
		"chart-latency": {nil, quant(func(b report.Bin) float64 { return b.P50 }), quant(func(b report.Bin) float64 { return b.P95 }),
			quant(func(b report.Bin) float64 { return b.P99 })},
		"chart-trouble": {nil, per(func(b report.Bin) uint64 { return b.Failed }), per(func(b report.Bin) uint64 { return b.Timeouts }),
			per(func(b report.Bin) uint64 { return b.Rejected }), per(func(b report.Bin) uint64 { return b.Retries })},
	}
	servers := [][]*float64{nil}
	for i := range bins[0].InServer {
		servers = append(servers, column(bins, func(b report.Bin) *float64 { v := float64(b.InServer[i]); return &v }))
	}
	want["chart-servers"] = servers
	for id, cols := range want {
		got := slow.Charts[id]
		if len(got) != len(cols) {
			t.Errorf("%s draws %d columns, want %d", id, len(got), len(cols))
			continue
		}
		for j, col := range cols {
			if col == nil { // the shared time column, checked with chart-load
				continue
			}
			if !sameColumn(got[j], col) {
				t.Errorf("%s column %d at %d s is not lab sim's:\n page %v\n sim  %v", id, j, stop, show(got[j]), show(col))
			}
		}
	}
	// The counters are the last 2 s: the last 8 bins summed.
	var rejected uint64
	for _, b := range bins[4*stop-8:] {
		rejected += b.Rejected
	}
	if got := slow.Counters["rejected"]; got != fmt.Sprint(rejected) {
		t.Errorf("rejections tile %q, want lab sim's %d over %d to %d s", got, rejected, stop-2, stop)
	}
	if rejected == 0 {
		t.Errorf("rr-slow at %d s should shed at s2: the check above proves little", stop)
	}
}

func column(bins []report.Bin, f func(report.Bin) *float64) []*float64 {
	out := make([]*float64, len(bins))
	for i, b := range bins {
		out[i] = f(b)
	}
	return out
}

// sameColumn compares page and lab sim values to the snapshot's 3 decimals.
func sameColumn(got, want []*float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if (got[i] == nil) != (want[i] == nil) {
			return false
		}
		if got[i] != nil && *got[i] != math.Round(*want[i]*1000)/1000 {
			return false
		}
	}
	return true
}

func show(col []*float64) []any {
	out := make([]any, len(col))
	for i, v := range col {
		if v == nil {
			out[i] = nil
		} else {
			out[i] = *v
		}
	}
	return out
}

// TestWatchPageGreysAbandonedAttempts: in retry-storm attempts time out at
// the client while they wait at the servers. Seeked to 2 s (the fleet keeps
// up) no queue bar is grey; at 8 s, the storm the slowdown from 5 s set
// off, most are, and the legend says what grey means.
func TestWatchPageGreysAbandonedAttempts(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "retry-storm", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('virtual') && document.querySelectorAll('#diagram .server').length > 0`)
	const bars = `JSON.stringify([document.querySelectorAll('#diagram .queue i.q').length, document.querySelectorAll('#diagram .queue i.q.abandoned').length])`
	seek := func(at float64) [2]int {
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: %g})})`, at)))
		waitJS(t, ctx, 20*time.Second, fmt.Sprintf(`document.getElementById('pb-seek').value === '%g'`, at))
		time.Sleep(200 * time.Millisecond)
		var n [2]int
		if err := json.Unmarshal([]byte(evalJS[string](t, ctx, bars)), &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := seek(2); n[1] != 0 {
		t.Errorf("at 2 s %d of %d queue bars are grey, want none", n[1], n[0])
	}
	if hidden := evalJS[bool](t, ctx, `document.getElementById('legend-abandoned').hidden`); !hidden {
		t.Error("the legend explains grey bars before there are any")
	}
	n := seek(8)
	if n[0] < 20 || n[1]*2 < n[0] {
		t.Errorf("at 8 s %d of %d queue bars are grey, want most", n[1], n[0])
	}
	if hidden := evalJS[bool](t, ctx, `document.getElementById('legend-abandoned').hidden`); hidden {
		t.Error("grey bars without the legend that explains them")
	}
	shot(t, ctx, "watch-retry-storm-abandoned")
}

// TestWatchPageComparesAll: "compare all" on rr-slow ranks its six
// compare settings as lab sim ranks them, the watched one marked; after a
// drill the ranking is lab sim's on the lab with that drill.
func TestWatchPageComparesAll(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-compare')`)
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	ranked := func(l *labfile.Lab) string {
		rep, err := sim.Compare(l, l.Compare, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, r := range rep.Ranked() {
			names = append(names, r.Name)
		}
		return strings.Join(names, ",")
	}
	const rows = `[...document.querySelectorAll('#compare tbody tr')].map(e => e.dataset.name).join(',')`
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `document.querySelectorAll('#compare tbody tr').length === 6`)
	if got, want := evalJS[string](t, ctx, rows), ranked(l); got != want {
		t.Errorf("the page ranks %s, lab sim %s", got, want)
	}
	if w := evalJS[string](t, ctx, `document.querySelector('#compare tr.watched').dataset.name`); w != "round-robin" {
		t.Errorf("the watched setting is marked %q, want round-robin", w)
	}
	if !strings.HasPrefix(evalJS[string](t, ctx, `document.querySelector('#compare tbody tr').dataset.name`), "least") &&
		!strings.HasPrefix(evalJS[string](t, ctx, `document.querySelector('#compare tbody tr').dataset.name`), "p2c") {
		t.Errorf("rr-slow's winner should be load-aware, got %s", evalJS[string](t, ctx, rows))
	}
	shot(t, ctx, "watch-rr-slow-compare")

	// A drill at 2 s (s4 slowed too) joins every setting's script.
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 2})}).then(() =>
		fetch('/api/chaos', {method: 'POST', body: JSON.stringify({action: 'slow', target: 's4', speed: 0.25})}))`, chromedp.EvalAwaitPromise))
	saved := l.Clone()
	saved.Events = append([]labfile.Event{{At: 2 * time.Second, Action: labfile.ActionSlow, Target: "s4", Speed: 0.25}}, saved.Events...)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `document.querySelector('#compare .note').textContent.includes('1 drill')`)
	if got, want := evalJS[string](t, ctx, rows), ranked(saved); got != want {
		t.Errorf("after the drill the page ranks %s, lab sim on the lab with it %s", got, want)
	}
}

// TestWatchPageKeepsThePickersChoice: a scenario chosen in the picker and
// not yet run stays chosen after the picker loses focus (it used to snap
// back to the running one within a second, so "run scenario" restarted
// the wrong lab); running it then plays it.
//
// The choice is made both before the page drew its first snapshot (the
// stream held back until then: the picker once took the first snapshot's
// scenario for a switch, and CI saw it snap back when the stream was slower
// than the scenario list) and after snapshots went by.
func TestWatchPageKeepsThePickersChoice(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", false)
	do(t, ctx, 10*time.Second, holdStream())
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('scenario').value === 'rr-slow' && !document.getElementById('scenario').disabled`)
	choose := func(name string) {
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scenario');
			s.focus(); s.value = '`+name+`'; s.dispatchEvent(new Event('change')); s.blur(); document.body.focus(); })()`))
	}
	choose("herd")
	if name := evalJS[string](t, ctx, `document.getElementById('lab-name').textContent`); name != "" {
		t.Fatalf("the page drew a snapshot of %q before the stream was let go", name)
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`window.lblabRelease()`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('lab-name').textContent === 'rr-slow'`)
	time.Sleep(750 * time.Millisecond) // three more snapshots of rr-slow go by
	if v := evalJS[string](t, ctx, `document.getElementById('scenario').value`); v != "herd" {
		t.Fatalf("the picker went back to %q after losing focus (chosen before the first snapshot)", v)
	}
	choose("breaker")
	time.Sleep(1500 * time.Millisecond) // six snapshots of rr-slow go by
	if v := evalJS[string](t, ctx, `document.getElementById('scenario').value`); v != "breaker" {
		t.Fatalf("the picker went back to %q after losing focus", v)
	}
	choose("herd")
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#scenario-run")))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('lab-name').textContent === 'herd'`)
}

// holdStream makes the next page's snapshot stream hold every message until
// the page calls window.lblabRelease(): a test can then act on the page
// before its first snapshot is drawn, whatever the machine's speed.
func holdStream() chromedp.Action[chromedp.Void] {
	const script = `(() => {
		const Real = window.EventSource;
		window.lblabHeld = [];
		let held = true, deliver = null;
		window.lblabRelease = () => { held = false; for (const e of window.lblabHeld.splice(0)) deliver && deliver(e); };
		window.EventSource = function (url) {
			const es = new Real(url);
			es.addEventListener('message', (e) => { if (held) window.lblabHeld.push(e); else if (deliver) deliver(e); });
			return { set onmessage(f) { deliver = f; }, set onerror(f) { es.onerror = f; }, close() { es.close(); } };
		};
	})()`
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: script})
		return err
	})
}

// TestWatchPageStepSeekSave: the page's step button moves one 250 ms bin at
// a time and pauses; the seek slider replays to the instant chosen; the
// save link downloads the lab file with the drill taken at that instant.
func TestWatchPageStepSeekSave(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-step')`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0.25'`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0.5' && document.getElementById('clock').textContent === '0.5 s'`)
	if n := evalJS[int](t, ctx, `document.querySelector('#chart-load').plotData[0].length`); n != 2 {
		t.Errorf("after two steps the charts have %d bins, want 2", n)
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('pb-seek');
		s.value = '7.5'; s.dispatchEvent(new Event('change')); })()`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '7.5 s' && document.querySelector('#chart-load').plotData[0].length === 30`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#controls button[data-action="kill"]`)))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-drills').textContent.includes('7.5s: kill s1')`)
	c, cancelEval := context.WithTimeout(ctx, 20*time.Second)
	yaml, err := chromedp.Run(c, chromedp.Evaluate[string](`fetch(document.getElementById('pb-save').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	cancelEval()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := labyaml.Parse("saved.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("the saved lab file does not parse: %v", err)
	}
	if n := len(saved.Events); n != 2 || saved.Events[1].At != 7500*time.Millisecond || saved.Events[1].String() != "kill s1" {
		t.Errorf("the saved script: %v, want rr-slow's event and kill s1 at 7.5 s", saved.Events)
	}
}

// TestWatchPageFiltersBalancerLines: in breaker (its breakers on) s2 fails
// at 5 s ("next event" from 0 stops there) and the breakers flap until it
// recovers at 12 s; the log's filter hides the breaker lines and keeps the
// script's, and shows them again.
func TestWatchPageFiltersBalancerLines(t *testing.T) {
	ctx := chromium(t)
	l, _ := scenarioLab(t, "breaker")
	base := startWatchLab(t, l, "breaker", "breaker", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-seek') && !!document.getElementById('log-hide-balancers')`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 14})})`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('clock').textContent === '14.0 s'`)
	const lines = `JSON.stringify([...document.querySelectorAll('#log li .text')].map(e => e.textContent))`
	read := func() []string {
		var out []string
		if err := json.Unmarshal([]byte(evalJS[string](t, ctx, lines)), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	count := func(ls []string, prefix string) (n int) {
		for _, l := range ls {
			if strings.HasPrefix(l, prefix) {
				n++
			}
		}
		return n
	}
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-restart")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '0.0 s'`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-next"))) // "next event": s2 fails at 5 s
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '5.0 s' && document.querySelector('#log li .text').textContent === 'fail s2'`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 14})})`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('clock').textContent === '14.0 s'`)
	all := read()
	if count(all, "breaker ") < 3 || count(all, "fail s2") != 1 {
		t.Fatalf("breaker at 14 s should log flaps and the failure: %v", all)
	}
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#log-hide-balancers")))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('.log-hidden').textContent.includes('hidden')`)
	filtered := read()
	if count(filtered, "breaker ") != 0 || count(filtered, "fail s2") != 1 || count(filtered, "recover s2") != 1 {
		t.Errorf("filtered log: %v, want the script's lines and no breaker lines", filtered)
	}
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#log-hide-balancers")))
	if again := read(); !reflect.DeepEqual(again, all) {
		t.Errorf("unfiltered again the log shows %d lines, first %d", len(again), len(all))
	}
}

// TestWatchPageShowsTimedCaptions: rr-slow's captions appear as the
// virtual clock passes their instants (seek and play alike).
func TestWatchPageShowsTimedCaptions(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Captions) < 3 {
		t.Fatalf("rr-slow has %d captions, want at least 3", len(l.Captions))
	}
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-seek')`)
	caption := func() string {
		return evalJS[string](t, ctx, `document.getElementById('caption').hidden ? '' : document.querySelector('#caption .caption-text').textContent`)
	}
	for i, c := range l.Captions {
		at := c.At.Seconds() + 0.5
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: %g})})`, at)))
		waitJS(t, ctx, 20*time.Second, fmt.Sprintf(`document.getElementById('clock').textContent === '%.1f s'`, at))
		if got := caption(); got != c.Text {
			t.Errorf("at %v s the caption is %q, want captions[%d] %q", at, got, i, c.Text)
		}
	}
	// Playing across an instant changes the caption too (at 1x: captions[1]
	// shows for 3 s of wall time; at 5x its 0.6 s passed unseen by a page
	// drawing slowly on a loaded machine).
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 4.5, speed: 1, paused: false})})`))
	waitJS(t, ctx, 20*time.Second, fmt.Sprintf(`document.querySelector('#caption .caption-text').textContent === %q`, l.Captions[1].Text))
}

// TestWatchPageDemoLoopsUntilTouched: the demo (played here at 200x) starts
// again at its end while the page is left alone, says so in the status,
// and the first click anywhere stops the loop.
func TestWatchPageDemoLoopsUntilTouched(t *testing.T) {
	ctx := chromium(t)
	l, err := DemoLab()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := New(Options{Lab: l, Demo: true, Speed: 200})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, ln) }()
	t.Cleanup(func() { cancel(); <-done })
	do(t, ctx, 60*time.Second, chromedp.Navigate("http://"+ln.Addr().String()+"/"))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent === 'virtual · demo (touch to stop)'`)
	var p dash.Playback
	deadline := time.Now().Add(30 * time.Second)
	for p.Loops < 1 {
		call(t, "GET", "http://"+ln.Addr().String()+"/api/playback", nil, &p)
		if time.Now().After(deadline) {
			t.Fatalf("the untouched demo did not start again: %+v", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#counters"))) // a touch, not a control
	waitJS(t, ctx, 10*time.Second, `!document.getElementById('status').textContent.includes('demo')`)
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent === 'virtual · ended'`)
	call(t, "GET", "http://"+ln.Addr().String()+"/api/playback", nil, &p)
	loops := p.Loops
	time.Sleep(500 * time.Millisecond)
	call(t, "GET", "http://"+ln.Addr().String()+"/api/playback", nil, &p)
	if p.Demo || p.Loops != loops || !p.Ended {
		t.Errorf("after the touch: %+v, want the run ended and no more loops", p)
	}
}

// TestWatchPageFollowsRequests: at 4 requests/s every request is a dot.
// Before a request starts there is none of it; 2 ms after its start it is
// on the wire to the balancer; once there it sits in the server lab sim's
// export says answered it; clicked, it tells its story (the server, its
// queue and service times); after its end its dot is gone and the story
// ends with the outcome and latency of lab sim's export.
func TestWatchPageFollowsRequests(t *testing.T) {
	l, err := labyaml.Parse("follow.yaml", []byte(`
name: follow
seed: 5
duration: 10s
clients: {rate: 4, work: {dist: constant, mean: 150ms}}
balancers: {algorithm: round-robin}
servers: [{count: 2, workers: 1}]
`))
	if err != nil {
		t.Fatal(err)
	}
	// lab sim --out: each request's start, latency and server.
	var csvOut bytes.Buffer
	out := report.NewRequestsCSV(&csvOut)
	if _, err := sim.Run(l, sim.Options{Logs: out.Run}); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&csvOut).ReadAll()
	if err != nil || len(rows) < 20 {
		t.Fatalf("lab sim's export: %d rows, %v", len(rows), err)
	}
	var row []string // the first request that starts after 2 s
	for _, r := range rows[1:] {
		if v, _ := strconv.ParseFloat(r[4], 64); v > 2000 {
			row = r
			break
		}
	}
	seq, startMs, latMs, server := row[1], mustFloat(t, row[4]), mustFloat(t, row[6]), row[9]

	ctx := chromium(t)
	base := startWatchLab(t, l, "", "", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('virtual') && document.querySelectorAll('#diagram .server').length === 2`)
	seek := func(at float64) {
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: %.3f})})`, at)))
		waitJS(t, ctx, 20*time.Second, fmt.Sprintf(`Math.abs(Number(document.querySelector('#diagram .trips').dataset.t) - %.3f) < 1e-6`, at))
	}
	dot := fmt.Sprintf(`document.querySelector('#diagram .trips .trip[data-seq="%s"]:not(.ended)')`, seq)
	stage := fmt.Sprintf(`(() => { const d = %s; return d ? d.dataset.stage + ' ' + d.getAttribute('class') : 'none'; })()`, dot)

	seek((startMs - 5) / 1000)
	if s := evalJS[string](t, ctx, stage); s != "none" {
		t.Errorf("5 ms before request %s starts its dot is %q", seq, s)
	}
	seek((startMs + 2) / 1000)
	if s := evalJS[string](t, ctx, stage); s != "out trip first" {
		t.Errorf("2 ms after request %s started its dot is %q, want on its way out, a first attempt", seq, s)
	}
	seek((startMs + 12) / 1000) // two 5 ms hops: at its server
	if s := evalJS[string](t, ctx, stage); s != "server trip first" {
		t.Fatalf("12 ms after request %s started its dot is %q, want at its server", seq, s)
	}
	// on the card (once the move is eased in)
	waitJS(t, ctx, 5*time.Second, fmt.Sprintf(`(() => { const d = %s.getBoundingClientRect(), c = document.querySelector('#diagram .server[data-name="%s"]').getBoundingClientRect();
		const x = d.left + d.width / 2, y = d.top + d.height / 2; return x >= c.left && x <= c.right && y >= c.top && y <= c.bottom; })()`, dot, server))
	shot(t, ctx, "watch-follow-requests")
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](dot+`.dispatchEvent(new MouseEvent('click', {bubbles: true}))`))
	waitJS(t, ctx, 10*time.Second, `!document.getElementById('story').hidden`)
	story := evalJS[string](t, ctx, `document.getElementById('story').textContent`)
	for _, want := range []string{"Request #" + seq, "lb1 picked " + server, "at " + server + " since", "pending"} {
		if !strings.Contains(story, want) {
			t.Errorf("the story of request %s during its stay lacks %q:\n%s", seq, want, story)
		}
	}
	shot(t, ctx, "watch-request-story")

	seek((startMs + latMs + 400) / 1000)
	if s := evalJS[string](t, ctx, stage); s != "none" {
		t.Errorf("400 ms after request %s ended its dot is %q", seq, s)
	}
	story = evalJS[string](t, ctx, `document.getElementById('story').textContent`)
	for _, want := range []string{server + ": queued", "served 150 ms, ok", "answer back at",
		fmt.Sprintf("succeeded at %.3f s, after %s", (startMs+latMs)/1000, msText(latMs))} {
		if !strings.Contains(story, want) {
			t.Errorf("the story of request %s after its end lacks %q:\n%s", seq, want, story)
		}
	}
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// msText is the page's ms() (web/src/dom.js) for a latency.
func msText(x float64) string {
	switch {
	case x >= 1000:
		return fmt.Sprintf("%.2f s", x/1000)
	case x >= 100:
		return fmt.Sprintf("%.0f ms", x)
	case x >= 10:
		return fmt.Sprintf("%.1f ms", x)
	}
	return fmt.Sprintf("%.2f ms", x)
}

// TestWatchPageComparesOverSeedsInSmallMultiples: before compare all
// there is no ranking; on one seed each setting gets a small chart of its
// p99 per bin, lab sim's series, all on the same axes; over 5 seeds the
// table shows each p99 with its interval and lab sim --seeds 5's verdicts,
// in its order.
func TestWatchPageComparesOverSeedsInSmallMultiples(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-compare') && !!document.getElementById('pb-seeds')`)
	if evalJS[bool](t, ctx, `!!document.getElementById('compare')`) {
		t.Fatal("a ranking before compare all")
	}
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `document.querySelectorAll('#compare-multiples .multiple').length === 6`)
	var multiples map[string][][]*float64
	if err := json.Unmarshal([]byte(evalJS[string](t, ctx, `JSON.stringify(Object.fromEntries([...document.querySelectorAll('#compare-multiples .multiple')].map(e => [e.dataset.name, e.querySelector('svg').plotData])))`)), &multiples); err != nil {
		t.Fatal(err)
	}
	rep, err := sim.Compare(l, l.Compare, sim.Options{Series: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Runs {
		got := multiples[r.Name]
		want := [][]*float64{
			column(r.Series, func(b report.Bin) *float64 { v := b.T + 0.25; return &v }),
			column(r.Series, func(b report.Bin) *float64 {
				if b.Succeeded == 0 {
					return nil
				}
				v := b.P99
				return &v
			})}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("the small multiple of %s is not lab sim's p99 series", r.Name)
		}
	}
	if n := evalJS[int](t, ctx, `new Set([...document.querySelectorAll('#compare-multiples svg')].map(e => e.getAttribute('viewBox'))).size`); n != 1 {
		t.Errorf("the small multiples have %d different frames, want one", n)
	}
	shot(t, ctx, "watch-compare-multiples")

	// Over 5 seeds: lab sim --seeds 5's ranking and verdicts.
	seeds := []uint64{1, 2, 3, 4, 5}
	var reps []*report.Report
	for _, seed := range seeds {
		sl := l.Clone()
		sl.Seed = seed
		r, err := sim.Compare(sl, l.Compare, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, r)
	}
	combined, err := report.CombineSeeds(seeds, reps)
	if err != nil {
		t.Fatal(err)
	}
	var wantOrder, wantVerdicts []string
	for i, s := range report.Ranked(combined.Seeds.Settings, "p99") {
		wantOrder = append(wantOrder, s.Name)
		if i < len(combined.Seeds.Ranking) {
			v := combined.Seeds.Ranking[i]
			on := "" // a pair across the ranking's goodput line is judged on goodput (report.Rank)
			if v.Figure != "p99" {
				on = " on " + v.Figure
			}
			if v.Distinguishable {
				wantVerdicts = append(wantVerdicts, fmt.Sprintf("better than %s%s (%d of %d seeds)", v.Worse, on, v.Wins, v.Wins+v.Losses))
			} else {
				wantVerdicts = append(wantVerdicts, "not told apart from "+v.Worse+on)
			}
		}
	}
	wantVerdicts = append(wantVerdicts, "")
	evalJS[bool](t, ctx, `(() => { window.lblabShown = []; const b = document.getElementById('pb-compare');
		new MutationObserver(() => lblabShown.push(b.textContent)).observe(b, {childList: true, characterData: true, subtree: true}); return true; })()`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById('pb-seeds').value = '5'`), chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `!!document.querySelector('#compare table.ranking.seeds') && document.querySelectorAll('#compare tbody tr').length === 6`)
	// while it ran, the stream's snapshots carried its progress to the button
	if shown := evalJS[[]string](t, ctx, `lblabShown`); !slices.ContainsFunc(shown, func(x string) bool { return strings.HasPrefix(x, "comparing… ") && strings.HasSuffix(x, "%") }) {
		t.Errorf("the compare all button said %q while it ran, want its share done (comparing… N%%)", shown)
	}
	got := evalJS[[]string](t, ctx, `[...document.querySelectorAll('#compare tbody tr')].map(e => e.dataset.name)`)
	if !reflect.DeepEqual(got, wantOrder) {
		t.Errorf("over 5 seeds the page ranks %v, lab sim --seeds 5 %v", got, wantOrder)
	}
	verdicts := evalJS[[]string](t, ctx, `[...document.querySelectorAll('#compare tbody td.verdict')].map(e => e.textContent)`)
	if !reflect.DeepEqual(verdicts, wantVerdicts) {
		t.Errorf("verdicts %q, lab sim --seeds 5's %q", verdicts, wantVerdicts)
	}
	if ci := evalJS[string](t, ctx, `document.querySelector('#compare tbody td.ci').textContent`); !strings.Contains(ci, "[") {
		t.Errorf("the best p99 %q has no interval", ci)
	}
	shot(t, ctx, "watch-compare-seeds")
}

// wireProblems lists what is wrong with the diagram's wires: a wire
// that passes over a server card other than at its own end, a server
// without exactly one wire, a ✕ far from its card or on top of a card.
const wireProblems = `(() => {
	const bad = [];
	const cards = [...document.querySelectorAll('#diagram .server')].map(e => ({name: e.dataset.name, r: e.getBoundingClientRect()}));
	const svg = document.querySelector('#diagram .wires').getBoundingClientRect();
	const inside = (r, x, y, m) => x > r.left + m && x < r.right - m && y > r.top + m && y < r.bottom - m;
	for (const c of cards) {
		const lines = [...document.querySelectorAll('#diagram .wires line')].filter(l => l.dataset.name === c.name);
		if (lines.length !== 1) bad.push(c.name + ': ' + lines.length + ' wires');
	}
	for (const l of document.querySelectorAll('#diagram .wires line')) {
		const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map(k => Number(l.getAttribute(k)));
		for (let k = 1; k < 40; k++) { // sample the segment, its ends excluded
			const x = svg.left + x1 + (x2 - x1) * k / 40, y = svg.top + y1 + (y2 - y1) * k / 40;
			const over = cards.find(c => inside(c.r, x, y, 2));
			if (over) { bad.push('the wire ' + (l.dataset.name || 'in') + ' passes over ' + over.name); break; }
		}
	}
	for (const x of document.querySelectorAll('#diagram .wires .cross')) {
		const r = x.getBoundingClientRect(), cx = r.left + r.width / 2, cy = r.top + r.height / 2;
		const own = cards.find(c => c.name === x.dataset.name);
		const over = cards.find(c => inside(c.r, cx, cy, 0));
		if (over) bad.push('the ✕ of ' + x.dataset.name + ' is on ' + over.name);
		if (!own) { bad.push('a ✕ for ' + x.dataset.name + ', which has no card'); continue; }
		const dx = Math.max(own.r.left - cx, 0, cx - own.r.right), dy = Math.max(own.r.top - cy, 0, cy - own.r.bottom);
		if (Math.hypot(dx, dy) > 30) bad.push('the ✕ of ' + x.dataset.name + ' floats ' + Math.round(Math.hypot(dx, dy)) + ' px from its card');
	}
	return bad;
})()`

// overflowProblems lists what does not fit the viewport's width: the
// page scrolling sideways, a panel wider than its box, a control out of
// reach.
const overflowProblems = `(() => {
	const bad = [], w = document.documentElement.clientWidth;
	if (document.documentElement.scrollWidth > w + 1) bad.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + w + ' px viewport');
	for (const p of document.querySelectorAll('.panel, .top, .narration, .caption'))
		if (p.scrollWidth > p.clientWidth + 1) bad.push((p.className) + ' overflows: ' + p.scrollWidth + ' > ' + p.clientWidth);
	for (const c of document.querySelectorAll('#controls button, #controls select, #controls input, #playback button, #playback select, #playback input, #picker select, #picker button')) {
		const r = c.getBoundingClientRect();
		if (r.width === 0 || r.left < -1 || r.right > w + 1) bad.push((c.id || c.textContent) + ' is out of reach: ' + Math.round(r.left) + ' to ' + Math.round(r.right));
	}
	return bad;
})()`

// TestWatchPageFitsManyServersAndAPhone: with eight servers (s8 killed
// at 1 s, and out of the picks once the health checks see it) no wire passes over
// a card and s8's ✕ is next to it, on a desktop and at 390x844, where
// nothing is wider than the viewport and every control can be reached.
func TestWatchPageFitsManyServersAndAPhone(t *testing.T) {
	l, err := labyaml.Parse("eight.yaml", []byte(`
name: eight
seed: 2
duration: 10s
clients: {rate: 200, work: {dist: exponential, mean: 5ms}}
balancers: {algorithm: least-outstanding, health: {enabled: true, interval: 500ms}}
servers: [{count: 8, workers: 2}]
events:
  - {at: 1s, action: kill, target: s8}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx := chromium(t)
	base := startWatchLab(t, l, "", "", true)
	check := func(name string, w, h int64) {
		do(t, ctx, 10*time.Second, chromedp.EmulateViewport(w, h))
		do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
		waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('#diagram .server').length === 8 && !!document.querySelector('#diagram .wires line')`)
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 4})})`))
		waitJS(t, ctx, 20*time.Second, `document.getElementById('pb-seek').value === '4' && document.querySelectorAll('#diagram .wires .cross').length === 1`)
		time.Sleep(300 * time.Millisecond) // the wires follow the layout
		if bad := evalJS[[]string](t, ctx, wireProblems); len(bad) > 0 {
			t.Errorf("%s: the diagram's wires:\n%s", name, strings.Join(bad, "\n"))
		}
		if bad := evalJS[[]string](t, ctx, overflowProblems); len(bad) > 0 {
			t.Errorf("%s: does not fit:\n%s", name, strings.Join(bad, "\n"))
		}
		shot(t, ctx, "watch-eight-"+name)
	}
	check("desktop", 1400, 1000)
	check("phone", 390, 844)
}

// TestWatchPageTicksAreDistinct: in the first seconds the charts' ticks
// are half a second apart; no axis repeats a label ("1 1 2 2"), then or
// later.
func TestWatchPageTicksAreDistinct(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('virtual') && document.querySelectorAll('#diagram .server').length === 5`)
	for _, at := range []float64{1.5, 2.5, 12} {
		do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: %g})})`, at)))
		waitJS(t, ctx, 20*time.Second, fmt.Sprintf(`document.getElementById('pb-seek').value === '%g' && Object.keys(document.getElementById('chart-load').tickLabels || {}).length === 2`, at))
		time.Sleep(300 * time.Millisecond)
		var labels map[string]map[string][]string
		if err := json.Unmarshal([]byte(evalJS[string](t, ctx, `JSON.stringify(Object.fromEntries(['latency', 'load', 'trouble'].map(id => [id, document.getElementById('chart-' + id).tickLabels])))`)), &labels); err != nil {
			t.Fatal(err)
		}
		for chart, axes := range labels {
			for axis, all := range axes {
				var ls []string // a log axis leaves some ticks unlabelled
				for _, l := range all {
					if l != "" {
						ls = append(ls, l)
					}
				}
				if len(ls) < 2 {
					t.Errorf("at %g s the %s chart's %s axis has %d labels", at, chart, axis, len(ls))
				}
				for i := 1; i < len(ls); i++ {
					if ls[i] == ls[i-1] {
						t.Errorf("at %g s the %s chart's %s axis repeats a label: %q", at, chart, axis, ls)
						break
					}
				}
			}
		}
		if at == 1.5 {
			shot(t, ctx, "watch-ticks-1.5s")
		}
	}
}

// TestDashboardStatusSaysWhatDoesNotAnswer drives the page against a
// stand-in controller that streams live snapshots (a lab watch snapshot
// without its virtual fields): while every process answers the status is
// "live"; while the snapshots say no process could be read it says so;
// when the snapshots stop (the stream stays open) it says the controller
// is not answering; when they come again it is "live" again.
func TestDashboardStatusSaysWhatDoesNotAnswer(t *testing.T) {
	var live map[string]any
	base := startWatch(t, "rr-slow", true)
	for i := 0; call(t, "GET", base+"/api/snapshot", nil, &live) != 200; i++ { // the first is published once Serve runs
		if i == 100 {
			t.Fatal("no snapshot from lab watch")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range []string{"virtual", "playback", "trips"} {
		delete(live, k)
	}
	live["mode"] = "up"
	good, err := json.Marshal(live)
	if err != nil {
		t.Fatal(err)
	}
	var dead map[string]any
	if err := json.Unmarshal(good, &dead); err != nil {
		t.Fatal(err)
	}
	for _, s := range dead["servers"].([]any) {
		s.(map[string]any)["error"], s.(map[string]any)["backend"] = "connection refused", nil
	}
	for _, b := range dead["balancers"].([]any) {
		b.(map[string]any)["error"] = "connection refused"
	}
	dead["clients"].(map[string]any)["error"] = "connection refused"
	bad, err := json.Marshal(dead)
	if err != nil {
		t.Fatal(err)
	}
	var phase atomic.Int32 // 0 good snapshots, 1 bad ones, 2 none
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/stream", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for {
			switch phase.Load() {
			case 0:
				fmt.Fprintf(w, "data: %s\n\n", good)
			case 1:
				fmt.Fprintf(w, "data: %s\n\n", bad)
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	})
	mux.HandleFunc("GET /api/", func(w http.ResponseWriter, _ *http.Request) {
		dash.Write(w, dash.Refuse(404, "not here"))
	})
	mux.Handle("GET /", webui.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() {
		c, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(c)
		srv.Close()
	})

	ctx := chromium(t)
	const status = `document.getElementById('status').textContent`
	do(t, ctx, 60*time.Second, chromedp.Navigate("http://"+ln.Addr().String()+"/"))
	waitJS(t, ctx, 20*time.Second, status+` === 'live' && document.querySelectorAll('#diagram .server').length === 5`)
	phase.Store(1)
	waitJS(t, ctx, 10*time.Second, status+` === 'no process answers'`)
	if title := evalJS[string](t, ctx, `document.getElementById('status').title`); !strings.Contains(title, "s1") || !strings.Contains(title, "loadgen") {
		t.Errorf("the status's title %q does not name what does not answer", title)
	}
	phase.Store(2)
	waitJS(t, ctx, 10*time.Second, status+`.startsWith('the controller is not answering')`)
	shot(t, ctx, "dashboard-not-answering")
	phase.Store(0)
	waitJS(t, ctx, 10*time.Second, status+` === 'live'`)
}

// TestWatchPageShapesServers: s1 runs at speed 1; the speed menu sets it
// to 2 (twice as fast: the inspector says so and the log has the drill),
// then to 0.2 (five times slower: SLOWED); add server with speed 2 and 4
// workers adds s6 so; the fleet form then rebuilds rr-slow as eight
// servers of three workers and plays from 0.
func TestWatchPageShapesServers(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('#diagram .server').length === 5 && !!document.getElementById('speed-pick') && !document.getElementById('fleet').hidden`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 1})})`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '1'`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#diagram .server[data-name="s1"]`)))
	const speed = `[...document.querySelectorAll('#inspector dt')].find(e => e.textContent === 'speed').nextElementSibling.textContent`
	waitJS(t, ctx, 10*time.Second, speed+` === '1 (lab: 1)'`)
	pick := func(v string) chromedp.Action[chromedp.Void] {
		return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const s = document.getElementById('insp-speed'); s.value = %q; s.dispatchEvent(new Event('change')); })()`, v))
	}
	do(t, ctx, 10*time.Second, pick("2"))
	waitJS(t, ctx, 10*time.Second, speed+` === '2 (lab: 1)' && [...document.querySelectorAll('#log li')].some(li => li.textContent.includes('slow s1 speed=2'))`)
	if evalJS[bool](t, ctx, `!!document.querySelector('#diagram .server[data-name="s1"] .badge.slowed')`) {
		t.Error("s1 at twice its speed is marked slowed")
	}
	do(t, ctx, 10*time.Second, pick("0.2"))
	waitJS(t, ctx, 10*time.Second, speed+` === '0.2 (lab: 1)' && !!document.querySelector('#diagram .server[data-name="s1"] .badge.slowed')`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#inspector .close`)))

	// a server of its own: twice as fast, four workers
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { document.getElementById('add-speed').value = '2';
		document.getElementById('add-workers').value = '4'; })()`), chromedp.Click(chromedp.CSS(`#add-server`)))
	waitJS(t, ctx, 10*time.Second, `document.querySelectorAll('#diagram .server').length === 6 && document.querySelectorAll('#diagram .server[data-name="s6"] .workers i.w').length === 4 &&
		[...document.querySelectorAll('#log li')].some(li => li.textContent.includes('add-server s6 speed=2 workers=4'))`)
	// (a click in JavaScript: the toast at the bottom may cover s6's card)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.querySelector('#diagram .server[data-name="s6"]').click()`))
	waitJS(t, ctx, 10*time.Second, speed+` === '2 (lab: 2)'`)
	do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#inspector .close`)))

	if got := evalJS[string](t, ctx, `['fleet-count', 'fleet-workers', 'fleet-queue'].map(id => document.getElementById(id).value).join('/')`); got != "6/1/0" {
		t.Errorf("the fleet form shows %s, want rr-slow's 5 servers and the one added, 1 worker on the first, unbounded queues", got)
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		document.getElementById('fleet-count').value = '8'; document.getElementById('fleet-workers').value = '3';
		document.getElementById('fleet-queue').value = '20'; document.getElementById('fleet-dist').value = 'constant'; })()`),
		chromedp.Click(chromedp.CSS(`#fleet-rebuild`)))
	waitJS(t, ctx, 20*time.Second, `document.querySelectorAll('#diagram .server').length === 8 && [...document.querySelectorAll('#diagram .server')].every(e => e.querySelectorAll('.workers i.w').length === 3)`)
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0' && document.getElementById('pb-drills').textContent === ''`)
	shot(t, ctx, "watch-fleet-rebuilt")
}

// TestWatchPageFiguresFromTable: the counters' tiles and the charts'
// legends take their words, order, units and direction from report.Figures,
// as the snapshot carries it: with every label of the table marked, the
// page shows the marks, one tile per figure with a dashboard key in the
// table's tile order, each saying which way is better, and the trouble
// chart's legend names its lines as the table does.
func TestWatchPageFiguresFromTable(t *testing.T) {
	saved := report.Figures
	marked := slices.Clone(saved)
	for i := range marked {
		marked[i].Label = "«" + marked[i].Words() + "»"
	}
	report.Figures = marked
	t.Cleanup(func() { report.Figures = saved }) // after the server below has stopped
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.querySelectorAll('#counters .tile').length > 0 && !!document.querySelector('#chart-trouble .u-legend')`)
	raw := evalJS[string](t, ctx, `JSON.stringify({
		tiles: [...document.querySelectorAll('#counters .tile')].map(e => ({key: e.dataset.key, label: e.querySelector('.label').textContent,
			better: e.dataset.better, title: e.title, value: e.querySelector('.value').textContent})),
		legend: [...document.querySelectorAll('#chart-trouble .u-legend .u-series .u-label')].map(e => e.textContent).slice(1), // after the time's
		note: document.querySelector('#counters .note').textContent,
	})`)
	var page struct {
		Tiles  []struct{ Key, Label, Better, Title, Value string }
		Legend []string
		Note   string
	}
	if err := json.Unmarshal([]byte(raw), &page); err != nil {
		t.Fatal(err)
	}
	var want []dash.PageFigure
	for _, p := range dash.PageFigures() {
		if p.Window != "" {
			want = append(want, p)
		}
	}
	if len(page.Tiles) != len(want) {
		t.Fatalf("%d tiles, the table has %d figures with a tile: %+v", len(page.Tiles), len(want), page.Tiles)
	}
	for i, tile := range page.Tiles {
		f, ok := report.FigureOf(want[i].Name)
		if !ok {
			t.Fatalf("no figure %s", want[i].Name)
		}
		better := map[bool]string{true: "higher", false: "lower"}[f.Higher]
		if tile.Key != f.Name || tile.Label != f.Words() || tile.Better != better ||
			!strings.Contains(tile.Title, better+" is better") || !strings.Contains(tile.Title, f.Doc) {
			t.Errorf("tile %d: %+v, want figure %s labelled %q, %s is better", i, tile, f.Name, f.Words(), better)
		}
		if tile.Value == "" {
			t.Errorf("tile %s shows no value", tile.Key)
		}
	}
	p99, _ := report.FigureOf("p99")
	if !strings.HasPrefix(page.Note, "«p50» and "+p99.Words()+": ") {
		t.Errorf("the counters' note %q does not name the latency tiles as the table does", page.Note)
	}
	var lines []string
	for _, col := range []string{"failed", "timeouts", "rejected", "retries"} {
		for _, f := range report.Figures {
			if f.Series == col {
				lines = append(lines, f.Words())
			}
		}
	}
	if !slices.Equal(page.Legend, lines) {
		t.Errorf("the trouble chart's legend reads %q, the table %q", page.Legend, lines)
	}
}

// TestWatchPageControlsFromTheSnapshot: the page's controls are built from
// the snapshot, not from lists of its own: a button for every drill on a
// server in labfile's table, each sending its example; a control for every
// setting the snapshot's controls name; a time box added to a drill with an
// undo and not to one without; and a box that sets its setting.
func TestWatchPageControlsFromTheSnapshot(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('time-box') && document.querySelectorAll('#diagram .server').length > 0`)
	var onServer []string
	var timed, untimed *labfile.Drill
	for _, d := range labfile.Drills {
		if d.Scope != labfile.OnServers || d.Zone {
			continue
		}
		onServer = append(onServer, string(d.Action))
		if d.Undoable() && timed == nil {
			timed = d
		} else if !d.Undoable() && untimed == nil {
			untimed = d
		}
	}
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#controls .row button.action')].map(b => b.dataset.action).join(',')`); got != strings.Join(onServer, ",") {
		t.Errorf("the servers' buttons: %s, want labfile's drills on servers %s", got, strings.Join(onServer, ","))
	}
	var snap struct {
		Controls []dash.Control `json:"controls"`
	}
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	raw, err := chromedp.Run(c, chromedp.Evaluate[string](`fetch('/api/snapshot').then(r => r.text())`, chromedp.EvalAwaitPromise))
	cancel()
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(raw), &snap); err != nil || len(snap.Controls) == 0 {
		t.Fatalf("snapshot's controls: %v, %d", err, len(snap.Controls))
	}
	var box *dash.Control
	for i, c := range snap.Controls {
		if !evalJS[bool](t, ctx, fmt.Sprintf(`!!document.querySelector('#controls #%s')`, c.Key)) {
			t.Errorf("no control #%s for %s", c.Key, c.Path)
		}
		if c.Kind == "bool" && c.Value == "false" && box == nil {
			box = &snap.Controls[i]
		}
	}
	// Time-boxed: the drill with an undo takes for, the one without does not.
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById('time-box').value = '10s'`))
	for _, d := range []*labfile.Drill{untimed, timed} { // the undo first: a time-boxed drill holds its server
		ev, _ := d.Example()
		ev.Target = "s1"
		if d.Undoable() {
			ev.For = 10 * time.Second
		}
		do(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#controls button[data-action=%q]`, d.Action))))
		waitJS(t, ctx, 10*time.Second, fmt.Sprintf(`document.getElementById('pb-drills').textContent.includes(%q)`, ": "+ev.String()))
	}
	if box == nil {
		t.Fatal("no boolean setting off to tick")
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById('time-box').value = ''`),
		chromedp.Click(chromedp.CSS("#"+box.Key)))
	waitJS(t, ctx, 10*time.Second, fmt.Sprintf(`(document.querySelector('#narration .changes') || {}).textContent === 'now: %s on (was off)'`, box.Label))
	shot(t, ctx, "controls")
}

// In a lab with zones the page draws them: each server card and balancer
// node marked with its zone, the cards grouped by zone, a Zones group with
// a button per zone drill of labfile's table (a zone menu for those on a
// zone's servers) and the cross-zone share's tile; a zone-down from the
// page reaches the lab. A lab without zones has neither group nor tile.
func TestWatchPageDrawsZones(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "zone-outage", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('zone-pick') && document.querySelectorAll('#diagram .server').length === 12`)
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#diagram .server')].map(s => s.dataset.zi).join('')`); got != "000011112222" {
		t.Errorf("the server cards' zones, in order: %q, want four of each zone, grouped", got)
	}
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#diagram .node.balancer')].map(s => s.dataset.zi).join('')`); got != "012" {
		t.Errorf("the balancers' zones: %q, want 012", got)
	}
	var zoneDrills []string
	for _, d := range labfile.Drills {
		if d.NeedsZones {
			zoneDrills = append(zoneDrills, string(d.Action))
		}
	}
	if got := evalJS[string](t, ctx, `[...document.querySelectorAll('#zone-pick option')].map(o => o.value).join(',') + ' ' + [...document.getElementById('zone-pick').parentElement.querySelectorAll('button.action')].map(b => b.dataset.action).join(',')`); got != "a,b,c "+strings.Join(zoneDrills, ",") {
		t.Errorf("the Zones group: %q, want zones a,b,c and the zone drills %s", got, strings.Join(zoneDrills, ","))
	}
	if !evalJS[bool](t, ctx, `(() => { const t = document.querySelector('.tile[data-key=cross_zone_attempts]'); return !!t && !t.hidden })()`) {
		t.Error("no cross-zone tile shown in a lab with zones")
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`document.getElementById('time-box').value = ''; document.getElementById('zone-pick').value = 'b'`),
		chromedp.Click(chromedp.CSS(`#controls button[data-action="zone-down"]`)))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-drills').textContent.includes(': zone-down b')`)
	// the locality layer's menu (a setting only a lab with zones shows)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('locality'); s.value = 'rings'; s.dispatchEvent(new Event('change')); })()`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-drills').textContent.includes('balancers.locality.policy=rings')`)
	shot(t, ctx, "zones")

	flat := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(flat+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('time-box') && document.querySelectorAll('#diagram .server').length > 0`)
	if evalJS[bool](t, ctx, `!!document.getElementById('zone-pick') || !!document.getElementById('locality') || !!document.querySelector('#diagram [data-zi]')`) {
		t.Error("a lab without zones shows zones")
	}
	if !evalJS[bool](t, ctx, `(() => { const t = document.querySelector('.tile[data-key=cross_zone_attempts]'); return !t || t.hidden })()`) {
		t.Error("a lab without zones shows the cross-zone tile")
	}
}
