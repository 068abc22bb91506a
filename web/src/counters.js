// The counters over the last 2 s: one tile per figure of the engine's
// table that names a window field (figures.js), with its label, unit and
// direction.
import { h, setText } from './dom.js';
import { tiled, better, format } from './figures.js';

const values = new Map();
let box;
let note;
let built = '';

/** initCounters makes the counters' place; the tiles come with the figures. */
export function initCounters(el) {
  box = h('div', { class: 'tiles' });
  note = h('p', { class: 'note' });
  el.replaceChildren(box, note);
}

function build(list) {
  values.clear();
  box.replaceChildren(...list.map((f) => {
    const v = h('span', { class: 'value', text: '–' });
    values.set(f.name, v);
    return h('div', { class: 'tile', 'data-key': f.name, 'data-better': f.higher ? 'higher' : 'lower',
      title: `${f.label}: ${f.doc} (${better(f)})` }, v, h('span', { class: 'label', text: f.label }));
  }));
}

/** renderCounters writes the window's figures. */
export function renderCounters(snap) {
  const list = tiled();
  const key = JSON.stringify(list);
  if (key !== built) {
    build(list);
    built = key;
  }
  const w = snap.window || {};
  // A percentile past the latency histogram's largest bucket is only a
  // lower bound (window.beyond): "> 30.00 s", not a measured 30.00 s.
  const beyond = new Set(w.beyond || []);
  for (const f of list) {
    const v = values.get(f.name);
    // a figure only some labs have (the cross-zone share) is absent from the others' windows
    v.parentElement.hidden = !(f.window in w);
    setText(v, (beyond.has(f.window) ? '> ' : '') + format(f, w[f.window]));
  }
  const latency = list.filter((f) => f.unit === 'ms').map((f) => f.label).join(' and ');
  setText(note, w.latency_note ? `${latency}: ${w.latency_note}` : '');
}
