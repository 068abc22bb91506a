// The figures the page shows, as the engine declares them once in Go
// (report.Figures, carried by every snapshot as `figures`): each one's
// name, label, unit, direction ("higher" is better, else lower), what it
// counts, the window field its counter tile shows and the series column
// its chart line draws. The counters, the charts' legends and Compare all
// take their words and units from here.
import { ms, pct, rate, count, isNum } from './dom.js';

let table = [];
let seen = '';

/** setFigures takes a snapshot's table; it returns whether it changed. */
export function setFigures(list) {
  const key = JSON.stringify(list || []);
  if (key === seen) return false;
  seen = key;
  table = list || [];
  return true;
}

/** tiled are the figures with a counter tile, in the tiles' order. */
export const tiled = () => table.filter((f) => f.window);

/** figure is the figure called name (undefined when the table has none). */
export const figure = (name) => table.find((f) => f.name === name);

/** label is what the page calls figure name. */
export const label = (name) => (figure(name) || { label: name }).label;

/** seriesLabel is what the page calls the figure drawn from series column col. */
export const seriesLabel = (col) => (table.find((f) => f.series === col) || { label: col }).label;

/** better says which way figure f is better. */
export const better = (f) => (f.higher ? 'higher is better' : 'lower is better');

/** format prints v in figure f's unit. */
export function format(f, v) {
  switch (f && f.unit) {
    case 'ms': return ms(v);
    case 'share': return pct(v);
    case 'per request': return isNum(v) ? v.toFixed(2) : '–';
    case 'per s': return rate(v);
    default: return count(v);
  }
}

/** formatOf prints v in the unit of figure name. */
export const formatOf = (name, v) => format(figure(name), v);
