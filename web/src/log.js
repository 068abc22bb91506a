// The event log: chaos, script events and what the balancers report.
import { h } from './dom.js';

let list;
let shown = '';

export function initLog(el) {
  list = el;
}

/** renderLog shows the log, newest first, when it changed. */
export function renderLog(snap) {
  const lines = snap.log || [];
  const last = lines[lines.length - 1];
  const key = (snap.log_total || 0) + ':' + (last ? last.t_s + last.text : '');
  if (key === shown) return;
  shown = key;
  const items = lines.slice().reverse().map((l) => h('li', {},
    h('span', { class: 't', text: Number(l.t_s).toFixed(1) + ' s' }), ' ', h('span', { class: 'text', text: l.text })));
  if (items.length === 0) items.push(h('li', { class: 'empty', text: 'nothing yet: drills, script events and breaker transitions appear here' }));
  list.replaceChildren(...items);
}
