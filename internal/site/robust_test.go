package site

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/labfile/labyaml"
	"github.com/lblab/lblab/internal/sim"
	"github.com/lblab/lblab/internal/watch"
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

// visibleError is the text of Your lab's error when a person can see it
// (the panel open, the message shown), else "".
const visibleError = `(() => { const e = document.getElementById('own-error'); return e && e.checkVisibility() ? e.textContent : ''; })()`

// TestPageBrokenLinkSaysSo: a shared link whose lab is not base64url of
// a UTF-8 text opens the page with the message in view (Your lab open),
// and the demo plays on.
func TestPageBrokenLinkSaysSo(t *testing.T) {
	for _, lab := range []string{"%%%not-base64", base64.RawURLEncoding.EncodeToString([]byte("name: \xff\xfe\n"))} {
		ctx := pageAt(t, url.Values{"lab": {lab}, "seed": {"3"}}.Encode())
		waitJS(t, ctx, 20*time.Second, visibleError+` !== ''`)
		if got := evalJS[string](t, ctx, 5*time.Second, visibleError); !strings.Contains(got, "base64url") {
			t.Errorf("lab=%s: the page says %q, want that the link's lab is not base64url text", lab, got)
		}
		if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('lab-name').textContent`); got != "demo" {
			t.Errorf("lab=%s: a broken link plays %q, want the demo on", lab, got)
		}
	}
}

// TestPageSeedIsAWholeNumber: a seed that is not a whole number, in a
// link or typed, is refused with the API's message naming it, in view,
// the lab playing unchanged (the page never runs the file's own seed
// instead); a seed above 2^53 runs digit for digit.
func TestPageSeedIsAWholeNumber(t *testing.T) {
	text := "name: mine\nduration: 5s\nservers:\n  - count: 2\nclients:\n  rate: 20\n"
	ctx := pageAt(t, url.Values{"lab": {base64.RawURLEncoding.EncodeToString([]byte(text))}, "file": {"mine.yaml"}, "seed": {"abc"}}.Encode())
	const want = `seed: must be a whole number from 0 to 18446744073709551615, got "abc"`
	waitJS(t, ctx, 20*time.Second, visibleError+` !== ''`)
	if got := evalJS[string](t, ctx, 5*time.Second, visibleError); got != want {
		t.Errorf("a link with seed=abc: the page says %q, want %q", got, want)
	}
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('lab-name').textContent`); got != "demo" {
		t.Errorf("a link with seed=abc plays %q, want the demo on", got)
	}
	typed := func(seed string) {
		t.Helper()
		run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => {
			document.getElementById('own-error').hidden = true;
			document.getElementById('own-seed').value = %q;
			document.getElementById('own-run').click(); })()`, seed)))
	}
	for _, seed := range []string{"x7", "-3", "1.5"} {
		typed(seed)
		waitJS(t, ctx, 20*time.Second, visibleError+` !== ''`)
		if got, want := evalJS[string](t, ctx, 5*time.Second, visibleError), fmt.Sprintf("seed: must be a whole number from 0 to 18446744073709551615, got %q", seed); got != want {
			t.Errorf("seed %s typed: the page says %q, want %q", seed, got, want)
		}
	}
	typed("9007199254740993")
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'mine'`)
	if got := evalJS[string](t, ctx, 10*time.Second, `lblab.engine.request('GET', '/api/source').then(r => r.text)`); !strings.Contains(got, `"seed":9007199254740993`) {
		t.Errorf("seed 9007199254740993 typed: GET /api/source %.200s, want that seed digit for digit", got)
	}
}

// TestPageRateNeedsANumber: the rate box emptied (or holding what is not
// a number, which a number box reads as empty) and set is refused with a
// message, not taken as rate 0, which would stop the traffic.
func TestPageRateNeedsANumber(t *testing.T) {
	ctx := page(t)
	runLab(t, ctx, longLab)
	run(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		const rate = document.getElementById('rate'); rate.value = '';
		[...document.querySelectorAll('#controls button')].find((b) => b.textContent === 'set').click(); })()`))
	waitJS(t, ctx, 10*time.Second, `!document.getElementById('toast').hidden && document.getElementById('toast').classList.contains('error')`)
	if got := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('toast').textContent`); !strings.Contains(got, "rate") {
		t.Errorf("an empty rate set: the page says %q, want a message about the rate", got)
	}
	if got := evalJS[string](t, ctx, 10*time.Second, `lblab.engine.request('GET', '/api/playback').then(r => JSON.stringify(JSON.parse(r.text).drills))`); got != "[]" {
		t.Errorf("an empty rate set took a drill: %s", got)
	}
}

// TestPageShowsARunItsGuardStopped: a pasted lab that the estimate lets
// through but that cannot run — closed-loop users with no think time over
// a network with no delay, refused at once by a full server, so virtual
// time stands still — is stopped by the simulator's guard in the worker;
// the page says so in its status and shows the guard's message (the same
// as lab watch's session gives) in a toast, and its controls still answer.
func TestPageShowsARunItsGuardStopped(t *testing.T) {
	const text = "name: stall\nduration: 2s\nnetwork: {hop: 0s}\nclients: {mode: closed, users: 5, think: 0s}\n" +
		"balancers: {algorithm: round-robin}\nservers: [{count: 1, max_outstanding: 2}]\n"
	lab, err := labyaml.Parse("stall.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.CheckCost(lab, watch.PageBudget()); err != nil {
		t.Fatalf("the estimate refuses the lab: %v", err)
	}
	_, err = sim.Run(lab, sim.Options{}.Within(watch.PageBudget()))
	if err == nil || !strings.Contains(err.Error(), "virtual time stands still") {
		t.Fatalf("the guard does not stop the lab in lab sim: %v", err)
	}
	ctx := page(t)
	got := evalJS[string](t, ctx, 20*time.Second, fmt.Sprintf(`lblab.engine.request('POST', '/api/lab', JSON.stringify({file: 'stall.yaml', yaml: %q})).then(r => r.status + ' ' + r.text)`, text))
	if got[:3] != "200" {
		t.Fatalf("POST /api/lab: %s", got)
	}
	waitJS(t, ctx, 30*time.Second, `document.getElementById('status').textContent.includes('stopped by its budget')`)
	toast := evalJS[string](t, ctx, 5*time.Second, `document.getElementById('toast').textContent`)
	if !strings.Contains(toast, "the run stopped at") || !strings.Contains(toast, "virtual time stands still") {
		t.Errorf("the toast says %q, want the guard's message", toast)
	}
	// the page still answers: a scenario picked plays
	got = evalJS[string](t, ctx, 20*time.Second, `lblab.engine.request('POST', '/api/scenario', JSON.stringify({name: 'rr-slow'})).then(r => r.status + ' ' + r.text)`)
	if got[:3] != "200" {
		t.Fatalf("POST /api/scenario after the stop: %s", got)
	}
	waitJS(t, ctx, 20*time.Second, `document.getElementById('lab-name').textContent === 'rr-slow'`)
}
