// Axis tick labels that never repeat: uPlot may put ticks closer than the
// fewest digits can tell apart (0.5 s apart in the first seconds, labelled
// "1 1 2 2" to whole seconds); each axis takes the fewest decimals that
// keep neighbouring labels distinct.

const MAX_EXTRA = 4; // decimals added at most

/** distinctLabels formats ticks with format(tick, extra), extra the fewest added decimals that keep neighbours apart. */
export function distinctLabels(ticks, format) {
  let labels = [];
  for (let extra = 0; extra <= MAX_EXTRA; extra++) {
    labels = ticks.map((t) => (t == null ? '' : format(t, extra))); // null: a tick uPlot leaves unlabelled (log axes)
    const shown = labels.filter((l) => l !== '');
    if (shown.every((l, i) => i === 0 || l !== shown[i - 1])) return labels;
  }
  return labels;
}

/** seconds labels a time axis: whole seconds unless ticks are closer. */
export function seconds(ticks) {
  return distinctLabels(ticks, (t, extra) => t.toFixed(extra));
}

/** compact writes an axis value in few characters: 950, 1.5k, 12k (extra: more decimals). */
function compact(v, extra = 0) {
  if (v == null) return '';
  const a = Math.abs(v);
  if (a >= 1000) return +(v / 1000).toFixed((a >= 10000 ? 0 : 1) + extra) + 'k';
  return a >= 1 || a === 0 ? String(+v.toFixed(1 + extra)) : String(+v.toPrecision(2 + extra));
}

/** values labels a value axis compactly, with distinct labels. */
export function values(ticks) {
  return distinctLabels(ticks, compact);
}
