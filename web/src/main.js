// The lblab dashboard: follows the engine's stream (GET /api/stream, one snapshot every 250 ms)
// and draws the diagram, counters, charts, controls, inspector and log.
import './style.css';
import { setText } from './dom.js';
import { initDiagram, renderDiagram } from './diagram.js';
import { initCounters, renderCounters } from './counters.js';
import { initCharts, renderCharts } from './charts.js';
import { initControls, renderControls } from './controls.js';
import { initInspector, openInspector, renderInspector } from './inspector.js';
import { initLog, renderLog } from './log.js';
import { initScenarios, renderScenario } from './scenarios.js';
import { renderPlayback, clockText } from './playback.js';
import { renderCaption } from './captions.js';
import { renderOwnLab } from './ownlab.js';
import { renderMap } from './map.js';
import { engine } from './engine.js';
import { initTrips, renderTrips } from './trips.js';
import { renderStatus, streamLost, showLoading } from './status.js';
import { renderFleet } from './shape.js';
import { setFigures } from './figures.js';

const $ = (id) => document.getElementById(id);
let last = null;

/**
 * render draws one snapshot and counts it in lblab.frames, with the time
 * it took (the layout it reads included), which the browser tests and the
 * benchmark of a big fleet read (docs/BENCHMARKS.md).
 */
function render(snap) {
  const t0 = performance.now();
  draw(snap);
  const f = window.lblab.frames;
  f.count++;
  f.lastMs = performance.now() - t0;
}

function draw(snap) {
  if (!last) window.lblab.firstFrameMs = performance.now(); // the first frame, in ms since the page was opened
  last = snap;
  setFigures(snap.figures); // the figures' words, units and directions, from the engine
  renderStatus(snap);
  setText($('clock'), clockText(snap)); // the instant, or where the seek slider is held
  renderPlayback(snap);
  renderOwnLab(snap);
  renderMap(snap);
  if (snap.virtual) $('status').className = 'status virtual';
  if (snap.status !== 'running') return;
  renderScenario(snap);
  renderCaption(snap);
  renderDiagram(snap);
  renderTrips(snap);
  renderCounters(snap);
  renderCharts(snap);
  renderControls(snap);
  renderFleet(snap);
  renderInspector(snap);
  renderLog(snap);
}

function connect() {
  engine.subscribe(render, (trouble) => {
    if (engine.kind === 'http') { // the stream broke: status.js says what does not answer
      streamLost();
      return;
    }
    setText($('status'), trouble);
    $('status').className = 'status wait';
  }, (loading) => {
    if (!last) showLoading(loading); // the static page's module loading: until the first frame
  });
}

function start() {
  initDiagram($('diagram'), (kind, name) => openInspector(kind, name, last));
  initTrips($('diagram'));
  initCounters($('counters'));
  initCharts($('charts'));
  initControls($('controls'));
  initInspector($('inspector'));
  initLog($('log'));
  initScenarios($('picker'), $('narration'));
  connect();
}

// For the browser tests and the curious: engine.request(method, path, body);
// frames: how many snapshots were drawn and how long the last one took (render).
window.lblab = { engine, firstFrameMs: null, frames: { count: 0, lastMs: null } };
start();
