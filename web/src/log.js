// The event log: chaos, script events and what the balancers report. A
// filter hides the balancers' own lines (breaker transitions, health checks
// and outlier ejections), which can drown the drills when a breaker flaps.
import { h, setText } from './dom.js';

/**
 * The lines the balancers write themselves, by how they start: live each is
 * prefixed with its balancer (lb1: breaker s2: closed -> open; lb1: health
 * s2: down ...), the simulator's are not (breaker s2: ...; health s2: down ...).
 */
const BALANCER_LINES = /^(lb\d+: )?(breaker |health |outlier )/;

let list, hideBox, hiddenNote;
let shown = '';

export function initLog(el) {
  list = el;
  hideBox = h('input', { type: 'checkbox', id: 'log-hide-balancers', onchange: () => { shown = ''; if (lastSnap) renderLog(lastSnap); } });
  hiddenNote = h('span', { class: 'log-hidden' });
  el.before(h('label', { class: 'check log-filter' }, hideBox, ' hide breaker, health and outlier lines ', hiddenNote));
}

let lastSnap = null;

/** renderLog shows the log, newest first, when it or the filter changed. */
export function renderLog(snap) {
  lastSnap = snap;
  const all = snap.log || [];
  const last = all[all.length - 1];
  const key = (snap.log_total || 0) + ':' + (last ? last.t_s + last.text : '') + ':' + hideBox.checked;
  if (key === shown) return;
  shown = key;
  const lines = hideBox.checked ? all.filter((l) => !BALANCER_LINES.test(l.text)) : all;
  setText(hiddenNote, hideBox.checked && lines.length < all.length ? `(${all.length - lines.length} hidden)` : '');
  const items = lines.slice().reverse().map((l) => h('li', {},
    h('span', { class: 't', text: Number(l.t_s).toFixed(1) + ' s' }), ' ', h('span', { class: 'text', text: l.text })));
  if (items.length === 0) items.push(h('li', { class: 'empty', text: 'nothing yet: drills, script events and breaker transitions appear here' }));
  list.replaceChildren(...items);
}
