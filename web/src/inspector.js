// The inspector: what one server, balancer or the clients report, and
// actions on them. Opened by clicking the diagram.
import { h, ms, pct, rate, count, isNum } from './dom.js';
import { actionButtons } from './controls.js';
import { chaos } from './api.js';
import { speedPicker } from './shape.js';

let panel, title, details, actions;
let open = null; // {kind, name}

export function initInspector(el) {
  panel = el;
  title = h('h2', { class: 'insp-title' });
  details = h('dl', { class: 'details' });
  actions = h('div', { class: 'actions' });
  const close = h('button', { class: 'close', 'aria-label': 'close', text: '✕', onclick: closeInspector });
  panel.replaceChildren(h('div', { class: 'insp-head' }, title, close), details, actions);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeInspector(); });
}

export function closeInspector() {
  open = null;
  panel.hidden = true;
}

/** openInspector shows kind (server, balancer, clients) called name. */
export function openInspector(kind, name, snap) {
  open = { kind, name };
  panel.hidden = false;
  panel.dataset.kind = kind;
  panel.dataset.name = name || '';
  title.textContent = kind === 'clients' ? 'Clients (loadgen)' : `${kind === 'server' ? 'Server' : 'Balancer'} ${name}`;
  const list = [];
  if (kind === 'server') {
    list.push(...actionButtons(() => name), speedPicker(() => name, 'insp-speed'));
    list.push(h('button', { class: 'action', 'data-action': 'remove', text: 'remove', onclick: () => chaos({ action: 'remove-server', target: name }) }));
  } else if (kind === 'balancer') {
    list.push(h('p', { class: 'hint', text: 'The algorithm and balancer settings apply to every balancer: see the controls.' }));
  } else {
    list.push(h('p', { class: 'hint', text: 'Rate, retries, the budget and hedging are in the controls.' }));
  }
  actions.replaceChildren(...list);
  if (snap) renderInspector(snap);
}

/** renderInspector refreshes the open inspector's figures. */
export function renderInspector(snap) {
  if (!open) return;
  let rows;
  if (open.kind === 'server') rows = serverRows((snap.servers || []).find((s) => s.name === open.name), snap.balancers || []);
  else if (open.kind === 'balancer') rows = balancerRows((snap.balancers || []).find((b) => b.name === open.name));
  else rows = clientRows(snap);
  details.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', { text: k }), h('dd', { text: v })]));
}

function serverRows(s, lbs) {
  if (!s) return [['state', 'gone (removed or the lab changed)']];
  const b = s.backend;
  const rows = [['badges', (s.badges || []).map((x) => x.text).join(' ') || 'none']];
  if (!b) return [...rows, ['state', s.error || 'not read yet']];
  const c = b.counters;
  rows.push(['up', b.up ? 'yes' : 'no (killed)'], ['speed', `${b.speed} (lab: ${b.configured_speed})`],
    ['errors', b.fail ? 'failing: every request a fast 500' : pct(b.errors, 0)],
    ['workers', `${b.busy} busy of ${b.workers}`], ['queue', `${b.queued} (${queueText(b.queue)})`],
    ['limiter', b.limiter.kind === 'none' ? 'none' : `${b.limiter.kind}, limit ${b.limiter.limit}`],
    ['requests', `${rate(s.rate)}, ${pct(s.share, 0)} of all (last 2 s)`],
    ['arrived / completed', `${count(c.arrived)} / ${count(c.completed)}`],
    ['errors / rejected', `${count(c.errors)} / ${count(c.rejected)}`],
    ['dropped / lost', `${count(c.dropped)} / ${count(c.lost)}`], ['longest queue', count(c.max_queue)]);
  if (isNum(s.cache_hit_ratio)) rows.push(['cache hits', pct(s.cache_hit_ratio) + ' (last 2 s)']);
  const proxy = (lbs.find((b) => b.proxy) || {}).proxy;
  if (proxy) { // an external proxy: what its stats interface says of the server
    const p = (proxy.servers || []).find((x) => x.name === s.name);
    rows.push([`${proxy.name} sees`, p ? proxyServerText(proxy, p) : proxy.note || 'nothing per server']);
    return rows;
  }
  (s.balancers || []).forEach((v, i) => rows.push([`balancer ${i + 1} sees`,
    `out ${v.outstanding}, ewma ${ms(v.ewma_ms)}, peak ${ms(v.peak_ewma_ms)}, breaker ${v.breaker}` +
    `${v.healthy ? '' : ', ejected'}, ${count(v.picks)} picks` + reported(v)]));
  return rows;
}

/**
 * reported is what a balancer believes of a server from what the server
 * says of itself: its load reports' utilization, the weight wrr-orca gives
 * it (absent in its blackout, when the mean of the others stands in), and
 * its probe answer in prequal's pool (hot or cold, by the pool's q_rif).
 */
function reported(v) {
  let out = '';
  if (isNum(v.utilization) && v.utilization > 0) out += `, reports ${pct(v.utilization, 0)} busy`;
  if (isNum(v.orca_weight) && v.orca_weight > 0) out += `, wrr-orca weight ${v.orca_weight.toFixed(0)}`;
  const p = v.probe;
  if (p) out += `, in the probe pool: ${p.hot ? 'hot' : 'cold'}, ${p.rif} in flight, ${ms(p.latency_ms)}, ${ms(p.age_ms)} old`;
  return out;
}

function queueText(q) {
  const parts = [q.capacity ? `bounded ${q.capacity}` : 'unbounded', q.discipline];
  if (q.drop_expired) parts.push('drops expired');
  return parts.join(', ');
}

/** proxyServerText is one server as an external proxy's stats count it. */
function proxyServerText(proxy, p) {
  const parts = [`${p.now} in flight`];
  if (p.sent !== null && p.sent !== undefined) parts.push(`${count(p.sent)} sent`);
  if (proxy.kind === 'caddy') parts.push(`${p.fails} recent fails`);
  if (p.status) parts.push(p.status);
  return parts.join(', ');
}

/** proxyRows are an external proxy's card: what it runs and what its stats give. */
function proxyRows(b) {
  const p = b.proxy;
  const rows = [['proxy', `${p.name} (kind: ${p.kind})`], ['algorithm', `${b.algorithm || '?'}${p.directive ? ` (${p.directive})` : ''}`],
    ['requests sent', `${count(b.picks)} (${rate(b.rate)}), the backends' count`]];
  if (p.active_connections !== null && p.active_connections !== undefined) {
    rows.push(['active connections', count(p.active_connections)], ['requests handled', count(p.requests)]);
  }
  for (const x of p.servers || []) rows.push([x.name, proxyServerText(p, x)]);
  rows.push(['figures from', p.source || 'nowhere']);
  if (p.note) rows.push(['not shown', p.note]);
  rows.push(['error', b.error || 'none']);
  return rows;
}

function balancerRows(b) {
  if (!b) return [['state', 'gone']];
  if (b.proxy) return proxyRows(b);
  const st = b.settings || {};
  const br = st.breaker || {};
  return [['algorithm', b.algorithm || '?'], ['picks', `${count(b.picks)} (${rate(b.rate)})`],
    ['timeout', st.timeout || '–'], ['load info', `${st.load || '?'}${st.load === 'shared' ? ', every ' + st.refresh : ''}`],
    ['breakers', br.enabled ? `on: ${br.threshold * 100}% of ${br.window} fail → open ${br.open}, ${br.probes} probes` : 'off'],
    ['health checks', (st.health || {}).enabled ? 'on' : 'off'], ...idleRows(b.idle), ['error', b.error || 'none']];
}

/**
 * idleRows are a balancer's idle queue when its algorithm keeps one (jiq):
 * the servers in it, head first (the next pick takes the head), and how
 * many picks found an idle server there.
 */
function idleRows(q) {
  if (!q) return [];
  const shown = (q.queue || []).slice(0, 12).join(', ') + ((q.queue || []).length > 12 ? ', …' : '');
  return [['idle queue', (q.queue || []).length ? `${q.queue.length}: ${shown}` : 'empty (a pick draws at random)'],
    ['announcements', `${count(q.received)} taken, ${count(q.from_idle)} picks from the queue`]];
}

function clientRows(snap) {
  const c = snap.clients || {};
  const s = snap.settings || {};
  return [['mode', c.mode || '?'], ['rate', `${rate(c.rate)} target, ${rate(c.offered)} offered`],
    ['pending', count(c.pending)], ['late sends', count(c.late)], ['retries', String(s.retries ?? 0)],
    ['retry budget', s.budget > 0 ? pct(s.budget, 0) : 'none'], ['hedge', s.hedge || 'off'],
    ['balancing', s.client_side ? `client-side (${s.algorithm})` : 'through the balancers'],
    ['error', c.error || 'none']];
}
