package watch

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/report"
	"github.com/lblab/lblab/internal/sim"
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

const pausedAt10 = `document.getElementById('status').textContent === 'virtual · paused' && document.getElementById('pb-seek').value === '10'`

// TestWatchPageSameAtAnySpeed plays rr-slow to virtual 10 s at 5x with a
// pause on the way, then again at 200x, with the page's own controls: the
// counters and every chart's data at 10 s are identical, and the charts
// are lab sim's bins.
func TestWatchPageSameAtAnySpeed(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('virtual') && !document.getElementById('playback').hidden && document.querySelectorAll('#diagram .server').length === 5`)
	if s := evalJS[string](t, ctx, `document.getElementById('status').textContent`); s != "virtual · paused" {
		t.Errorf("status %q, want virtual · paused", s)
	}

	// 5x, paused by hand on the way, then on to 10 s.
	do(t, ctx, 10*time.Second, setSpeed("5"), stopAt(10), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 30*time.Second, `Number(document.getElementById('pb-seek').value) >= 3`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('status').textContent === 'virtual · paused'`)
	mid := evalJS[float64](t, ctx, `Number(document.getElementById('pb-seek').value)`)
	if mid >= 10 {
		t.Fatalf("the pause by hand came at %v s, after the stop at 10 s", mid)
	}
	time.Sleep(time.Second) // paused: the virtual clock stands still
	if again := evalJS[float64](t, ctx, `Number(document.getElementById('pb-seek').value)`); again != mid {
		t.Errorf("paused at %v s, the page moved on to %v s", mid, again)
	}
	do(t, ctx, 10*time.Second, stopAt(10), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 60*time.Second, pausedAt10)
	time.Sleep(300 * time.Millisecond) // a later snapshot changes nothing
	slow := readPage(t, ctx)
	shot(t, ctx, "watch-rr-slow-10s")

	// 200x from 0, without a pause.
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-restart")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0'`)
	do(t, ctx, 10*time.Second, setSpeed("200"), stopAt(10), chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 60*time.Second, pausedAt10)
	time.Sleep(300 * time.Millisecond)
	fast := readPage(t, ctx)

	if slow.Clock != "10.0 s" {
		t.Errorf("the clock shows %q at virtual 10 s", slow.Clock)
	}
	if !reflect.DeepEqual(slow.Counters, fast.Counters) {
		t.Errorf("counters at 10 s differ:\n 5x   %v\n 200x %v", slow.Counters, fast.Counters)
	}
	if !reflect.DeepEqual(slow.Charts, fast.Charts) {
		t.Errorf("the charts' data at 10 s differ between 5x and 200x")
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
	bins := rep.Runs[0].Series[:40]
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
				t.Errorf("%s column %d at 10 s is not lab sim's:\n page %v\n sim  %v", id, j, show(got[j]), show(col))
			}
		}
	}
	// The counters are the last 2 s: the last 8 bins summed.
	var rejected uint64
	for _, b := range bins[32:] {
		rejected += b.Rejected
	}
	if got := slow.Counters["rejected"]; got != fmt.Sprint(rejected) {
		t.Errorf("rejections tile %q, want lab sim's %d over 8 to 10 s", got, rejected)
	}
	if rejected == 0 {
		t.Error("rr-slow at 10 s should shed at s2: the check above proves little")
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
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-compare")))
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
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `document.querySelector('#compare .note').textContent.includes('1 drill')`)
	if got, want := evalJS[string](t, ctx, rows), ranked(saved); got != want {
		t.Errorf("after the drill the page ranks %s, lab sim on the lab with it %s", got, want)
	}
}

// TestWatchPageKeepsThePickersChoice: a scenario chosen in the picker and
// not yet run stays chosen after the picker loses focus (it used to snap
// back to the running one within a second, so "run scenario" restarted
// the wrong lab); running it then plays it.
func TestWatchPageKeepsThePickersChoice(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", false)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('scenario').value === 'rr-slow' && !document.getElementById('scenario').disabled`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scenario');
		s.focus(); s.value = 'herd'; s.dispatchEvent(new Event('change')); s.blur(); document.body.focus(); })()`))
	time.Sleep(1500 * time.Millisecond) // six snapshots of rr-slow go by
	if v := evalJS[string](t, ctx, `document.getElementById('scenario').value`); v != "herd" {
		t.Fatalf("the picker went back to %q after losing focus", v)
	}
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#scenario-run")))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('lab-name').textContent === 'herd'`)
}

// TestWatchPageStepSeekSave: the page's step button moves one 250 ms bin at
// a time and pauses; the seek slider replays to the instant chosen; the
// save link downloads the lab file with the drill taken at that instant.
func TestWatchPageStepSeekSave(t *testing.T) {
	ctx := chromium(t)
	base := startWatch(t, "rr-slow", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-step')`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0.25'`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0.5' && document.getElementById('clock').textContent === '0.5 s'`)
	if n := evalJS[int](t, ctx, `document.querySelector('#chart-load').plotData[0].length`); n != 2 {
		t.Errorf("after two steps the charts have %d bins, want 2", n)
	}
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('pb-seek');
		s.value = '7.5'; s.dispatchEvent(new Event('change')); })()`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '7.5 s' && document.querySelector('#chart-load').plotData[0].length === 30`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS(`#controls button[data-action="kill"]`)))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-drills').textContent.includes('7.5s: kill s1')`)
	c, cancelEval := context.WithTimeout(ctx, 20*time.Second)
	yaml, err := chromedp.Run(c, chromedp.Evaluate[string](`fetch(document.getElementById('pb-save').href).then(r => r.text())`, chromedp.EvalAwaitPromise))
	cancelEval()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := labfile.Parse("saved.yaml", []byte(yaml))
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
	l, err := func() (*labfile.Lab, error) {
		l, _, err := dash.ScenarioSetting("breaker")
		if err != nil {
			return nil, err
		}
		return l.WithSetting(l.Compare[1])
	}()
	if err != nil {
		t.Fatal(err)
	}
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
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-restart")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '0.0 s'`)
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#pb-next"))) // "next event": s2 fails at 5 s
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '5.0 s' && document.querySelector('#log li .text').textContent === 'fail s2'`)
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 14})})`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('clock').textContent === '14.0 s'`)
	all := read()
	if count(all, "breaker ") < 3 || count(all, "fail s2") != 1 {
		t.Fatalf("breaker at 14 s should log flaps and the failure: %v", all)
	}
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#log-hide-balancers")))
	waitJS(t, ctx, 10*time.Second, `document.querySelector('.log-hidden').textContent.includes('hidden')`)
	filtered := read()
	if count(filtered, "breaker ") != 0 || count(filtered, "fail s2") != 1 || count(filtered, "recover s2") != 1 {
		t.Errorf("filtered log: %v, want the script's lines and no breaker lines", filtered)
	}
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#log-hide-balancers")))
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
	// Playing across an instant changes the caption too.
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`fetch('/api/playback', {method: 'POST', body: JSON.stringify({seek_s: 4.5, speed: 5, paused: false})})`))
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
	var p Playback
	deadline := time.Now().Add(30 * time.Second)
	for p.Loops < 1 {
		call(t, "GET", "http://"+ln.Addr().String()+"/api/playback", nil, &p)
		if time.Now().After(deadline) {
			t.Fatalf("the untouched demo did not start again: %+v", p)
		}
		time.Sleep(50 * time.Millisecond)
	}
	do(t, ctx, 10*time.Second, chromedp.Click(chromedp.CSS("#counters"))) // a touch, not a control
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
