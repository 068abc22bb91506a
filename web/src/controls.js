// The controls: every drill and setting, each a POST /api/chaos. Which
// drills there are (their undo, the event a button sends) and which settings
// the controls edit (their path, kind, words and value in force) come from
// the snapshot (drills, controls), read from the Go side's tables, so a
// drill or a setting added there reaches the page with no edit here.
import { h, setText } from './dom.js';
import { chaos, toast } from './api.js';
import { speedPicker, addServerChoices } from './shape.js';

/** The time boxes a drill may get: the lab undoes it that long after. */
const TIME_BOXES = [['', 'until undone'], ['10s', '10 s'], ['30s', '30 s'], ['60s', '1 min']];

let els = {};
let pending = 0; // while a drill is in flight the controls keep the user's values
let drills = new Map(); // action -> the snapshot's drill
let box = null; // the controls' element
let built = ''; // what the controls were built for (builtKey)
let mine = []; // the elements built from the snapshot (the fleet form is shape.js's)
let shown = []; // [control, show(control)] for each control built

/**
 * act runs a drill, time-boxed as the "drills last" choice says when the
 * drill has an undo (the lab schedules it), and keeps the controls from
 * being overwritten meanwhile.
 */
async function act(drill) {
  const timed = els.timeBox ? els.timeBox.value : '';
  if (timed && (drills.get(drill.action) || {}).undo) drill = { ...drill, for: timed };
  pending++;
  try {
    return await chaos(drill);
  } finally {
    pending--;
  }
}

/** setting changes a lab setting by its dotted path (a set drill). */
function setting(path, value) {
  return act({ action: 'set', set: { [path]: value } });
}

/** serverDrills are the drills on one server a button sends, in the table's order. */
function serverDrills() {
  return [...drills.values()].filter((d) => d.scope === 'servers' && !d.zone && d.example);
}

/** actionButtons are a button for every drill on a server, on target(). */
export function actionButtons(target) {
  return serverDrills().map((d) => h('button', {
    class: 'action', 'data-action': d.action, text: d.text,
    title: d.undo ? `${d.text} (a time box ends it with ${d.undo})` : d.no_undo,
    onclick: () => act({ ...d.example, target: target() }),
  }));
}

/** durationMs reads a Go duration (100ms, 2s, 1m30s) as milliseconds. */
function durationMs(text) {
  const unit = { h: 3600e3, m: 60e3, s: 1e3, ms: 1, us: 1e-3, 'µs': 1e-3, ns: 1e-6 };
  let total = 0;
  for (const [, n, u] of String(text).matchAll(/([0-9.]+)(h|ms|m|s|us|µs|ns)/g)) total += Number(n) * unit[u];
  return total;
}

/** said is a control's value as its label shows it: 100 ms, 2 s, 0.1. */
function said(c, v) {
  if (c.kind !== 'duration') return v;
  const msValue = durationMs(v);
  return msValue >= 1000 ? `${+(msValue / 1000).toFixed(3)} s` : `${+msValue.toFixed(3)} ms`;
}

/** typed is a value as a drill's field takes it in JSON (numbers as numbers). */
function typed(c, v) {
  return c.kind === 'int' || c.kind === 'number' ? Number(v) : v;
}

/** send sends control c's value v: its drill's one field, or a set of its path. */
function send(c, v) {
  const d = drills.get(c.drill);
  if (!d) return setting(c.path, String(v));
  return act({ action: d.action, [d.fields[0]]: typed(c, v) });
}

/**
 * controlFor builds the control of setting c and returns [element, show],
 * show(c) showing the value in force:
 * - a preset and an off value: a box that sets the preset or turns it off,
 *   ticked whenever the setting is on, its label naming the value in force
 *   (timeout 2 s) or, when off, the one a tick sets (timeout 100 ms);
 * - a boolean: a box;
 * - words or choices: a menu (its off value called "no ...");
 * - anything else: a box to type in, and set.
 */
function controlFor(c) {
  const id = c.key;
  const isOff = (v) => c.off !== undefined && v === c.off;
  if (c.preset !== undefined && c.preset !== '' && c.off !== undefined) {
    const label = h('span', { class: 'value-label' });
    const input = h('input', { type: 'checkbox', id, onchange: () => send(c, input.checked ? c.preset : c.off) });
    return [h('label', { class: 'check' }, input, ' ', label), (now) => {
      input.checked = !isOff(now.value);
      setText(label, `${c.label} ${said(c, isOff(now.value) ? c.preset : now.value)}`);
    }];
  }
  if (c.kind === 'bool') {
    const input = h('input', { type: 'checkbox', id, onchange: () => send(c, String(input.checked)) });
    return [h('label', { class: 'check' }, input, ' ', c.label), (now) => { input.checked = now.value === 'true'; }];
  }
  const values = c.choices || c.words;
  if (values) {
    const text = (v) => (isOff(v) ? `no ${c.label}` : c.choices ? `${v} ${c.label}` : v);
    const options = [...(c.off !== undefined && !values.includes(c.off) ? [c.off] : []), ...values];
    const select = h('select', { id, 'aria-label': c.label, onchange: () => send(c, select.value) },
      options.map((v) => h('option', { value: v, text: text(v) })));
    const el = c.choices || c.off !== undefined ? select : h('label', { class: 'field' }, `${c.label} `, select);
    return [el, (now) => {
      ensureOption(select, now.value, text(now.value));
      keep(select, now.value);
    }];
  }
  const input = h('input', { type: c.kind === 'int' || c.kind === 'number' ? 'number' : 'text', id, 'aria-label': c.label });
  const set = () => {
    if (input.value.trim() === '') {
      toast(`${c.label}: give a value (${c.path})`, 'error');
      return;
    }
    send(c, input.value.trim());
  };
  return [h('label', { class: 'field' }, `${c.label} `, input, c.unit ? ` ${c.unit} ` : ' ', h('button', { text: 'set', onclick: set })),
    (now) => keep(input, now.value)];
}

function group(title, ...children) {
  return h('fieldset', { class: 'group' }, h('legend', { text: title }), ...children);
}

/** serversGroup holds the drills on servers and the fleet's (add server). */
function serversGroup() {
  els.server = h('select', { id: 'server-pick', 'aria-label': 'server' });
  const added = addServerChoices();
  els.addServer = h('button', { id: 'add-server', text: 'add server', onclick: () => act({ action: 'add-server', ...added.body() }) });
  return group('Servers',
    h('div', { class: 'row' }, els.server, ...actionButtons(() => els.server.value), speedPicker(() => els.server.value, 'speed-pick')),
    h('div', { class: 'row' }, els.addServer, ...added.els));
}

/** zoneDrills are the drills only a lab with zones takes, in the table's order: on a zone's servers and on the links between zones. */
function zoneDrills() {
  return [...drills.values()].filter((d) => d.needs_zones && d.example);
}

/** zonesGroup holds the zone drills (a lab with zones): a zone menu for those on a zone's servers, then the links'. */
function zonesGroup() {
  els.zone = h('select', { id: 'zone-pick', 'aria-label': 'zone' });
  const buttons = zoneDrills().map((d) => h('button', {
    class: 'action', 'data-action': d.action, text: d.text,
    title: d.undo ? `${d.text} (a time box ends it with ${d.undo})` : d.no_undo,
    onclick: () => act(d.zone ? { ...d.example, target: els.zone.value } : { ...d.example }),
  }));
  return group('Zones', h('div', { class: 'row' }, els.zone, ...buttons));
}

/** builtKey is what the controls are built from: the settings' shapes, the drills' buttons and the zones. */
function builtKey(controls, zones) {
  return JSON.stringify([controls.map((c) => [c.path, c.kind, c.group, c.words, c.choices]), serverDrills().map((d) => d.text),
    zones.length > 0 ? zoneDrills().map((d) => d.text) : []]);
}

/** build makes the controls of the snapshot's settings, in their groups (the servers' drills after the first, then the zones'). */
function build(controls, zoned) {
  for (const el of mine) el.remove();
  const groups = new Map();
  shown = [];
  for (const c of controls) {
    const [el, show] = controlFor(c);
    shown.push([c.path, show]);
    if (!groups.has(c.group)) groups.set(c.group, []);
    groups.get(c.group).push(el);
  }
  const sets = [...groups].map(([title, children]) => group(title, ...children));
  const untimed = [...drills.values()].filter((d) => !d.undo && d.scope === 'servers' && !d.zone).map((d) => d.action);
  els.timeBox = h('select', { id: 'time-box', title: `the lab undoes each drill this long after it (${untimed.join(', ')} excepted: they have no undo)` },
    TIME_BOXES.map(([value, text]) => h('option', { value, text })));
  els.zone = null;
  mine = [h('label', { class: 'field' }, 'drills last ', els.timeBox), ...sets.slice(0, 1), serversGroup(),
    ...(zoned ? [zonesGroup()] : []), ...sets.slice(1)];
  box.prepend(...mine);
}

/** initControls takes the controls' element; renderControls builds them from the first snapshot. */
export function initControls(el) {
  box = el;
}

/** renderControls shows the settings in force (unless the user is busy). */
export function renderControls(snap) {
  drills = new Map((snap.drills || []).map((d) => [d.action, d]));
  const controls = snap.controls || [];
  const zones = (snap.zones || []).map((z) => z.name);
  const key = builtKey(controls, zones);
  if (key !== built) {
    const timed = els.timeBox ? els.timeBox.value : '';
    build(controls, zones.length > 0);
    built = key;
    els.timeBox.value = timed;
  }
  fillOptions(els.server, [...(snap.servers || []).map((x) => x.name), 'all'], null);
  if (els.zone) fillOptions(els.zone, zones, null);
  els.addServer.disabled = !(snap.features || {}).add_server;
  els.addServer.title = els.addServer.disabled ? (snap.features || {}).reason || '' : '';
  if (pending > 0) return;
  const now = new Map(controls.map((c) => [c.path, c]));
  for (const [path, show] of shown) if (now.has(path)) show(now.get(path));
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
  select.replaceChildren(...names.map((n) => h('option', { value: n, text: n === 'all' ? 'all servers' : n })));
  if (names.includes(keepValue)) select.value = keepValue;
}
