// The controls: every drill and setting, each a POST /api/chaos.
import { h, setText } from './dom.js';
import { chaos, toast } from './api.js';
import { speedPicker, addServerChoices } from './shape.js';

const SLOW = 0.25; // the speed of "slow" (a quarter)
const GC = '300ms'; // the length of a GC pause on demand

/** The time boxes a drill may get: the lab undoes it that long after. */
const TIME_BOXES = [['', 'until undone'], ['10s', '10 s'], ['30s', '30 s'], ['60s', '1 min']];
/** Drills that are undos themselves, or end by themselves: never time-boxed. */
const NO_UNDO = new Set(['restore', 'restart', 'recover', 'gc']);

let els = {};
let pending = 0; // while a drill is in flight the controls keep the user's values

/**
 * act runs a drill, time-boxed as the "drills last" choice says (the lab
 * schedules the undo), and keeps the controls from being overwritten meanwhile.
 */
async function act(drill) {
  const box = els.timeBox ? els.timeBox.value : '';
  if (box && !NO_UNDO.has(drill.action)) drill = { ...drill, for: box };
  pending++;
  try {
    return await chaos(drill);
  } finally {
    pending--;
  }
}

/** setRate sets the rate box's rate; an empty box (or not a number) is not rate 0. */
function setRate() {
  if (els.rate.value.trim() === '') {
    toast('rate: give the requests per second to send (0 stops the traffic)', 'error');
    return;
  }
  act({ action: 'rate', rate: Number(els.rate.value) });
}

/** setting changes lab settings by dotted path: setting({'clients.retries': '3'}). */
function setting(paths) {
  return act({ action: 'set', set: paths });
}

/** serverActions are the per-server drills (also in the inspector). */
export const serverActions = [
  ['kill', (t) => ({ action: 'kill', target: t })],
  ['restart', (t) => ({ action: 'restart', target: t })],
  ['slow ×' + SLOW, (t) => ({ action: 'slow', target: t, speed: SLOW })],
  ['restore', (t) => ({ action: 'restore', target: t })],
  ['GC pause', (t) => ({ action: 'gc', target: t, pause: GC })],
  ['fail', (t) => ({ action: 'fail', target: t })],
  ['recover', (t) => ({ action: 'recover', target: t })],
];

/** actionButtons are buttons for every server action on target(). */
export function actionButtons(target) {
  return serverActions.map(([label, make]) => h('button', {
    class: 'action', 'data-action': label.split(' ')[0], text: label,
    onclick: () => act(make(target())),
  }));
}

function check(id, label, onchange) {
  const input = h('input', { type: 'checkbox', id, onchange: () => onchange(input.checked) });
  els[id] = input;
  return h('label', { class: 'check' }, input, ' ', label);
}

/**
 * VALUED are the boxes that set a setting to a preset value or turn it off.
 * A lab file or `lab chaos set` may put another value in force: the box is
 * ticked whenever the setting is on, and its label names the value in force
 * (2 s timeout), or, when off, the preset a tick sets (100 ms timeout).
 * - path: the dotted setting; preset: the value a tick sets, in the
 *   snapshot's units; arg(v): v as the setting's text; off: the text that
 *   turns it off
 * - now(s): the value in force in the snapshot's settings (null: off)
 * - text(v): the label for value v
 */
const VALUED = [
  { id: 'budget', path: 'clients.budget', preset: 0.1, arg: String, off: '0',
    now: (s) => (s.budget > 0 ? s.budget : null), text: (v) => `retry budget ${+(v * 100).toFixed(2)}%` },
  { id: 'hedge', path: 'clients.hedge', preset: 'p95', arg: String, off: '',
    now: (s) => s.hedge || null, text: (v) => `hedge at ${v}` },
  { id: 'timeout', path: 'balancers.timeout', preset: 100, arg: (v) => `${v}ms`, off: '0s',
    now: (s) => (s.timeout_ms > 0 ? s.timeout_ms : null), text: (v) => `${duration(v)} timeout` },
  { id: 'bounded', path: 'servers.queue.capacity', preset: 20, arg: String, off: '0',
    now: (s) => (s.queue_capacity > 0 ? s.queue_capacity : null), text: (v) => `bounded queue (${v})` },
];
const valued = Object.fromEntries(VALUED.map((b) => [b.id, b]));

/** duration writes milliseconds as a setting would: 100 ms, 2 s, 1.5 s. */
function duration(msValue) {
  return msValue >= 1000 ? `${+(msValue / 1000).toFixed(3)} s` : `${+msValue.toFixed(3)} ms`;
}

/** valuedCheck is the box of VALUED entry id. */
function valuedCheck(id) {
  const b = valued[id];
  els[id + 'Label'] = h('span', { class: 'value-label', text: b.text(b.preset) });
  return check(id, els[id + 'Label'], (on) => setting({ [b.path]: on ? b.arg(b.preset) : b.off }));
}

/** showValued ticks box b as its setting is in force and names the value. */
function showValued(b, s) {
  const v = b.now(s);
  els[b.id].checked = v !== null;
  setText(els[b.id + 'Label'], b.text(v ?? b.preset));
}

function group(title, ...children) {
  return h('fieldset', { class: 'group' }, h('legend', { text: title }), ...children);
}

/** initControls builds the controls once. */
export function initControls(el) {
  els.rate = h('input', { type: 'number', id: 'rate', min: 0, max: 1000000, step: 10 });
  els.algorithm = h('select', { id: 'algorithm', onchange: () => act({ action: 'algorithm', algorithm: els.algorithm.value }) });
  els.server = h('select', { id: 'server-pick', 'aria-label': 'server' });
  els.retries = h('select', { id: 'retries', onchange: () => setting({ 'clients.retries': els.retries.value }) },
    [0, 1, 2, 3, 5].map((n) => h('option', { value: n, text: n === 0 ? 'no retries' : `${n} retries` })));
  els.limiter = h('select', { id: 'limiter', onchange: () => setting({ 'servers.limiter.kind': els.limiter.value }) },
    h('option', { value: '', text: 'no limiter' }), h('option', { value: 'aimd', text: 'AIMD' }),
    h('option', { value: 'gradient2', text: 'Gradient2' }));
  const added = addServerChoices();
  els.addServer = h('button', { id: 'add-server', text: 'add server', onclick: () => act({ action: 'add-server', ...added.body() }) });
  els.timeBox = h('select', { id: 'time-box', title: 'the lab undoes each drill this long after it (restore, restart, recover and GC excepted)' },
    TIME_BOXES.map(([value, text]) => h('option', { value, text })));
  el.replaceChildren(
    h('label', { class: 'field' }, 'drills last ', els.timeBox),
    group('Traffic',
      h('label', { class: 'field' }, 'rate ', els.rate, ' /s ',
        h('button', { text: 'set', onclick: setRate })),
      h('label', { class: 'field' }, 'algorithm ', els.algorithm)),
    group('Servers',
      h('div', { class: 'row' }, els.server, ...actionButtons(() => els.server.value), speedPicker(() => els.server.value, 'speed-pick')),
      h('div', { class: 'row' },
        h('button', { text: 'slow all ×' + SLOW, onclick: () => act({ action: 'slow', target: 'all', speed: SLOW }) }),
        h('button', { text: 'restore all', onclick: () => act({ action: 'restore', target: 'all' }) }),
        els.addServer, ...added.els)),
    group('Clients', els.retries,
      valuedCheck('budget'), valuedCheck('hedge')),
    group('Balancer',
      valuedCheck('timeout'),
      check('breaker', 'circuit breakers', (on) => setting({ 'balancers.breaker.enabled': String(on) }))),
    group('Server queues',
      valuedCheck('bounded'),
      check('lifo', 'LIFO', (on) => setting({ 'servers.queue.discipline': on ? 'lifo' : 'fifo' })),
      check('drop', 'drop expired', (on) => setting({ 'servers.drop_expired': String(on) })),
      els.limiter),
  );
}

/** renderControls shows the settings in force (unless the user is busy). */
export function renderControls(snap) {
  const s = snap.settings || {};
  fillOptions(els.algorithm, snap.algorithms || [], s.algorithm);
  fillOptions(els.server, (snap.servers || []).map((x) => x.name), null);
  els.addServer.disabled = !(snap.features || {}).add_server;
  els.addServer.title = els.addServer.disabled ? (snap.features || {}).reason || '' : '';
  if (pending > 0) return;
  keep(els.rate, s.rate);
  keep(els.algorithm, s.algorithm);
  ensureOption(els.retries, String(s.retries ?? 0), `${s.retries} retries`);
  keep(els.retries, String(s.retries ?? 0));
  keep(els.limiter, s.limiter || '');
  for (const b of VALUED) showValued(b, s);
  els.breaker.checked = !!s.breaker;
  els.lifo.checked = s.discipline === 'lifo';
  els.drop.checked = !!s.drop_expired;
}

/** ensureOption adds a choice the lab uses but the list lacks. */
function ensureOption(select, value, text) {
  if (![...select.options].some((o) => o.value === value)) select.append(h('option', { value, text }));
}

/** keep sets a field's value unless the user is editing it. */
function keep(input, value) {
  if (document.activeElement === input || value === undefined || value === null) return;
  if (input.value !== String(value)) input.value = String(value);
}

/** fillOptions rebuilds a select's options when the list changed. */
function fillOptions(select, names, chosen) {
  const key = names.join(',');
  if (select.dataset.key === key) return;
  select.dataset.key = key;
  const keepValue = chosen ?? select.value;
  select.replaceChildren(...names.map((n) => h('option', { value: n, text: n })));
  if (names.includes(keepValue)) select.value = keepValue;
}
