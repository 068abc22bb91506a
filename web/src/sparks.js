// "Requests in each server" as small multiples: one small line per server
// on a shared scale, its name on the left and its latest value on the
// right. One chart of five or more crossing lines is a tangle; a row each
// shows which server queues at a glance.
import uPlot from 'uplot';
import { h, setText, MANY } from './dom.js';

let rows = []; // {name, row, spark, value, plot, data, drawn, seen}
let key = '';
let top = 1; // the shared scale's top, read by every row's y range

// With more than MANY servers a row out of sight keeps its data and draws
// it when it comes into view: with 1,000 (balls-bins) most rows are, and
// drawing every one four times a second took a third of a frame.
const sight = new IntersectionObserver((entries) => {
  for (const e of entries) {
    const r = e.target.sparkRow;
    if (!r) continue;
    r.seen = e.isIntersecting;
    if (r.seen) draw(r);
  }
});

function draw(r) {
  if (!r.plot || !r.data || r.drawn === r.data) return;
  r.drawn = r.data;
  r.plot.setData(r.data);
}

/** renderSparks draws cols[i] (one column per server) against xs in box. */
export function renderSparks(box, xs, names, cols, width) {
  top = 1; // not Math.max(...all): 1,000 servers' 80 readings are too many arguments
  for (const col of cols) for (const v of col || []) if (v != null && v > top) top = v;
  const k = names.join('|') + '@' + width;
  if (k !== key) {
    key = k;
    for (const r of rows) { r.plot.destroy(); sight.unobserve(r.row); }
    rows = names.map((name) => {
      const spark = h('div', { class: 'spark' });
      const value = h('span', { class: 'spark-value' });
      const row = h('div', { class: 'spark-row', 'data-name': name }, h('span', { class: 'spark-name', text: name }), spark, value);
      const r = { name, row, spark, value, plot: null, data: null, drawn: null, seen: names.length <= MANY };
      row.sparkRow = r;
      if (!r.seen) sight.observe(row);
      return r;
    });
    box.replaceChildren(h('div', { class: 'sparks' }, ...rows.map((r) => r.row)),
      h('p', { class: 'spark-scale' }));
    for (const r of rows) r.plot = new uPlot(options(Math.max(120, width - 100)), [[], []], r.spark);
  }
  setText(box.querySelector('.spark-scale'), `shared scale: 0 to ${top}`);
  rows.forEach((r, i) => {
    const col = cols[i] || [];
    r.data = [xs, col];
    if (r.seen) draw(r);
    setText(r.value, latest(col) ?? '–');
  });
}

/** latest is the last known value of a column (null if none). */
export function latest(col) {
  for (let i = (col || []).length - 1; i >= 0; i--) if (col[i] != null) return col[i];
  return null;
}

function options(width) {
  return {
    width, height: 30,
    legend: { show: false },
    cursor: { show: false },
    scales: { x: { time: false }, y: { range: () => [0, top] } },
    axes: [{ show: false }, { show: false }],
    series: [{}, { stroke: '#2563eb', fill: 'rgba(37, 99, 235, 0.15)', width: 1.25, points: { show: false } }],
  };
}
