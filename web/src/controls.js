// The controls: every drill and setting, each a POST /api/chaos.
import { h } from './dom.js';
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
      check('budget', 'retry budget 10%', (on) => setting({ 'clients.budget': on ? '0.1' : '0' })),
      check('hedge', 'hedge at p95', (on) => setting({ 'clients.hedge': on ? 'p95' : '' }))),
    group('Balancer',
      check('timeout', '100 ms timeout', (on) => setting({ 'balancers.timeout': on ? '100ms' : '0s' })),
      check('breaker', 'circuit breakers', (on) => setting({ 'balancers.breaker.enabled': String(on) }))),
    group('Server queues',
      check('bounded', 'bounded queue (20)', (on) => setting({ 'servers.queue.capacity': on ? '20' : '0' })),
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
  els.budget.checked = s.budget > 0;
  els.hedge.checked = !!s.hedge;
  els.timeout.checked = s.timeout_ms > 0;
  els.breaker.checked = !!s.breaker;
  els.bounded.checked = s.queue_capacity > 0;
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
