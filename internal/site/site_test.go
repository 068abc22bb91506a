package site

import (
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
	browsertest "github.com/lblab/lblab/internal/testbin/browser"
	"github.com/lblab/lblab/internal/watch"
)

// The static page in headless chromium: make site's folder, built here
// into a temp dir and served by a plain file server (no lblab process
// behind it), runs lab watch's code in its worker.

var built struct {
	once sync.Once
	dir  string
	err  error
}

// siteDir builds the site once for the package's tests. The module's
// build is bounded: from a warm build cache it takes seconds.
func siteDir(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "lblab-site-")
		if built.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var out strings.Builder
		if err := Build(ctx, built.dir, "go", &out); err != nil {
			built.err = fmt.Errorf("%w\n%s", err, out.String())
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// serve serves dir statically on 127.0.0.1:0 until the test ends.
func serve(t *testing.T, dir string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(dir)), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

// page opens the site in a new headless chromium and waits for the first
// frame (a virtual snapshot drawn: the playback bar is shown).
func page(t *testing.T) context.Context { return pageAt(t, "") }

// pageAt is page with a fragment (the part after # of a shared link).
func pageAt(t *testing.T, fragment string) context.Context {
	t.Helper()
	addr := serve(t, siteDir(t))
	if fragment != "" {
		addr += "#" + fragment
	}
	ctx, cancel := chromedp.NewContext(browsertest.Allocator(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil { // the browser starts on this context, not a timed one
		t.Fatalf("start chromium: %v", err)
	}
	run(t, ctx, 30*time.Second, chromedp.Navigate(addr))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('pb-report') !== null && !document.getElementById('playback').hidden`)
	return ctx
}

func run(t *testing.T, ctx context.Context, limit time.Duration, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := chromedp.Do(c, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

func waitJS(t *testing.T, ctx context.Context, limit time.Duration, cond string) {
	t.Helper()
	run(t, ctx, limit+time.Second, chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[chromedp.Void](cond, chromedp.WithPollingInterval(50*time.Millisecond),
			chromedp.WithPollingTimeout(limit))(c, tg)
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", cond, err)
		}
		return nil
	}))
}

func evalJS[T any](t *testing.T, ctx context.Context, limit time.Duration, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// TestPageRunsRRSlowToLabSimsReport: the scenario picked in the page plays
// in the worker (its snapshots name it and its clock moves), and the
// page's JSON report of it is, byte for byte, the report lab sim rr-slow
// --json prints (watch.SimReport, which lab sim's own path shares:
// sim.Report, sim.DefaultSettings).
func TestPageRunsRRSlowToLabSimsReport(t *testing.T) {
	ctx := page(t)
	if got := evalJS[string](t, ctx, 5*time.Second, `document.documentElement.dataset.engine`); got != "wasm" {
		t.Fatalf("the site's page uses engine %q, want wasm", got)
	}
	scenariosListed(t, ctx)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scenario');
		s.value = 'rr-slow'; document.getElementById('scenario-run').click(); })()`))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'rr-slow'`)
	// The clock runs: the page shows later virtual instants as playback goes on.
	waitJS(t, ctx, 20*time.Second, `parseFloat(document.getElementById('clock').textContent) >= 1`)

	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := watch.SimReport(scenarioFile(t, "rr-slow"))
	if err != nil {
		t.Fatal(err)
	}
	got := evalJS[string](t, ctx, 40*time.Second, `lblab.engine.request('GET', '/api/report.json').then(r => r.ok ? r.text : Promise.reject(r.status + ' ' + r.text))`)
	if got != string(raw) {
		os.WriteFile(filepath.Join(t.TempDir(), "page.json"), []byte(got), 0o644)
		t.Fatalf("the page's report of rr-slow differs from lab sim's (%d bytes vs %d); page's starts:\n%.400s", len(got), len(raw), got)
	}
	if !strings.Contains(got, `"lab": "`+l.Name+`"`) {
		t.Fatalf("the report is not rr-slow's: %.200s", got)
	}
}

// scenarioFile parses built-in scenario name as lab sim does.
func scenarioFile(t *testing.T, name string) *labfile.Lab {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "scenarios", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	l, err := labyaml.Parse("scenarios/"+name+".yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPagePastedLabErrorNamesFileLineCol: a lab file pasted with a mistake
// is refused with labyaml.Parse's message, file:line:col, as lab sim gives
// it; the lab playing stays. So is a lab over the cost budget, with the
// estimate's message, until the cost budget field allows it.
func TestPagePastedLabErrorNamesFileLineCol(t *testing.T) {
	ctx := page(t)
	bad := "name: mine\nservers:\n  - name: s1\n    speed: fast\n"
	_, err := labyaml.Parse("mine.yaml", []byte(bad))
	if err == nil {
		t.Fatal("the bad lab parsed")
	}
	want := err.Error()
	if !strings.HasPrefix(want, "mine.yaml:4:") {
		t.Fatalf("labyaml.Parse's error does not name mine.yaml:4:COL: %q", want)
	}
	before := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('lab-name').textContent`)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		document.getElementById('ownlab').open = true;
		document.getElementById('own-yaml').value = %q;
		document.getElementById('own-file').value = 'mine.yaml';
		document.getElementById('own-run').click(); })()`, bad)))
	waitJS(t, ctx, 20*time.Second, `!document.getElementById('own-error').hidden`)
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('own-error').textContent`); got != want {
		t.Fatalf("the page shows %q, want lab sim's %q", got, want)
	}
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('lab-name').textContent`); got != before {
		t.Fatalf("a refused lab changed the lab playing from %q to %q", before, got)
	}

	// A lab over the cost budget is refused with lab sim's message, told how
	// the page raises the budget; with the cost budget field at 100 it runs.
	heavy := "name: heavy\nduration: 5s\nclients:\n  rate: 50\n  keys: 1000000\nservers:\n  - count: 1000\n    cache:\n      size: 1000000\n"
	l, err := labyaml.Parse("heavy.yaml", []byte(heavy))
	if err != nil {
		t.Fatal(err)
	}
	want = watch.CheckCost(l, watch.PageBudget()).Error()
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
		document.getElementById('own-yaml').value = %q;
		document.getElementById('own-file').value = 'heavy.yaml';
		document.getElementById('own-run').click(); })()`, heavy)))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('own-error').textContent.includes('heavy')`)
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('own-error').textContent`); got != want {
		t.Fatalf("the page shows %q, want %q", got, want)
	}
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		document.getElementById('own-cost').value = '100';
		document.getElementById('own-run').click(); })()`))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('lab-name').textContent === 'heavy' && document.getElementById('own-error').hidden`)
}

// TestPageControlsInTheWorker: the page's own controls, answered by the
// worker: the demo loops until touched; then rr-slow, picked while paused,
// plays; paused and restarted, it steps two
// bins, seeks to 7.5 s (its caption of 5 s shown), takes a kill from the
// controls (saved in the lab file's script at 7.5 s), and Compare all ranks
// its six settings; then at max it plays to the end, as lab watch's page does (internal/watch's browser
// tests drive the same controls over HTTP).
func TestPageControlsInTheWorker(t *testing.T) {
	ctx := page(t)
	waitJS(t, ctx, 10*time.Second, `document.getElementById('status').textContent.includes('demo')`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#counters")))
	waitJS(t, ctx, 10*time.Second, `!document.getElementById('status').textContent.includes('demo')`)

	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-pause').dataset.paused === 'true'`)
	scenariosListed(t, ctx)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('scenario');
		s.value = 'rr-slow'; document.getElementById('scenario-run').click(); })()`))
	// Run means play, paused or not; paused again and restarted, it stands at 0.
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'rr-slow' && document.getElementById('pb-pause').dataset.paused === 'false'`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-pause').dataset.paused === 'true'`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-restart")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '0.0 s' && document.getElementById('pb-pause').dataset.paused === 'true'`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-seek').value === '0.25'`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-step")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '0.5 s' && document.querySelector('#chart-load').plotData[0].length === 2`)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('pb-seek');
		s.value = '7.5'; s.dispatchEvent(new Event('change')); })()`))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('clock').textContent === '7.5 s' && document.querySelector('#chart-load').plotData[0].length === 30`)
	l, _, err := dash.ScenarioSetting("rr-slow")
	if err != nil {
		t.Fatal(err)
	}
	var caption string
	for _, c := range l.Captions {
		if c.At <= 7500*time.Millisecond {
			caption = c.Text
		}
	}
	if caption == "" {
		t.Fatal("rr-slow has no caption before 7.5 s to look for")
	}
	waitJS(t, ctx, 10*time.Second, fmt.Sprintf(`!document.getElementById('caption').hidden && document.querySelector('#caption .caption-text').textContent === %q`, caption))

	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS(`#controls button[data-action="kill"]`)))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-drills').textContent.includes('7.5s: kill s1')`)
	yaml := evalJS[string](t, ctx, 20*time.Second, `lblab.engine.request('GET', document.getElementById('pb-save').getAttribute('href')).then(r => r.text)`)
	saved, err := labyaml.Parse("saved.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("the saved lab file does not parse: %v", err)
	}
	if n := len(saved.Events); n != 2 || saved.Events[1].At != 7500*time.Millisecond || saved.Events[1].String() != "kill s1" {
		t.Errorf("the saved script: %v, want rr-slow's event and kill s1 at 7.5 s", saved.Events)
	}

	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 60*time.Second, `document.querySelectorAll('#compare tbody tr').length === 6`)
	if w := evalJS[string](t, ctx, 5*time.Second, `document.querySelector('#compare tr.watched').dataset.name`); w != "round-robin" {
		t.Errorf("compare all marks %q as watched, want round-robin", w)
	}
	// Over 20 seeds (120 runs) the button and the status line show the share
	// done while the worker runs them: snapshots it posts mid-request.
	evalJS[bool](t, ctx, 5*time.Second, `(() => { window.lblabShown = []; const b = document.getElementById('pb-compare'), st = document.getElementById('status');
		new MutationObserver(() => lblabShown.push(b.textContent + ' | ' + st.textContent)).observe(b, {childList: true, characterData: true, subtree: true});
		document.getElementById('pb-seeds').value = '20'; document.querySelector('#compare tbody').replaceChildren(); return true; })()`)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-compare")))
	waitJS(t, ctx, 120*time.Second, `document.querySelectorAll('#compare tbody tr').length === 6`)
	shown := evalJS[[]string](t, ctx, 5*time.Second, `lblabShown`)
	var shares []int
	for _, x := range shown {
		var n int
		if _, err := fmt.Sscanf(x, "comparing… %d%%", &n); err == nil {
			shares = append(shares, n)
			if !strings.Contains(x, fmt.Sprintf("compare all %d%%", n)) {
				t.Errorf("the button says %q but the status line does not", x)
			}
		}
	}
	t.Logf("compare all over 20 seeds: the button showed %v", shares)
	if len(shares) < 2 || shares[0] != 0 || !slices.IsSorted(shares) || shares[len(shares)-1] == 0 {
		t.Errorf("compare all over 20 seeds showed %v on its button (all it showed: %q), want from 0%% up", shares, shown)
	}

	// At max, the worker's ticks follow each other at once and play to the
	// end, and the page still answers (the status follows).
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('pb-speed');
		s.value = 'max'; s.dispatchEvent(new Event('change')); document.getElementById('pb-pause').click(); })()`))
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent === 'virtual · ended'`)
}

// TestPageSharedLinkRunsItsLabAndSeed: a link whose fragment carries a
// lab file and a seed opens the page on that lab, and the page's JSON
// report is lab sim LAB --seed 7 --json's bytes.
func TestPageSharedLinkRunsItsLabAndSeed(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "retry-storm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := pageAt(t, url.Values{"lab": {base64.RawURLEncoding.EncodeToString(text)}, "file": {"storm.yaml"}, "seed": {"7"}}.Encode())
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('ownlab') && document.getElementById('lab-name').textContent === 'retry-storm'`)
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('own-seed').value`); got != "7" {
		t.Errorf("the editor's seed is %q, want the link's 7", got)
	}
	l, err := labyaml.Parse("storm.yaml", text)
	if err != nil {
		t.Fatal(err)
	}
	l.Seed = 7
	want, err := watch.SimReport(l)
	if err != nil {
		t.Fatal(err)
	}
	got := evalJS[string](t, ctx, 40*time.Second, `lblab.engine.request('GET', '/api/report.json').then(r => r.ok ? r.text : Promise.reject(r.status + ' ' + r.text))`)
	if got != string(want) {
		t.Fatalf("the page's report of the shared lab differs from lab sim --seed 7's (%d bytes vs %d)", len(got), len(want))
	}
	if !strings.Contains(got, `"seed": 7`) {
		t.Fatalf("the report does not say seed 7: %.300s", got)
	}
}

// TestPageSharedLinkInAnOpenTab: a shared link opened in a tab already
// showing the page changes only its fragment (no reload): the page runs
// the link's lab and seed then, and plays it though it was paused.
func TestPageSharedLinkInAnOpenTab(t *testing.T) {
	ctx := page(t)
	run(t, ctx, browsertest.ClickLimit, chromedp.Click(chromedp.CSS("#pb-pause")))
	waitJS(t, ctx, 10*time.Second, `document.getElementById('pb-pause').dataset.paused === 'true'`)
	text := "name: linked\nduration: 60s\nservers:\n  - count: 2\nclients:\n  rate: 20\n"
	fragment := url.Values{"lab": {base64.RawURLEncoding.EncodeToString([]byte(text))}, "file": {"linked.yaml"}, "seed": {"7"}}.Encode()
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`location.hash = %q`, "#"+fragment)))
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'linked' && document.getElementById('own-seed').value === '7'`)
	waitJS(t, ctx, 20*time.Second, `document.getElementById('pb-pause').dataset.paused === 'false' && parseFloat(document.getElementById('clock').textContent) >= 0.5`)
	if got := evalJS[string](t, ctx, 10*time.Second, `lblab.engine.request('GET', '/api/source').then(r => r.text)`); !strings.Contains(got, `"seed":7`) || !strings.Contains(got, "linked.yaml") {
		t.Errorf("GET /api/source after the link: %.300s, want linked.yaml with seed 7", got)
	}
}

// scenariosListed waits for the scenario picker to list the built-in
// scenarios, which the page asks the worker for once the module has
// started: choosing one before then picks nothing (on a loaded machine the
// list can come seconds after the first frame).
func scenariosListed(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, 30*time.Second, `[...document.getElementById('scenario').options].some(o => o.value === 'rr-slow') && !document.getElementById('scenario').disabled`)
}
