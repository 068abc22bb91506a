// One server card of the diagram: workers as squares, the queue as bars
// coloured by attempt kind, badges, and a line of figures.
import { h, setText, ms, pct, rate, count, isNum } from './dom.js';

const MAX_WORKERS = 32; // beyond this the card shows busy/workers as text
const MAX_BARS = 48; // queue bars drawn; the rest is "+N"

/** makeCard builds the stable elements of a server card. */
export function makeCard(name) {
  const el = h('div', { class: 'server', 'data-name': name, role: 'button', tabindex: 0,
    'aria-label': 'server ' + name });
  el.parts = {
    name: h('span', { class: 'srv-name', text: name }),
    badges: h('span', { class: 'badges' }),
    workers: h('div', { class: 'workers', title: 'workers: filled = busy' }),
    queue: h('div', { class: 'queue', title: 'queue, oldest first' }),
    line: h('div', { class: 'srv-line' }),
    share: h('div', { class: 'srv-share' }),
  };
  const p = el.parts;
  el.append(h('div', { class: 'srv-head' }, p.name, p.badges), p.workers, p.queue, p.line, p.share);
  return el;
}

/** updateCard writes one snapshot's figures for server s into card el. */
export function updateCard(el, s) {
  const b = s.backend || {};
  el.dataset.share = isNum(s.share) ? s.share.toFixed(4) : '';
  el.dataset.rate = isNum(s.rate) ? s.rate.toFixed(2) : '0';
  el.classList.toggle('down', b.up === false || !!s.exited);
  el.classList.toggle('unread', !s.backend);
  drawBadges(el.parts.badges, s);
  drawWorkers(el.parts.workers, b.workers || 0, b.busy || 0);
  drawQueue(el.parts.queue, b.queued_kinds || [], b.queued_abandoned || []);
  setText(el.parts.line, figures(s));
  setText(el.parts.share, `${rate(s.rate)} · ${pct(s.share, 0)} of requests${s.zone ? ' · zone ' + s.zone : ''}`);
}

function drawBadges(box, s) {
  const key = (s.badges || []).map((b) => b.kind + b.text).join('|') + (s.error ? '|err' : '');
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const list = (s.badges || []).map((b) => h('span', { class: 'badge ' + b.kind, text: b.text }));
  if (s.error && !s.exited) list.push(h('span', { class: 'badge unread', title: s.error, text: 'NO STATE' }));
  box.replaceChildren(...list);
}

function drawWorkers(box, workers, busy) {
  const key = workers + '/' + busy;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  if (workers > MAX_WORKERS) {
    box.replaceChildren(h('span', { class: 'wtext', text: `${busy}/${workers} busy` }));
    return;
  }
  if (box.querySelector('.wtext')) box.replaceChildren();
  keep(box, 'i', workers, (el, i) => setClass(el, i < busy ? 'w busy' : 'w'));
}

/**
 * drawQueue draws a bar per queued attempt, coloured by kind; an attempt
 * its client no longer waits for (queued_abandoned, which only the
 * simulator can tell) is grey.
 */
function drawQueue(box, kinds, abandoned) {
  const key = kinds.join(',') + '|' + abandoned.map((a) => (a ? 1 : 0)).join('');
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  const bars = Math.min(kinds.length, MAX_BARS);
  keep(box, 'i', bars, (el, i) => {
    const k = kinds[i];
    setClass(el, abandoned[i] ? 'q abandoned' : 'q ' + k);
    const title = abandoned[i] ? k + ', abandoned: its client no longer waits for it' : k;
    if (el.title !== title) el.title = title;
  });
  // after the bars: "+N" beyond MAX_BARS, "no queue" when empty, else nothing
  const tail = kinds.length > MAX_BARS ? ['more', '+' + (kinds.length - MAX_BARS)] : kinds.length === 0 ? ['empty', 'no queue'] : null;
  let last = box.lastElementChild;
  if (last && last.localName !== 'span') last = null;
  if (!tail) {
    if (last) last.remove();
  } else {
    if (!last) box.append(last = h('span'));
    setClass(last, tail[0]);
    setText(last, tail[1]);
  }
  if (abandoned.some(Boolean)) document.getElementById('legend-abandoned').hidden = false;
}

/**
 * keep makes box's leading children n elements of tag, updating the ones
 * there and creating only those it lacks (a card is redrawn 4 times a
 * second, and balls-bins has 1,000), before whatever follows them (the
 * queue's "+N").
 */
function keep(box, tag, n, update) {
  const have = [];
  let el = box.firstElementChild;
  while (el && el.localName === tag) { have.push(el); el = el.nextElementSibling; }
  while (have.length > n) have.pop().remove();
  while (have.length < n) { const x = document.createElement(tag); box.insertBefore(x, el); have.push(x); }
  have.forEach(update);
}

function setClass(el, cls) {
  if (el.className !== cls) el.className = cls;
}

/** figures is the line under a card: queue, completed, hits, limit, EWMA, outstanding. */
function figures(s) {
  const b = s.backend;
  if (!b) return s.error || 'no state yet';
  const parts = [`queue ${b.queued}`, `done ${count(b.counters.completed)}`];
  if (isNum(s.cache_hit_ratio)) parts.push(`hits ${pct(s.cache_hit_ratio, 0)}`);
  if (b.limiter && b.limiter.kind !== 'none') parts.push(`limit ${b.limiter.limit}`);
  if (isNum(s.ewma_ms)) parts.push(`ewma ${ms(s.ewma_ms)}`);
  if ((s.balancers || []).length) parts.push(`out ${s.outstanding}`);
  return parts.join(' · ');
}
