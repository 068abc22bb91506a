// The counters over the last 2 s.
import { h, setText, ms, pct, rate, count, isNum } from './dom.js';

const tiles = [
  ['offered', 'offered', (w) => rate(w.offered_per_s)],
  ['goodput', 'goodput', (w) => pct(w.goodput)],
  ['apr', 'attempts / request', (w) => (isNum(w.attempts_per_request) ? w.attempts_per_request.toFixed(2) : '–')],
  ['p50', 'p50', (w) => ms(w.p50_ms)],
  ['p99', 'p99', (w) => ms(w.p99_ms)],
  ['timeouts', 'timeouts', (w) => count(w.timeouts)],
  ['errors', 'errors', (w) => count(w.errors)],
  ['rejected', 'rejections', (w) => count(w.rejected)],
  ['retries', 'retries', (w) => count(w.retries)],
  ['hedges', 'hedges', (w) => count(w.hedges)],
  ['wasted', 'wasted', (w) => count(w.wasted)],
  ['failed', 'failed', (w) => count(w.failed)],
];

const values = new Map();
let note;

/** initCounters builds one tile per counter. */
export function initCounters(el) {
  const list = tiles.map(([key, label]) => {
    const v = h('span', { class: 'value', text: '–' });
    values.set(key, v);
    return h('div', { class: 'tile', 'data-key': key }, v, h('span', { class: 'label', text: label }));
  });
  note = h('p', { class: 'note' });
  el.replaceChildren(h('div', { class: 'tiles' }, list), note);
}

/** renderCounters writes the window's figures. */
export function renderCounters(snap) {
  const w = snap.window || {};
  for (const [key, , f] of tiles) setText(values.get(key), f(w));
  setText(note, w.latency_note ? 'p50 and p99: ' + w.latency_note : '');
}
