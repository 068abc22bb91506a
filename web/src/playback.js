// Playback controls, shown only when the snapshot says it comes from the
// virtual clock (lab watch): speed, pause, step, seek, restart and save.
// Each is a POST /api/playback; the rest of the page does not know which
// clock feeds it.
import { h, setText, secs, isNum } from './dom.js';
import { post, toast, downloadLink } from './api.js';
import { showCompare } from './compare.js';

const SEEDS = [1, 5, 10, 20]; // compare all's choices (the API takes 2 to 30)
const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];

let els = null;

// The seek slider. While it is held (dragged, or a key pressed on it) the
// clock shows the instant under the thumb and snapshots move neither; once
// released, it seeks there and both stay at that instant until the
// snapshot showing the seek comes (the answer's playback.published: one
// already on its way shows the instant left) and the seek has arrived. In
// a heavy lab lab watch replays a seek in slices (a move): the snapshots
// meanwhile show the replay's instant (t_s) and where it goes
// (playback.seeking_to_s); the slider and the clock stay at the latter,
// whoever asked for the move (a seek, a step, a drill's replay), and the
// status line says "seeking to 42.0 s (at 17.3 s)".
const seek = { held: false, target: null, until: null };

// The slider's steps: about a thousandth of the lab's length, from 1 ms (the
// API's resolution) to 250 ms (a bin), each a divisor of the 250 ms bin, so
// every bin's end is a position of the thumb.
const SEEK_STEPS = [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.125, 0.25];

/** seekStep is the slider's step for a lab of length seconds. */
function seekStep(length) {
  return SEEK_STEPS.find((x) => x >= length / 1000) || SEEK_STEPS[SEEK_STEPS.length - 1];
}

/** seekText is an instant as the clock shows it while the slider is held: to the slider's step. */
function seekText(t, step) {
  const decimals = Math.max(1, (String(step).split('.')[1] || '').length);
  return t.toFixed(decimals) + ' s';
}

/** moveOf is where the move going on in snap goes (playback.seeking_to_s), or null. */
function moveOf(snap) {
  const to = snap && snap.playback ? snap.playback.seeking_to_s : null;
  return isNum(to) ? to : null;
}

/** heldAt is the instant the slider and the clock stay at: the one it is held or seeking at, else the move's, else null. */
function heldAt(snap) {
  return seek.target ?? moveOf(snap);
}

/** clockText is what the header's clock shows for snap: its instant, or the one the slider is held at (or a move goes to). */
export function clockText(snap) {
  const at = heldAt(snap);
  return at !== null && els ? seekText(at, Number(els.seek.step)) : secs(snap.t_s);
}

function hold() {
  seek.held = true;
  seek.target = Number(els.seek.value);
  showClock(null);
}

/** showClock writes the clock: the slider's instant while it is held or seeking, else snap's. */
function showClock(snap) {
  const clock = document.getElementById('clock');
  if (seek.target === null && !snap) return;
  setText(clock, clockText(snap || {}));
  clock.classList.toggle('seeking', heldAt(snap) !== null);
}

async function release() {
  const at = Math.round(Number(els.seek.value) * 1000) / 1000; // the API takes the millisecond
  seek.held = false;
  seek.target = at;
  seek.until = null;
  showClock(null);
  const out = await playback({ seek_s: at });
  if (!out) seek.target = null; // refused: the next snapshot says where playback is
  else if (!seek.held) seek.until = out.published;
  if (latest) renderPlayback(latest); // the snapshot showing it may have come first
}

let latest = null; // the newest snapshot drawn

function playback(body) {
  return post('/api/playback', body);
}

function build(box) {
  const speed = h('select', { id: 'pb-speed', 'aria-label': 'playback speed', onchange: () => {
    const v = speed.value;
    playback(v === 'max' ? { max: true } : { speed: Number(v) });
  } }, ...SPEEDS.map((v) => h('option', { value: v, text: v + '×' })), h('option', { value: 'max', text: 'max' }));
  const pause = h('button', { id: 'pb-pause', text: 'pause', onclick: () => playback({ paused: pause.dataset.paused !== 'true' }) });
  const step = h('button', { id: 'pb-step', text: 'step 250 ms', title: 'pause and play to the end of this 250 ms bin', onclick: () => playback({ step: true }) });
  const next = h('button', { id: 'pb-next', text: 'next event', title: 'pause and play to the next line of the event log (a script event, a breaker transition, ...)',
    onclick: () => playback({ step_event: true }) });
  const slider = h('input', { id: 'pb-seek', type: 'range', min: 0, max: 1, step: 0.001, value: 0, 'aria-label': 'virtual time',
    onpointerdown: hold, oninput: hold, onchange: release });
  // a press that moved nothing fires no change: let go of the slider then
  const letGo = () => setTimeout(() => {
    if (seek.held) { seek.held = false; seek.target = null; }
  }, 0);
  window.addEventListener('pointerup', letGo);
  window.addEventListener('pointercancel', letGo);
  const restart = h('button', { id: 'pb-restart', text: 'restart', title: 'back to 0 without the drills taken', onclick: () => playback({ restart: true }) });
  const save = downloadLink(h('a', { id: 'pb-save', class: 'button', href: '/api/lab.yaml', download: '', text: 'save lab file',
    title: 'the lab with the drills taken in its script: lab sim on it gives these numbers' }));
  const report = downloadLink(h('a', { id: 'pb-report', class: 'button', href: '/api/report.json', download: '', text: 'JSON report',
    title: 'lab sim LAB --seed N --json of the lab playing as it was given (every compare setting; the drills taken are in the saved lab file)' }));
  const compare = h('button', { id: 'pb-compare', text: 'compare all',
    title: 'run every compare setting of the lab (or every algorithm) on the same seeded stream, with the drills taken, and rank them',
    onclick: () => compareAll(compare, seeds) });
  const seeds = h('select', { id: 'pb-seeds', 'aria-label': 'seeds for compare all',
    title: 'one seed, as lab sim; or seeds 1 to N, as lab sim --seeds N: intervals and whether each setting is told apart from the next' },
  ...SEEDS.map((n) => h('option', { value: n, text: n === 1 ? '1 seed' : `${n} seeds` })));
  const drills = h('span', { id: 'pb-drills', class: 'pb-drills' });
  box.replaceChildren(h('span', { id: 'virtual', class: 'status virtual', text: 'virtual' }), speed, pause, step, next, slider,
    restart, save, report, compare, seeds, drills);
  box.hidden = false;
  els = { speed, pause, step, next, seek: slider, drills, compare };
}

/** renderPlayback shows the playback state of a virtual snapshot (nothing otherwise). */
export function renderPlayback(snap) {
  const box = document.getElementById('playback');
  if (!snap.virtual) {
    box.hidden = true;
    return;
  }
  if (!els) build(box);
  latest = snap;
  const p = snap.playback || {};
  const value = p.max ? 'max' : String(p.speed);
  if (document.activeElement !== els.speed && els.speed.value !== value) {
    if (![...els.speed.options].some((o) => o.value === value)) els.speed.append(h('option', { value, text: value + '×' }));
    els.speed.value = value;
  }
  els.pause.dataset.paused = String(!!p.paused);
  setText(els.pause, p.paused ? 'play' : 'pause');
  els.pause.disabled = els.step.disabled = els.next.disabled = !!p.ended;
  const end = Math.max(p.duration_s || 0, p.t_s || 0);
  const step = String(seekStep(p.duration_s || 0));
  if (els.seek.step !== step) els.seek.step = step;
  if (els.seek.max !== String(end)) els.seek.max = String(end);
  const moving = moveOf(snap); // a move going on: the slider stays at its target
  if (seek.until !== null && !seek.held && (p.published ?? Infinity) >= seek.until && moving === null) seek.target = seek.until = null; // the seek is shown
  if (seek.target === null) els.seek.value = String(moving ?? p.t_s ?? 0);
  showClock(snap);
  const at = heldAt(snap) ?? p.t_s ?? 0;
  const said = `${seekText(at, 0.001)} of ${seekText(end, 0.001)}`;
  if (els.seek.getAttribute('aria-valuetext') !== said) {
    els.seek.setAttribute('aria-valuetext', said);
    els.seek.title = 'virtual time: ' + said;
  }
  const state = p.demo ? 'demo (touch to stop)' : p.stopped ? 'stopped by its budget' : p.ended ? 'ended' : p.paused ? 'paused' : (p.max ? 'max' : p.speed + '×');
  if (p.demo) armTouch();
  // a long request going on (compare all, the JSON report): its share done
  const done = p.work ? Math.floor(p.work.done * 100) + '%' : '';
  // a move going on: where it goes and where its replay is
  const move = moving === null ? '' : (p.seeking_event ? 'seeking the next event' : `seeking to ${secs(moving)}`) + ` (at ${secs(p.t_s)}) · `;
  setText(document.getElementById('status'), 'virtual · ' + move + state + (p.work ? ` · ${p.work.what} ${done}` : ''));
  if (els.compare.disabled) setText(els.compare, p.work && p.work.what === 'compare all' ? 'comparing… ' + done : 'comparing…');
  setText(els.drills, (p.drills || []).length ? 'drills: ' + p.drills.join(' · ') : '');
  els.drills.title = 'taken at these virtual instants; they are in the saved lab file\'s script';
  if (p.ended && !box.dataset.endedToast) {
    box.dataset.endedToast = '1';
    // a guard stopped it (playback.stopped: what it spent, how to raise the budget)
    if (p.stopped) toast(`the run stopped at ${secs(p.t_s)}: ${p.stopped}`, 'error');
    else toast(`the run ended at ${secs(p.t_s)}`);
  } else if (!p.ended) delete box.dataset.endedToast;
}

/**
 * playNew sets the lab just started playing. POST /api/scenario and
 * /api/lab start a lab at 0 with the speed and the pause as they were, so
 * a scenario picked (or a lab run) while paused stayed at 0 while the page
 * said it was running: the picker's and Your lab's run ask for play too.
 * On the live clock (no playback controls) it does nothing.
 */
export async function playNew() {
  if (els) await playback({ paused: false });
}

/** compareAll asks the simulator to rank the lab's settings (on the seeds chosen) and shows the table. */
async function compareAll(button, seeds) {
  button.disabled = true;
  setText(button, 'comparing…');
  try {
    const n = Number(seeds.value);
    const out = await post('/api/compare', n > 1 ? { seeds: n } : {});
    if (out) showCompare(out);
  } finally {
    button.disabled = false;
    setText(button, 'compare all');
  }
}

let armed = false;

/**
 * armTouch stops the demo loop at the first click or key anywhere on the
 * page: an empty POST /api/playback is a touch (any POST is).
 */
function armTouch() {
  if (armed) return;
  armed = true;
  const touch = () => {
    document.removeEventListener('pointerdown', touch, true);
    document.removeEventListener('keydown', touch, true);
    playback({});
  };
  document.addEventListener('pointerdown', touch, true);
  document.addEventListener('keydown', touch, true);
}
