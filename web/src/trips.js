// Followed requests (lab watch): a snapshot's "trips" are the stories of
// a bounded sample of requests (every one at a low rate). Each attempt in
// flight is a dot on the diagram, coloured by kind, placed where it is at
// the snapshot's virtual instant: on the wire to the balancer, to its
// server, in that server, or on the way back. Moves between snapshots are
// eased by CSS; where a dot is comes from virtual time alone. Clicking a
// dot (or a line of the list under the diagram) tells the request's story.
import { h, setText, ms, secs } from './dom.js';

const SVG = 'http://www.w3.org/2000/svg';
const SHOW_ENDED_S = 0.3; // an ended request's dot stays at the clients this long (virtual)
const LIST_MAX = 8; // requests listed under the diagram, newest first

let root, layer, list, story, storyBody;
let shown = null; // seq of the request whose story is open
const known = new Map(); // seq -> its newest story seen (kept while its story is open)
const dots = new Map(); // key -> circle

/** initTrips adds the dots' layer to the diagram and the story panel. */
export function initTrips(diagramEl) {
  root = diagramEl;
  layer = document.createElementNS(SVG, 'svg');
  layer.setAttribute('class', 'trips');
  root.append(layer);
  layer.addEventListener('click', (e) => {
    const dot = e.target.closest('.trip');
    if (dot) { e.stopPropagation(); openStory(Number(dot.dataset.seq)); }
  });
  list = h('div', { id: 'trip-list', class: 'trip-list', hidden: true });
  root.after(list);
  storyBody = h('div', { class: 'story-body' });
  story = h('aside', { id: 'story', class: 'inspector story', hidden: true },
    h('div', { class: 'insp-head' }, h('h2', { class: 'insp-title', id: 'story-title' }),
      h('button', { class: 'close', 'aria-label': 'close', text: '✕', onclick: closeStory })), storyBody);
  document.body.append(story);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeStory(); });
}

function closeStory() {
  shown = null;
  story.hidden = true;
}

function openStory(seq) {
  shown = seq;
  story.hidden = false;
  story.dataset.seq = String(seq);
  renderStory();
}

/** renderTrips draws one snapshot's followed requests (none live: hidden). */
export function renderTrips(snap) {
  const trips = snap.trips;
  if (!Array.isArray(trips)) {
    layer.replaceChildren();
    list.hidden = true;
    return;
  }
  const t = snap.t_s;
  layer.dataset.t = String(t); // the virtual instant the dots show
  for (const tr of trips) known.set(tr.seq, tr);
  for (const seq of known.keys()) if (seq !== shown && !trips.some((x) => x.seq === seq)) known.delete(seq);
  drawDots(trips, t, hopOf(snap));
  drawList(trips, t);
  if (shown !== null) renderStory();
}

/** hopOf is the network's one-way hop in seconds (for a leg whose end is not known yet). */
function hopOf(snap) {
  const b = ((snap.servers || [])[0] || {}).backend || {};
  return Math.max(1e-4, (b.hop_ms || 0.5) / 1000);
}

/**
 * waypoints of an attempt: [place, instant] in the order it passes them;
 * an instant not reached yet is null. When the balancer gave up on it
 * (504), its way back starts then, whatever the server still does.
 */
function waypoints(a) {
  const lb = a.balancer ? 'lb:' + a.balancer : null;
  const srv = a.server ? 'server:' + a.server : null;
  const w = [['clients', a.sent_s]];
  if (lb) w.push([lb, a.at_lb_s]);
  if (srv && !a.no_server) {
    const leaves = a.lb_gave_up ? a.back_at_lb_s : a.replied_s;
    if (!a.lb_gave_up || a.at_server_s === null || a.at_server_s <= leaves) w.push([srv, a.at_server_s], [srv, leaves]);
    if (lb) w.push([lb, a.back_at_lb_s]);
  }
  w.push(['clients', a.at_client_s]);
  return w;
}

/** where is an attempt at t: {from, to, f} (f the share of the leg done), or null. */
function where(a, t, hop) {
  if (a.at_client_s !== null && a.at_client_s <= t) return null;
  const w = waypoints(a);
  let i = 0;
  while (i + 1 < w.length && w[i + 1][1] !== null && w[i + 1][1] <= t) i++;
  if (i + 1 >= w.length) return null;
  const [from, t0] = w[i];
  const [to, t1] = w[i + 1];
  if (from === to) return { from, to, f: 0, at: true }; // in the server: queued or in service
  const span = t1 !== null ? t1 - t0 : hop;
  return { from, to, f: span > 0 ? Math.min(1, (t - t0) / span) : 1, at: false };
}

/** leftBehind: the balancer gave up on it, and the server still has it (work for nobody). */
function leftBehind(a, t) {
  return a.lb_gave_up && a.server && a.at_server_s !== null && a.at_server_s <= t &&
    a.back_at_lb_s <= t && (a.replied_s === null || a.replied_s > t);
}

function center(place, box) {
  let el;
  if (place === 'clients') el = root.querySelector('.node.clients');
  else if (place.startsWith('lb:')) el = root.querySelector(`.node.balancer[data-name="${place.slice(3)}"]`);
  else el = root.querySelector(`.server[data-name="${place.slice(7)}"]`);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { x: r.left - box.left + r.width / 2, y: r.top - box.top + r.height / 2, w: r.width, h: r.height };
}

function drawDots(trips, t, hop) {
  const box = root.getBoundingClientRect();
  layer.setAttribute('viewBox', `0 0 ${box.width} ${box.height}`);
  const keep = new Set();
  const place = (key, x, y, cls, seq, stage) => {
    keep.add(key);
    let c = dots.get(key);
    if (!c) {
      c = document.createElementNS(SVG, 'circle');
      c.setAttribute('r', '6');
      c.dataset.seq = String(seq);
      dots.set(key, c);
      layer.append(c);
    }
    c.setAttribute('class', cls);
    c.dataset.stage = stage;
    c.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`;
  };
  for (const tr of trips) {
    if (tr.start_s > t) continue;
    if (tr.end_s !== null && tr.end_s <= t) {
      if (t - tr.end_s <= SHOW_ENDED_S) {
        const c = center('clients', box);
        if (c) place(`${tr.seq}`, c.x - c.w / 2 - 8, c.y, `trip ended ${tr.outcome}`, tr.seq, 'ended');
      }
    }
    tr.attempts.forEach((a, i) => {
      if (leftBehind(a, t)) {
        const at = center('server:' + a.server, box);
        if (at) place(`${tr.seq}.${i}.left`, at.x - at.w / 2 + 10 + (tr.seq % 7) * 9, at.y + at.h / 2 - 8, `trip ${a.kind} late`, tr.seq, 'server');
      }
      const p = where(a, t, hop);
      if (!p) return;
      const from = center(p.from, box);
      const to = center(p.to, box);
      if (!from || !to) return;
      const late = a.late || (tr.end_s !== null && tr.end_s <= t);
      const cls = `trip ${a.kind}${late ? ' late' : ''}`;
      if (p.at) { // on the card's left edge, spread out by request
        place(`${tr.seq}.${i}`, to.x - to.w / 2 + 10 + (tr.seq % 7) * 9, to.y + to.h / 2 - 8, cls, tr.seq, 'server');
        return;
      }
      const x = from.x + (to.x - from.x) * p.f;
      const y = from.y + (to.y - from.y) * p.f;
      place(`${tr.seq}.${i}`, x, y, cls, tr.seq, p.to === 'clients' || (p.from.startsWith('server') && p.to.startsWith('lb')) ? 'back' : 'out');
    });
  }
  for (const [key, c] of dots) if (!keep.has(key)) { c.remove(); dots.delete(key); }
}

/** drawList names the newest followed requests, each clickable. */
function drawList(trips, t) {
  const started = trips.filter((tr) => tr.start_s <= t).slice(-LIST_MAX).reverse();
  list.hidden = started.length === 0;
  const key = started.map((tr) => `${tr.seq}:${tr.outcome}`).join(',');
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(h('span', { class: 'trip-list-title', text: 'followed requests: ' }),
    ...started.map((tr) => h('button', { class: 'small trip-item ' + tr.outcome, 'data-seq': tr.seq,
      text: `#${tr.seq} ${tr.outcome === 'pending' ? '…' : tr.outcome}`, onclick: () => openStory(tr.seq) })));
}

/** storyLines are a request's story, one line per step. */
export function storyLines(tr) {
  const lines = [`started at ${secs3(tr.start_s)}` + (tr.client ? ` by client ${tr.client}` : '')];
  tr.attempts.forEach((a, i) => {
    const why = i === 0 ? '' : a.kind === 'retry' ? `, after attempt ${i} ${failure(tr.attempts[i - 1])}`
      : a.kind === 'hedge' ? `, attempt ${i} not answered after ${ms((a.sent_s - tr.attempts[i - 1].sent_s) * 1000)}` : '';
    const parts = [`attempt ${i + 1} (${a.kind}${why}) sent at ${secs3(a.sent_s)}`];
    if (a.balancer) parts.push(`${a.balancer} ${a.no_server ? 'found no eligible server: 503' : a.server ? 'picked ' + a.server : 'deciding'}`);
    else if (a.server) parts.push(`the client picked ${a.server}`);
    if (a.at_server_s !== null) {
      if (a.replied_s === null) parts.push(`at ${a.server} since ${secs3(a.at_server_s)}`);
      else parts.push(`${a.server}: queued ${ms(a.queue_ms)}, served ${ms(a.service_ms)}, ${a.status}`);
    }
    if (a.lb_gave_up) parts.push(`${a.balancer} gave up at ${secs3(a.back_at_lb_s)}: 504`);
    if (a.gave_up_s !== null) parts.push(`the client gave up at ${secs3(a.gave_up_s)} (attempt timeout)`);
    if (a.at_client_s !== null) parts.push(`answer back at ${secs3(a.at_client_s)}: ${a.late ? 'nobody waited for it' : a.result}`);
    else if (a.late) parts.push('nobody waits for it any more');
    lines.push(parts.join('; '));
  });
  if (tr.more) lines.push(`and ${tr.more} more attempt(s)`);
  lines.push(tr.end_s === null ? 'pending' : `${tr.outcome} at ${secs3(tr.end_s)}, after ${ms((tr.end_s - tr.start_s) * 1000)}`);
  return lines;
}

function failure(a) {
  if (a.lb_gave_up) return 'timed out at the balancer';
  if (a.gave_up_s !== null) return 'timed out at the client';
  return a.result ? `answered ${a.result}` : 'failed';
}

function secs3(x) {
  return x === null || x === undefined ? '–' : x.toFixed(3) + ' s';
}

function renderStory() {
  const tr = known.get(shown);
  setText(document.getElementById('story-title'), `Request #${shown}`);
  if (!tr) {
    storyBody.replaceChildren(h('p', { class: 'hint', text: 'no longer followed' }));
    return;
  }
  story.dataset.outcome = tr.outcome;
  const lines = storyLines(tr);
  const key = lines.join('\n');
  if (storyBody.dataset.key === key) return;
  storyBody.dataset.key = key;
  storyBody.replaceChildren(h('ol', { class: 'story-lines' }, ...lines.map((l) => h('li', { text: l }))),
    h('p', { class: 'hint', text: 'one of the requests lab watch follows (every one at a low rate); instants are virtual' }));
}
