// The diagram: clients, balancers and servers, with wires whose thickness
// is the request rate to each server (a cross marks one getting none).
import { h, setText, rate, MANY } from './dom.js';
import { makeCard, updateCard } from './servercard.js';

const SVG = 'http://www.w3.org/2000/svg';
const STACK_MAX = 6; // up to this many servers are drawn in one column
const cards = new Map(); // server name -> card element
const lbNodes = new Map();
let root, wires, clientsNode, lbTier, serverTier, onPick;

/** initDiagram builds the tiers; pick(kind, name) is called on a click. */
export function initDiagram(el, pick) {
  root = el;
  onPick = pick;
  wires = document.createElementNS(SVG, 'svg');
  wires.setAttribute('class', 'wires');
  wires.setAttribute('aria-hidden', 'true');
  clientsNode = h('button', { class: 'node clients', 'data-kind': 'clients' });
  lbTier = h('div', { class: 'tier lbs' });
  serverTier = h('div', { class: 'tier servers' });
  root.replaceChildren(wires, h('div', { class: 'tier clients-tier' }, clientsNode), lbTier, serverTier);
  root.addEventListener('click', onClick);
  root.addEventListener('keydown', (e) => { if (e.key === 'Enter') onClick(e); });
  new ResizeObserver(() => drawWires(lastSnap)).observe(root);
}

function onClick(e) {
  const server = e.target.closest('.server');
  if (server) return onPick('server', server.dataset.name);
  const node = e.target.closest('.node');
  if (node) onPick(node.dataset.kind, node.dataset.name);
}

let lastSnap = null;

// With more than MANY servers a card out of sight keeps the newest figures
// it was given and shows them when it comes into view.
const sight = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const el = e.target;
    el.inSight = e.isIntersecting;
    if (el.inSight && el.pending) { updateCard(el, el.pending); el.pending = null; }
  }
}, { rootMargin: '100px' });

/**
 * zoneIndex maps a zone's name to its place among the lab's zones (a lab
 * with zones: snap.zones); the cards, nodes and wires of zone k take the
 * class zone-k (six colours, then again).
 */
function zoneIndex(snap) {
  const m = new Map();
  (snap.zones || []).forEach((z, i) => m.set(z.name, i % 6));
  return m;
}

/** zoneClass marks el with the zone of item (none without zones). */
function zoneClass(el, zi, item) {
  const k = item.zone && zi.has(item.zone) ? String(zi.get(item.zone)) : '';
  if (el.dataset.zi !== k) { if (k) el.dataset.zi = k; else delete el.dataset.zi; }
}

/** renderDiagram draws one snapshot. */
export function renderDiagram(snap) {
  lastSnap = snap;
  const zi = zoneIndex(snap);
  const c = snap.clients || {};
  setText(clientsNode, `clients\n${rate(c.offered)} offered\n${c.pending ?? 0} pending`);
  syncNodes(lbNodes, lbTier, snap.balancers || [], (b) => h('button', { class: 'node balancer', 'data-kind': 'balancer', 'data-name': b.name }),
    (el, b) => {
      el.classList.toggle('exited', !!b.exited);
      el.classList.toggle('proxy', !!b.proxy); // an external proxy (HAProxy, nginx, Caddy) in the lb's place
      el.title = b.exited ? `its process exited: ${b.exited}` : (b.proxy && b.proxy.directive) || '';
      const name = b.proxy ? b.proxy.name : b.name;
      // an idle-queue algorithm (jiq): how many servers wait in its queue
      const idle = b.idle ? `\n${(b.idle.queue || []).length} idle` : '';
      const zone = b.zone ? `\nzone ${b.zone}` : '';
      setText(el, `${name}${b.exited ? ' EXITED' : ''}\n${b.algorithm || '?'}\n${rate(b.rate)}${idle}${zone}`);
      zoneClass(el, zi, b);
    });
  lbTier.hidden = (snap.balancers || []).length === 0;
  root.classList.toggle('no-lb', lbTier.hidden);
  const many = (snap.servers || []).length > MANY;
  // in a lab with zones the servers are grouped by zone, in the lab's order of zones
  const servers = zi.size === 0 ? (snap.servers || [])
    : (snap.servers || []).map((s, i) => ({ s, i })).sort((a, b) => (zi.get(a.s.zone) ?? 0) - (zi.get(b.s.zone) ?? 0) || a.i - b.i).map((x) => x.s);
  syncNodes(cards, serverTier, servers, (s) => { const el = makeCard(s.name); sight.observe(el); return el; },
    (el, s) => { zoneClass(el, zi, s); if (many && !el.inSight) el.pending = s; else { el.pending = null; updateCard(el, s); } });
  // a few servers stack in one column so no wire passes behind a card
  serverTier.classList.toggle('stacked', (snap.servers || []).length <= STACK_MAX);
  serverTier.classList.toggle('many', many);
  drawWires(snap);
}

/** syncNodes keeps one element per item (by name), in the items' order. */
function syncNodes(map, parent, items, make, update) {
  const names = new Set(items.map((x) => x.name));
  for (const [name, el] of map) {
    if (!names.has(name)) { el.remove(); map.delete(name); if (map === cards) sight.unobserve(el); }
  }
  items.forEach((item, i) => {
    let el = map.get(item.name);
    if (!el) { el = make(item); map.set(item.name, el); }
    if (parent.children[i] !== el) parent.insertBefore(el, parent.children[i] || null);
    update(el, item);
  });
}

/**
 * drawWires lays lines from the balancer tier (or the clients) to each
 * server. When a straight wire would pass over another card (more servers
 * than fit one column beside the balancers, or a phone's stacked layout),
 * it draws a bus instead: one trunk to a bar along the servers' side, and
 * a short stub into each card, its width the card's rate, ✕ at its end.
 */
function drawWires(snap) {
  if (!snap || !root) return;
  const zi = zoneIndex(snap);
  const box = root.getBoundingClientRect();
  wires.setAttribute('viewBox', `0 0 ${box.width} ${box.height}`);
  const from = rel(lbTier.hidden ? clientsNode.getBoundingClientRect() : lbTier.getBoundingClientRect(), box);
  const max = Math.max(1, ...(snap.servers || []).map((s) => s.rate || 0));
  const width = (r) => (r > 0 ? 1 + (7 * r) / max : 1);
  const shapes = [];
  const client = rel(clientsNode.getBoundingClientRect(), box);
  if (!lbTier.hidden) shapes.push(line(edge(client, from), edge(from, client), 2, 'wire in'));
  const targets = (snap.servers || []).filter((s) => cards.get(s.name))
    .map((s) => ({ s, to: rel(cards.get(s.name).getBoundingClientRect(), box) }));
  const straight = targets.map(({ to }) => [edge(from, to), edge(to, from)]);
  const bus = straight.some(([a, b], i) => targets.some((o, j) => j !== i && crosses(a, b, o.to)));
  if (serverTier.classList.contains('bus') !== bus) serverTier.classList.toggle('bus', bus); // room for the stubs
  if (!bus) {
    targets.forEach(({ s }, i) => {
      const [a, b] = straight[i];
      const r = s.rate || 0;
      shapes.push(line(a, b, width(r), wireClass(s, r, zi), s.name));
      if (r <= 0) shapes.push(cross((a.x + b.x) / 2, (a.y + b.y) / 2, s.name));
    });
    paint(wires, shapes);
    return;
  }
  const tier = rel(serverTier.getBoundingClientRect(), box);
  const face = edge(tier, from);
  const vertical = face.x === tier.x || face.x === tier.x + tier.w; // the bar runs down the tier's side (else across its top or bottom)
  const out = vertical ? { x: face.x === tier.x ? -1 : 1, y: 0 } : { x: 0, y: face.y === tier.y ? -1 : 1 };
  const bar = { x: face.x + out.x * STUB, y: face.y + out.y * STUB };
  const onBar = [];
  let total = 0;
  for (const { s, to } of targets) {
    const a = edge(to, from);
    const dir = sideOf(a, to);
    const b = { x: a.x + dir.x * STUB, y: a.y + dir.y * STUB };
    const r = s.rate || 0;
    total += r;
    shapes.push(line(b, a, width(r), wireClass(s, r, zi), s.name));
    if (r <= 0) shapes.push(cross(b.x + dir.x * 6, b.y + dir.y * 6, s.name));
    if (vertical ? Math.abs(b.x - bar.x) < 1 : Math.abs(b.y - bar.y) < 1) onBar.push(b);
  }
  if (onBar.length > 0) {
    const ends = onBar.map((p) => (vertical ? p.y : p.x));
    const lo = Math.min(...ends, vertical ? bar.y : bar.x), hi = Math.max(...ends, vertical ? bar.y : bar.x);
    shapes.push(vertical ? line({ x: bar.x, y: lo }, { x: bar.x, y: hi }, 2, 'wire bar') : line({ x: lo, y: bar.y }, { x: hi, y: bar.y }, 2, 'wire bar'));
  }
  shapes.push(line(edge(from, tier), bar, width(total / Math.max(1, targets.length)) + 1, 'wire trunk'));
  paint(wires, shapes);
}

/** wireClass is a server's wire's class: idle, and its zone's colour. */
function wireClass(s, r, zi) {
  const z = s.zone && zi.has(s.zone) ? ` zone-${zi.get(s.zone)}` : '';
  return (r > 0 ? 'wire' : 'wire idle') + z;
}

const STUB = 14; // a bus stub's length (px): the bus class's gaps leave room for it

/** sideOf is the outward direction of the side of rect r that point p lies on. */
function sideOf(p, r) {
  if (p.x === r.x) return { x: -1, y: 0 };
  if (p.x === r.x + r.w) return { x: 1, y: 0 };
  if (p.y === r.y) return { x: 0, y: -1 };
  return { x: 0, y: 1 };
}

/** crosses reports whether the segment a-b passes over rect r (its ends aside). */
function crosses(a, b, r) {
  for (let k = 1; k < 40; k++) {
    const x = a.x + ((b.x - a.x) * k) / 40, y = a.y + ((b.y - a.y) * k) / 40;
    if (x > r.x + 2 && x < r.x + r.w - 2 && y > r.y + 2 && y < r.y + r.h - 2) return true;
  }
  return false;
}

function rel(r, box) {
  return { x: r.left - box.left, y: r.top - box.top, w: r.width, h: r.height };
}

/** edge is the point of rect a facing rect b: side by side or stacked. */
function edge(a, b) {
  if (b.x >= a.x + a.w) return { x: a.x + a.w, y: a.y + a.h / 2 };
  if (b.x + b.w <= a.x) return { x: a.x, y: a.y + a.h / 2 };
  if (b.y >= a.y + a.h) return { x: a.x + a.w / 2, y: a.y + a.h };
  return { x: a.x + a.w / 2, y: a.y };
}

/** line is a wire from a to b (a shape for paint). */
function line(a, b, width, cls, name) {
  return { tag: 'line', attrs: { x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'stroke-width': width.toFixed(1), class: cls, 'data-name': name } };
}

/** cross is the ✕ of a server that gets nothing. */
function cross(x, y, name) {
  return { tag: 'text', attrs: { x, y, class: 'cross', 'data-name': name }, text: '✕' };
}

/**
 * paint makes svg's children the shapes, in order, changing only the
 * attributes that differ and creating only the elements it lacks: with
 * 1,000 servers a frame redraws 1,000 stubs, of which few move.
 */
function paint(svg, shapes) {
  const have = svg.children;
  shapes.forEach((s, i) => {
    let el = have[i];
    if (!el || el.localName !== s.tag) {
      const fresh = document.createElementNS(SVG, s.tag);
      if (el) svg.replaceChild(fresh, el); else svg.append(fresh);
      el = fresh;
    }
    for (const [k, v] of Object.entries(s.attrs)) {
      if (v === undefined) {
        if (el.hasAttribute(k)) el.removeAttribute(k);
      } else if (el.getAttribute(k) !== String(v)) el.setAttribute(k, v);
    }
    if (s.text !== undefined && el.textContent !== s.text) el.textContent = s.text;
  });
  while (have.length > shapes.length) svg.lastElementChild.remove();
}
