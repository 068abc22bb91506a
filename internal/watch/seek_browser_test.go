package watch

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/lblab/lblab/internal/lab/dash"
	"github.com/lblab/lblab/internal/labfile"
	"github.com/lblab/lblab/internal/labfile/labyaml"
)

// mouse presses the left button at the seek slider's fraction from, moves
// it to fraction to in a few steps and, if release, lets go there.
func mouseOnSeek(t *testing.T, ctx context.Context, from, to float64, release bool) {
	t.Helper()
	type rect struct{ Left, Width, Y float64 }
	r := evalJS[rect](t, ctx, `(() => { const r = document.getElementById('pb-seek').getBoundingClientRect();
		return {left: r.left, width: r.width, y: r.top + r.height / 2}; })()`)
	const thumb = 8 // about half a thumb: the track's ends are inside the element
	x := func(f float64) float64 { return r.Left + thumb + f*(r.Width-2*thumb) }
	do(t, ctx, 10*time.Second, chromedp.Func(func(c context.Context, tg *chromedp.Target) error {
		send := func(typ input.DispatchMouseEventType, px float64) error {
			p := input.DispatchMouseEventParams{Type: typ, X: px, Y: r.Y, Button: input.MouseButtonLeft, Buttons: 1, ClickCount: 1}
			if typ == input.DispatchMouseEventTypeMouseMoved {
				p.ClickCount = 0
			}
			_, err := cdp.Call(c, tg, input.DispatchMouseEvent, p)
			return err
		}
		if err := send(input.DispatchMouseEventTypeMousePressed, x(from)); err != nil {
			return err
		}
		for k := 1; k <= 5 && from != to; k++ {
			if err := send(input.DispatchMouseEventTypeMouseMoved, x(from+(to-from)*float64(k)/5)); err != nil {
				return err
			}
		}
		if release {
			return send(input.DispatchMouseEventTypeMouseReleased, x(to))
		}
		return nil
	}))
}

// seekState is the slider and the clock as the page shows them.
type seekState struct {
	Value, Step, Max, Clock string
	Seeking                 bool
}

const readSeek = `(() => { const s = document.getElementById('pb-seek'), c = document.getElementById('clock');
	return {value: s.value, step: s.step, max: s.max, clock: c.textContent, seeking: c.classList.contains('seeking')}; })()`

func playbackPost(t *testing.T, base string, body string) dash.Playback {
	t.Helper()
	var p dash.Playback
	if code := call(t, "POST", base+"/api/playback", body, &p); code != 200 {
		t.Fatalf("POST /api/playback %s: %d", body, code)
	}
	return p
}

// TestWatchPageSeeksWhereReleased drags the seek slider with the mouse
// as a user does, on a lab of 2 s and one of 240 s. Its step follows the
// lab's length (2 ms and 250 ms: the 2-s lab is not cut into eight
// positions) and its range is the lab's length. While the thumb is held
// the clock shows the instant under it, and the snapshots that go on
// coming move neither; released, the lab is at that very instant, and
// the clock, the slider and the charts show it. A press that moves
// nothing (no change event) does not leave the slider stuck: it follows
// playback again.
func TestWatchPageSeeksWhereReleased(t *testing.T) {
	lab := func(name string, duration string) *labfile.Lab {
		l, err := labyaml.Parse(name+".yaml", []byte(fmt.Sprintf(`
name: %s
seed: 3
duration: %s
clients: {rate: 40, work: {dist: exponential, mean: 5ms}}
servers: [{count: 3, workers: 2}]
`, name, duration)))
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ctx := chromium(t)
	for _, c := range []struct {
		name, duration, step, max string
		frac                      float64
		decimals                  int
	}{
		{"two-seconds", "2s", "0.002", "2", 0.617, 3},
		{"four-minutes", "240s", "0.25", "240", 0.517, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := startWatchLab(t, lab(c.name, c.duration), "", "", true)
			do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
			waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-seek') && document.getElementById('lab-name').textContent === '`+c.name+`'`)
			playbackPost(t, base, `{"speed": 0.1, "paused": false}`)
			waitJS(t, ctx, 10*time.Second, `Number(document.getElementById('pb-seek').value) > 0`)
			s := evalJS[seekState](t, ctx, readSeek)
			if s.Step != c.step || s.Max != c.max {
				t.Errorf("the slider's step %s and end %s, want %s and %s (the lab's length)", s.Step, s.Max, c.step, c.max)
			}
			start := evalJS[float64](t, ctx, `Number(document.getElementById('pb-seek').value)`) / mustFloat(t, c.max)
			mouseOnSeek(t, ctx, start, c.frac, false)
			held := evalJS[seekState](t, ctx, readSeek)
			v := mustFloat(t, held.Value)
			want := fmt.Sprintf("%.*f s", c.decimals, v)
			if held.Clock != want || !held.Seeking {
				t.Errorf("holding the thumb at %s: the clock shows %q (seeking %v), want %q", held.Value, held.Clock, held.Seeking, want)
			}
			time.Sleep(800 * time.Millisecond) // snapshots of the lab playing on come meanwhile
			if again := evalJS[seekState](t, ctx, readSeek); again.Value != held.Value || again.Clock != held.Clock {
				t.Errorf("while held, the snapshots moved the slider to %s and the clock to %q (held at %s, %q)", again.Value, again.Clock, held.Value, held.Clock)
			}
			playbackPost(t, base, `{"paused": true}`)
			mouseOnSeek(t, ctx, c.frac, c.frac, true)
			waitJS(t, ctx, 10*time.Second, fmt.Sprintf(`document.getElementById('clock').textContent === %q && !document.getElementById('clock').classList.contains('seeking')`,
				fmt.Sprintf("%.1f s", v)))
			var p dash.Playback
			call(t, "GET", base+"/api/playback", nil, &p)
			if math.Abs(p.T-v) > 5e-4 {
				t.Errorf("released at %s, the lab is at %g s", held.Value, p.T)
			}
			after := evalJS[seekState](t, ctx, readSeek)
			if mustFloat(t, after.Value) != v {
				t.Errorf("after the seek the slider is at %s, released at %s", after.Value, held.Value)
			}
			bins := int(math.Floor(v/0.25 + 1e-9))
			if n := evalJS[int](t, ctx, `document.querySelector('#chart-load').plotData[0].length`); n != min(bins, 80) {
				t.Errorf("at %g s the charts have %d bins, want %d", v, n, bins)
			}

			// a press on the thumb that moves nothing (no change event), then playback goes on: the slider follows it
			do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('pb-seek');
				s.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true})); s.dispatchEvent(new PointerEvent('pointerup', {bubbles: true})); })()`))
			playbackPost(t, base, `{"speed": 1, "paused": false}`)
			waitJS(t, ctx, 10*time.Second, fmt.Sprintf(`Number(document.getElementById('pb-seek').value) > %g + 0.4 && !document.getElementById('clock').classList.contains('seeking')`, v))
		})
	}
}

// TestWatchPageHoldsTheSliderWhileSeeking releases the seek slider at half
// of a heavy lab (busyLab: a 250 ms bin is about 22 million visits, so the
// replay to 5 s is a move of many ticks) while paused. While the move
// goes on, every snapshot the page draws shows the replay's instant
// creeping on (t_s), and the slider and the clock stay at the target: the
// status line says "seeking to 5.0 s (at 0.1 s)". A restart drops the
// move, and the slider follows playback again.
func TestWatchPageHoldsTheSliderWhileSeeking(t *testing.T) {
	if testing.Short() {
		t.Skip("replays a heavy lab for seconds")
	}
	ctx := chromium(t)
	base := startWatchLab(t, busyLab(t), "", "", true)
	do(t, ctx, 60*time.Second, chromedp.Navigate(base+"/"))
	waitJS(t, ctx, 30*time.Second, `!!document.getElementById('pb-seek') && document.getElementById('lab-name').textContent === 'heavy'`)
	// every status line drawn, with the slider and the clock beside it
	do(t, ctx, 10*time.Second, chromedp.Evaluate[chromedp.Void](`(() => {
		window.seen = [];
		const status = document.getElementById('status'), s = document.getElementById('pb-seek'), c = document.getElementById('clock');
		new MutationObserver(() => window.seen.push({status: status.textContent, value: s.value, clock: c.textContent,
			seeking: c.classList.contains('seeking')})).observe(status, {childList: true, characterData: true, subtree: true});
	})()`))
	mouseOnSeek(t, ctx, 0, 0.5, true)
	target := mustFloat(t, evalJS[string](t, ctx, `document.getElementById('pb-seek').value`))
	want := fmt.Sprintf("seeking to %.1f s (at ", target)
	// three snapshots of the move, its replay at three instants
	waitJS(t, ctx, 60*time.Second, `new Set(window.seen.filter((r) => r.status.includes('seeking to')).map((r) => r.status)).size >= 3`)
	type record struct {
		Status, Value, Clock string
		Seeking              bool
	}
	seen := evalJS[[]record](t, ctx, `window.seen`)
	for _, r := range seen {
		if !strings.Contains(r.Status, "seeking to") {
			continue
		}
		if !strings.HasPrefix(r.Status, "virtual · "+want) || !strings.HasSuffix(r.Status, " · paused") {
			t.Errorf("the status line during the move: %q; want %q... · paused", r.Status, "virtual · "+want)
		}
		if mustFloat(t, r.Value) != target || r.Clock != fmt.Sprintf("%.2f s", target) || !r.Seeking {
			t.Errorf("during the move (%q) the slider is at %s and the clock shows %q (seeking %v); want both at %g", r.Status, r.Value, r.Clock, r.Seeking, target)
		}
	}
	var p dash.Playback
	call(t, "GET", base+"/api/playback", nil, &p)
	if p.SeekingToS == nil || math.Abs(*p.SeekingToS-target) > 5e-4 || p.T >= target {
		t.Fatalf("GET /api/playback during the move: %+v; want seeking_to_s %g", p, target)
	}
	playbackPost(t, base, `{"restart": true}`)
	waitJS(t, ctx, 30*time.Second, `document.getElementById('pb-seek').value === '0' && !document.getElementById('clock').classList.contains('seeking')
		&& document.getElementById('status').textContent === 'virtual · paused'`)
}
