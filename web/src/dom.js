// Small DOM and formatting helpers shared by the dashboard's modules.

/**
 * h builds an element: h('div', {class: 'x', onclick: f}, 'text', child).
 * Attributes starting with "on" become listeners; null children are skipped.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** setText changes an element's text only when it differs (no reflow churn). */
export function setText(el, text) {
  const s = String(text);
  if (el.textContent !== s) el.textContent = s;
}

/**
 * MANY: above this many servers (balls-bins has 1,000) what is out of
 * sight is drawn only once it comes into view: the server cards (style.css's
 * .servers.many) and the servers' small charts (sparks.js). A smaller fleet
 * is drawn whole, every frame.
 */
export const MANY = 64;

/** isNum is true for a finite number (the API sends null for unknown). */
export const isNum = (x) => typeof x === 'number' && Number.isFinite(x);

/** ms formats a latency: 0.42 ms, 12.3 ms, 1.25 s. */
export function ms(x) {
  if (!isNum(x)) return '–';
  if (x >= 1000) return (x / 1000).toFixed(2) + ' s';
  if (x >= 100) return x.toFixed(0) + ' ms';
  if (x >= 10) return x.toFixed(1) + ' ms';
  return x.toFixed(2) + ' ms';
}

/** rate formats a per-second figure. */
export function rate(x) {
  if (!isNum(x)) return '–';
  return (x >= 100 ? x.toFixed(0) : x.toFixed(1)) + '/s';
}

/** pct formats a share in [0, 1]. */
export function pct(x, digits = 1) {
  if (!isNum(x)) return '–';
  return (x * 100).toFixed(digits) + '%';
}

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 }); // made once: toLocaleString makes one a call

/** count formats a whole number with thin grouping. */
export function count(x) {
  if (!isNum(x)) return '–';
  return grouped.format(Math.round(x));
}

/** secs formats a time since the lab started. */
export function secs(x) {
  return isNum(x) ? x.toFixed(1) + ' s' : '–';
}
