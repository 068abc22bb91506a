// The four charts of the last 20 s (uPlot), one point per 250 ms reading.
// The legends show the latest values; hovering or tapping shows those of
// that moment. The servers' chart is a small line per server (sparks.js).
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { h } from './dom.js';
import { seriesLabel } from './figures.js';
import { renderSparks, latest } from './sparks.js';
import { seconds, values } from './ticks.js';

const palette = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777',
  '#4b5563', '#65a30d', '#7c3aed', '#0d9488'];

/** line is series column col drawn in color, named as the engine's figure table names it. */
const line = (s, col, color, suffix = '') => [seriesLabel(col) + suffix, s[col], color];

/** The charts: each picks its series out of a snapshot. */
const specs = [
  { id: 'latency', title: 'Latency of successful requests (ms, log scale)', pick: latencySeries, log: true },
  // target: the rate the loadgen aims at (a load profile's rate(t)), dashed; open loop only
  { id: 'load', title: 'Offered, attempts and successes (per second)', pick: (s, snap) => [
    line(s, 'offered', palette[0]), line(s, 'attempts', palette[4]), line(s, 'goodput', palette[1]),
    ...((snap.clients || {}).mode === 'open' ? [['target', s.target, palette[8], [6, 4]]] : [])] },
  // failed first, so the lines drawn over it (a rejection is often also a failure) stay visible
  { id: 'trouble', title: 'Timeouts, rejections, retries and failures (per second)', pick: (s) => [
    line(s, 'failed', palette[8]), line(s, 'timeouts', palette[2]), line(s, 'rejected', palette[6]),
    line(s, 'retries', palette[4])] },
  { id: 'servers', title: 'Requests in each server (queued + busy)', pick: serverSeries, sparks: true },
];

const charts = new Map(); // id -> {plot, key, box, title}
let showLimit = false;

function latencySeries(s, snap) {
  if (snap.latency_source === 'histogram') {
    return [line(s, 'p50', palette[1]), line(s, 'p95', palette[6]), line(s, 'p99', palette[2])];
  }
  return [line(s, 'mean', palette[0], ' (Little)'), line(s, 'p50', palette[1], ' since start'), line(s, 'p99', palette[2], ' since start')];
}

function serverSeries(s) {
  const cols = showLimit ? s.limit : s.in_server;
  return (s.servers || []).map((name, i) => [name, (cols || [])[i] || [], palette[i % palette.length]]);
}

/** initCharts builds a box per chart; uPlot instances come with data. */
export function initCharts(el) {
  const boxes = specs.map((spec) => {
    const box = h('div', { class: 'chart', id: 'chart-' + spec.id });
    const title = h('span', { text: spec.title });
    charts.set(spec.id, { box, title, plot: null, key: '' });
    return h('figure', { class: 'chart-wrap' }, h('h3', {}, title), box);
  });
  const toggle = h('button', { class: 'small', id: 'limit-toggle', text: 'show limits', onclick: () => {
    showLimit = !showLimit;
    toggle.textContent = showLimit ? 'show requests' : 'show limits';
    const c = charts.get('servers');
    c.title.textContent = showLimit ? 'Concurrency limit of each server' : 'Requests in each server (queued + busy)';
    c.key = ''; // rebuild
    if (lastSnap) renderCharts(lastSnap);
  } });
  charts.get('servers').title.after(' ', toggle);
  el.replaceChildren(...boxes);
  new ResizeObserver(() => {
    for (const c of charts.values()) if (c.plot) c.plot.setSize(size(c.box));
    if (lastSnap) renderCharts(lastSnap); // the sparklines follow the width
  }).observe(el);
}

function size(box) {
  const width = Math.max(240, box.clientWidth);
  return { width, height: Math.round(Math.min(220, Math.max(150, width * 0.42))) };
}

let lastSnap = null;

/** renderCharts puts a snapshot's series into the charts. */
export function renderCharts(snap) {
  lastSnap = snap;
  const s = snap.series || {};
  const xs = s.t || [];
  for (const spec of specs) {
    const c = charts.get(spec.id);
    const series = spec.pick(s, snap);
    c.box.plotData = [xs, ...series.map((x) => x[1] || [])]; // what is drawn, for a look from the console or a test
    if (spec.sparks) {
      renderSparks(c.box, xs, series.map((x) => x[0]), series.map((x) => x[1]), size(c.box).width);
      continue;
    }
    const key = series.map((x) => x[0]).join('|');
    const data = c.box.plotData;
    if (!c.plot || c.key !== key) {
      if (c.plot) c.plot.destroy();
      c.plot = new uPlot(options(series, size(c.box), spec.log, c.box), data, c.box);
      c.key = key;
    } else {
      c.plot.setData(data);
    }
    if (c.plot.cursor.idx == null) c.plot.setLegend({ idx: null }); // not hovered: the latest values
  }
}

function options(series, sz, log, box) {
  box.tickLabels = {}; // the labels drawn, for a look from a test
  const drawn = (axis, f) => (u, ticks) => (box.tickLabels[axis] = f(ticks));
  return {
    ...sz,
    scales: { x: { time: false }, y: log ? { distr: 3 } : {} },
    legend: { live: true },
    cursor: { drag: { x: false, y: false } },
    axes: [
      { label: 's', size: 36, values: drawn('x', seconds) },
      { size: 48, values: drawn('y', values) },
    ],
    series: [
      { label: 't', value: (u, v, si, idx) => fmt(u, v, si, idx, (x) => x.toFixed(2) + ' s') },
      ...series.map(([label, , stroke, dash]) => ({ label, stroke, dash, width: 1.5, spanGaps: false, points: { show: false },
        value: (u, v, si, idx) => fmt(u, v, si, idx, (x) => x.toFixed(x >= 100 ? 0 : 1)) })),
    ],
  };
}

/**
 * fmt is a legend value: at the cursor when hovering (idx set), else the
 * series' latest known value, so the legend is never just dashes.
 */
function fmt(u, v, si, idx, f) {
  const x = idx == null ? latest(u.data[si]) : v;
  return x == null ? '–' : f(x);
}
