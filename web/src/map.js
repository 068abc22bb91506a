// The metastability map (lab watch, and make site's page): the map of a
// sweep over two axes (lab sweep LAB --vary ... --vary ... --json), given
// to lab watch --map or loaded here (POST /api/map). Each cell is the
// share of seeds that recovered (its colour) and the median time to
// recover; the boundary (the map's own, maps[].boundary) is drawn along
// the cells' edges; a click on a cell plays it from 0 (POST
// /api/map/cell), and the cell playing is outlined.
import { h, setText } from './dom.js';
import { engine } from './engine.js';
import { getJSON, post, toast } from './api.js';
import { playNew } from './playback.js';

let els = null;
let map = null; // GET /api/map's answer
let loaded = 0; // the snapshot's map.loaded that map is
let playing = null; // the cell playing (the snapshot's map.playing)
let drawn = ''; // what the grid shows: map, setting, seed and cell playing

function build() {
  const upload = h('input', { id: 'map-upload', type: 'file', accept: '.json,application/json', 'aria-label': 'load a map',
    onchange: async () => {
      const f = upload.files[0];
      if (!f) return;
      await load(f.name, await f.text());
      upload.value = '';
    } });
  const setting = h('select', { id: 'map-setting', 'aria-label': 'the map of setting', onchange: () => draw() });
  const seed = h('select', { id: 'map-seed', 'aria-label': 'the seed a cell plays on' });
  const grid = h('table', { id: 'map-grid', class: 'map-grid' });
  const now = h('p', { id: 'map-playing', class: 'map-playing' });
  const hint = h('p', { class: 'map-hint' }, 'The map of a sweep over a trigger\'s size and length: ',
    h('code', { text: 'lab sweep retry-storm --vary events[0].speed=0.3:0.8:0.1 --vary events[0].for=500ms,1s,2s --seeds 10 --json > map.json' }),
    ', then ', h('code', { text: 'lab watch retry-storm --map map.json' }), ' or load it here. A click on a cell plays that cell from 0.');
  const panel = h('details', { id: 'mapview', class: 'panel map-panel' },
    h('summary', {}, h('h2', { text: 'Metastability map' })),
    hint,
    h('div', { class: 'own-row' }, h('label', {}, 'setting ', setting), h('label', {}, 'seed ', seed),
      h('label', {}, 'load a map ', upload)),
    grid, now,
    h('p', { class: 'legend' }, h('i', { class: 'map-key', style: `background:${colour(0)}` }), ' no seed recovered ',
      h('i', { class: 'map-key', style: `background:${colour(0.5)}` }), ' half ',
      h('i', { class: 'map-key', style: `background:${colour(1)}` }), ' all · ',
      'the black line: the boundary between cells where most seeds recovered and where most did not · outlined: the cell playing'));
  document.querySelector('.col-main .charts-panel').before(panel);
  els = { panel, setting, seed, grid, now };
}

/** load posts a map file's text; the page then shows it. */
async function load(file, text) {
  let res;
  try {
    res = await engine.request('POST', '/api/map', JSON.stringify({ file, json: text }));
  } catch (err) {
    return toast('the lab controller is not answering: ' + err.message, 'error');
  }
  let out = {};
  try {
    out = JSON.parse(res.text);
  } catch { /* its status says it */ }
  if (!res.ok) return toast(out.error || 'HTTP ' + res.status, 'error');
  show(out);
  toast(`${file}: the map of ${out.lab} over ${out.axes.map((a) => a.path).join(' and ')}`);
}

/** show takes GET /api/map's answer (or POST's): the menus, then the grid. */
function show(m) {
  map = m;
  loaded = m.loaded;
  els.setting.replaceChildren(...m.maps.map((x) => h('option', { value: x.setting, text: x.setting })));
  els.seed.replaceChildren(...m.seeds.map((s) => h('option', { value: s, text: String(s) })));
  els.setting.parentElement.hidden = m.maps.length < 2;
  els.panel.open = true;
  drawn = '';
  follow(m.playing);
}

/** follow shows the cell playing, under its setting's map. */
function follow(cell) {
  playing = cell;
  if (cell) {
    els.setting.value = cell.setting;
    els.seed.value = String(cell.seed);
  }
  draw();
}

/** colour is a share of seeds recovered: red (none) to green (all). */
function colour(share) {
  return `hsl(${Math.round(share * 120)}, 70%, 78%)`;
}

function secsText(x) {
  return x === null || x === undefined ? '–' : x + ' s';
}

/** draw builds the grid of the setting chosen, when what it shows changed. */
function draw() {
  if (!map) return;
  const k = Math.max(0, map.maps.findIndex((x) => x.setting === els.setting.value));
  const m = map.maps[k];
  const key = [loaded, m.setting, JSON.stringify(playing)].join('|');
  if (key === drawn) return;
  drawn = key;
  const [ax, ay] = map.axes;
  const nx = ax.values.length;
  // the boundary's steps, on the edge after the first of their two cells
  const right = new Set();
  const below = new Set();
  for (const st of m.boundary || []) {
    const a = st.axis === ax.path ? ax : ay;
    const i = Math.min(a.values.indexOf(st.recovers), a.values.indexOf(st.fails));
    if (a === ax) right.add(st.at + '\u0000' + ax.values[i]);
    else below.add(ay.values[i] + '\u0000' + st.at);
  }
  const head = h('tr', {}, h('th', { class: 'map-axes', text: `${ay.path} \\ ${ax.path}` }), ...ax.values.map((x) => h('th', { text: x })));
  const rows = ay.values.map((y, j) => h('tr', {}, h('th', { text: y }), ...ax.values.map((x, i) => {
    const c = m.cells[j * nx + i];
    const here = playing && playing.setting === m.setting && playing.x === x && playing.y === y;
    const cls = ['map-cell', right.has(y + '\u0000' + x) ? 'edge-r' : '', below.has(y + '\u0000' + x) ? 'edge-b' : '', here ? 'playing' : ''];
    return h('td', { class: cls.filter(Boolean).join(' '), style: `background:${colour(c.recovered / c.seeds)}` },
      h('button', { class: 'map-play', 'data-x': x, 'data-y': y, title: `play ${m.setting} at ${ax.path}=${x} ${ay.path}=${y}: ${c.event}`,
        onclick: () => play(m.setting, x, y) },
      h('span', { class: 'map-share', text: `${c.recovered}/${c.seeds}` }), ' ', h('span', { class: 'map-after', text: secsText(c.median_after_s) })));
  })));
  els.grid.replaceChildren(h('caption', { text: `${map.file}: ${m.setting}, ${m.recovering_cells} of ${m.cells.length} cells recover; `
    + 'each cell: seeds that recovered, and the median time to recover after the trigger ended' }), head, ...rows);
  if (playing) {
    const c = m.cells.find((x) => x.x === playing.x && x.y === playing.y);
    setText(els.now, `playing: ${playing.setting} at ${ax.path}=${playing.x}, ${ay.path}=${playing.y}, seed ${playing.seed}`
      + (c ? ` (on the sweep's seeds ${c.recovered} of ${c.seeds} recovered)` : ''));
  } else setText(els.now, 'playing: no cell of the map (click one)');
}

/** play asks for one cell from 0, on the seed chosen. */
async function play(setting, x, y) {
  const out = await post('/api/map/cell', { setting, x, y, seed: Number(els.seed.value) });
  if (!out) return;
  await playNew();
  follow(out.cell);
}

/**
 * renderMap shows the panel once a virtual snapshot came (lab watch, the
 * static page), fetches the map when the snapshot says a new one is
 * loaded, and follows the cell playing.
 */
export function renderMap(snap) {
  if (!snap.virtual) return;
  if (!els) build();
  const s = snap.map;
  if (!s) return;
  if (s.loaded !== loaded) {
    loaded = s.loaded; // asked once
    getJSON('/api/map').then((m) => { if (m) show(m); });
    return;
  }
  if (JSON.stringify(s.playing) !== JSON.stringify(playing)) follow(s.playing);
}
