// Compare all (lab watch): the ranking of the lab's settings on the same
// seeded stream, one seed (as lab sim) or several (as lab sim --seeds N:
// means with their 95% intervals and whether each is told apart from the
// next), and small multiples: one small chart of p99 per setting, all on
// the same axes.
import { h, ms } from './dom.js';
import { label, formatOf } from './figures.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 220; // a small multiple's size (px)
const H = 64;

/** showCompare shows POST /api/compare's answer in the side column. */
export function showCompare(out) {
  let panel = document.getElementById('compare');
  if (!panel) {
    panel = h('section', { id: 'compare', class: 'panel compare-panel' });
    document.querySelector('.col-side').prepend(panel);
  }
  const seeds = out.seeds || null;
  const figs = [label('p99'), label('p50'), label('failed'), label('goodput')];
  const head = seeds ? ['#', 'setting', `${figs[0]} (95% interval)`, ...figs.slice(1), 'against the next']
    : ['#', 'setting', ...figs];
  const rows = out.ranking.map((r) => h('tr', { class: r.watched ? 'watched' : '', 'data-name': r.name },
    h('td', { text: r.rank }), h('td', { text: r.name + (r.watched ? ' (watched)' : '') }),
    ...(seeds ? seedCells(r) : [h('td', { text: formatOf('p99', r.p99_ms) }), h('td', { text: formatOf('p50', r.p50_ms) }),
      h('td', { text: formatOf('failed', r.failed) }), h('td', { text: formatOf('goodput', r.goodput) })])));
  const ranked = seeds ? `ranked by mean ${label(out.headline)} over seeds ${seeds[0]}–${seeds[seeds.length - 1]} (as lab sim --seeds ${seeds.length} ranks them)`
    : `ranked by ${out.headline} (as lab sim ranks them)`;
  panel.replaceChildren(
    h('h2', {}, 'Compare all ', h('button', { class: 'small', text: '✕', title: 'close', onclick: () => panel.remove() })),
    h('p', { class: 'note', text: `the same seeded stream through each setting, ${ranked}` +
      (out.drills ? `, with the ${out.drills} drill(s) taken` : '') }),
    seeds ? h('p', { class: 'note', text: out.note }) : null,
    h('div', { class: 'table-scroll' }, h('table', { class: 'ranking' + (seeds ? ' seeds' : '') },
      h('thead', {}, h('tr', {}, ...head.map((x) => h('th', { text: x })))), h('tbody', {}, ...rows))),
    multiples(out.ranking, seeds));
}

function seedCells(r) {
  const v = r.vs_next;
  // a pair the ranking put in order by goodput (one of them fails most of
  // its requests) is compared on goodput, as lab sim --seeds says
  const on = v && v.figure && v.figure !== 'p99' ? ` on ${label(v.figure)}` : '';
  const verdict = !v ? '' : v.distinguishable ? `better than ${v.next}${on} (${v.wins} of ${v.wins + v.losses} seeds)`
    : `not told apart from ${v.next}${on}`;
  const p99 = (x) => formatOf('p99', x);
  return [h('td', { class: 'ci', text: `${p99(r.p99_ms.mean)} [${p99(r.p99_ms.lo)}, ${p99(r.p99_ms.hi)}]` }),
    h('td', { text: formatOf('p50', r.p50_ms.mean) }), h('td', { text: formatOf('failed', r.failed) }),
    h('td', { text: formatOf('goodput', r.goodput.mean) }),
    h('td', { class: 'verdict ' + (v && v.distinguishable ? 'apart' : 'same'), text: verdict })];
}

/**
 * multiples draws each setting's p99 per 250 ms bin as a small chart, in
 * rank order, all with the same time axis and the same log-scale latency
 * axis, so their heights compare at a glance.
 */
function multiples(ranking, seeds) {
  const all = ranking.flatMap((r) => ((r.series || {}).p99 || []).filter((v) => v !== null && v > 0));
  if (all.length === 0) return null;
  const lo = Math.min(...all), hi = Math.max(...all);
  const tMax = Math.max(...ranking.map((r) => { const t = (r.series || {}).t_s || []; return t[t.length - 1] || 0; }));
  const y = (v) => {
    const a = Math.log(lo), b = Math.log(hi);
    return b > a ? H - 4 - ((Math.log(v) - a) / (b - a)) * (H - 8) : H / 2;
  };
  const x = (t) => (tMax > 0 ? (t / tMax) * W : 0);
  const charts = ranking.map((r) => {
    const s = r.series || { t_s: [], p99: [] };
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('class', 'multiple-plot');
    const axis = document.createElementNS(SVG, 'rect');
    for (const [k, v] of Object.entries({ x: 0, y: 0, width: W, height: H, class: 'multiple-frame' })) axis.setAttribute(k, v);
    svg.append(axis);
    // one polyline per run of bins with successes (a gap where none succeeded)
    let pts = [];
    const flush = () => {
      if (pts.length > 0) {
        const l = document.createElementNS(SVG, 'polyline');
        l.setAttribute('points', pts.join(' '));
        l.setAttribute('class', 'multiple-line');
        svg.append(l);
      }
      pts = [];
    };
    s.p99.forEach((v, i) => {
      if (v === null || v <= 0) { flush(); return; }
      pts.push(`${x(s.t_s[i]).toFixed(1)},${y(v).toFixed(1)}`);
    });
    flush();
    svg.plotData = [s.t_s, s.p99];
    const p99 = seeds ? r.p99_ms.mean : r.p99_ms;
    return h('figure', { class: 'multiple' + (r.watched ? ' watched' : ''), 'data-name': r.name },
      h('figcaption', {}, h('b', { text: `${r.rank}. ${r.name}` }), ` ${label('p99')} ${formatOf('p99', p99)}`), svg);
  });
  return h('div', { class: 'multiples-wrap' },
    h('p', { class: 'note', text: `${label('p99')} per 250 ms bin${seeds ? ' (seed ' + seeds[0] + ')' : ''}, same axes: 0–${tMax.toFixed(0)} s, ` +
      `${ms(lo)} to ${ms(hi)} (log scale)` }),
    h('div', { class: 'multiples', id: 'compare-multiples' }, ...charts));
}
