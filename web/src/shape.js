// Shaping the servers as the references do: any speed from 5x slower to
// 4x faster on a running server (a slow drill; above 1 it runs faster),
// on both clocks; and, on the virtual clock, a form that rebuilds the
// fleet (count, workers, queue, work distribution) and plays from 0.
import { h } from './dom.js';
import { chaos, post, toast } from './api.js';

/** SPEEDS are the speeds offered: 5x slower (0.2) to 4x faster. */
export const SPEEDS = [0.2, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4];
const DISTS = ['constant', 'exponential', 'lognormal'];

/** speedPicker is a menu that sets target()'s speed. */
export function speedPicker(target, id) {
  const sel = h('select', { class: 'speed-pick', id, 'aria-label': 'set speed', title: 'set the server\'s speed: 0.2 is 5× slower, 4 is 4× faster',
    onchange: async () => {
      const speed = Number(sel.value);
      sel.value = '';
      if (speed > 0) await chaos({ action: 'slow', target: target(), speed });
    } },
  h('option', { value: '', text: 'speed…' }), ...SPEEDS.map((v) => h('option', { value: v, text: v + '×' })));
  return sel;
}

let form = null;

/** renderFleet shows the fleet form on the virtual clock (hidden live). */
export function renderFleet(snap) {
  const box = document.getElementById('controls');
  if (!snap.virtual) {
    if (form) form.hidden = true;
    return;
  }
  if (!form) form = build(box);
  form.hidden = false;
  const n = (snap.servers || []).length;
  const b = ((snap.servers || [])[0] || {}).backend;
  if (!b) return;
  const key = `${n}/${b.workers}/${(b.queue || {}).capacity || 0}`;
  if (form.dataset.key !== key && !form.contains(document.activeElement)) { // the fleet as it stands
    form.dataset.key = key;
    form.els.count.value = String(n);
    form.els.workers.value = String(b.workers);
    form.els.queue.value = String((b.queue || {}).capacity || 0);
  }
}

function build(box) {
  const num = (id, min, max) => h('input', { type: 'number', id, min, max, step: 1 });
  const els = { count: num('fleet-count', 1, 64), workers: num('fleet-workers', 1, 1024), queue: num('fleet-queue', 0, 100000),
    dist: h('select', { id: 'fleet-dist' }, h('option', { value: '', text: 'work as now' }), ...DISTS.map((d) => h('option', { value: d, text: d }))) };
  const go = h('button', { id: 'fleet-rebuild', text: 'rebuild', title: 'rebuild the fleet and play the lab from 0 (the drills are dropped)',
    onclick: async () => {
      const body = { count: Number(els.count.value), workers: Number(els.workers.value), queue: Number(els.queue.value) };
      if (els.dist.value) body.distribution = els.dist.value;
      const out = await post('/api/fleet', body);
      if (out) toast(`fleet: ${out.servers} servers of ${out.workers} workers, queue ${out.queue || 'unbounded'}, ${out.distribution} work; from 0`);
    } });
  const el = h('fieldset', { class: 'group', id: 'fleet' }, h('legend', { text: 'Fleet (virtual: rebuilds and plays from 0)' }),
    h('label', { class: 'field' }, 'servers ', els.count), h('label', { class: 'field' }, 'workers ', els.workers),
    h('label', { class: 'field' }, 'queue ', els.queue, ' (0: unbounded)'), h('label', { class: 'field' }, 'work ', els.dist), go);
  el.els = els;
  box.append(el);
  return el;
}

/**
 * addServerChoices are the add-server button's speed and workers (empty:
 * like the last server); body() is what they add to the drill.
 */
export function addServerChoices() {
  const speed = h('select', { id: 'add-speed', 'aria-label': 'new server speed', title: 'the new server\'s speed (default: the last server\'s)' },
    h('option', { value: '', text: 'speed as last' }), ...SPEEDS.map((v) => h('option', { value: v, text: v + '×' })));
  const workers = h('input', { type: 'number', id: 'add-workers', min: 1, max: 1024, step: 1, placeholder: 'workers',
    'aria-label': 'new server workers', title: 'the new server\'s workers (default: the last server\'s)' });
  const body = () => {
    const out = {};
    if (speed.value) out.speed = Number(speed.value);
    if (workers.value) out.workers = Number(workers.value);
    return out;
  };
  return { els: [speed, workers], body };
}
