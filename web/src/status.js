// The header's status: live, or what does not answer. The controller
// publishes a snapshot every 250 ms while it runs; when none has come for
// a few seconds (or the stream broke) the controller is not answering,
// and when snapshots come but the processes they read do not answer, the
// status says that instead of "live". The virtual clock's status is the
// playback's (playback.js): a paused session publishes nothing.
import { setText } from './dom.js';

const STALE_MS = 3000; // twelve missed snapshots

let lastAt = 0; // wall time of the last live snapshot (0: none, or virtual)
let timer = 0;

function show(text, cls, title = '') {
  const el = document.getElementById('status');
  setText(el, text);
  el.className = 'status ' + cls;
  el.title = title;
}

/** silent lists the processes of a snapshot whose state could not be read. */
function silent(snap) {
  const all = [];
  for (const s of snap.servers || []) all.push([s.name, !!(s.error || s.exited || !s.backend)]);
  for (const b of snap.balancers || []) all.push([b.name, !!(b.error || b.exited)]);
  if (snap.clients) all.push(['loadgen', !!snap.clients.error]);
  return { all: all.length, names: all.filter(([, bad]) => bad).map(([n]) => n) };
}

/** renderStatus shows a snapshot's status. */
export function renderStatus(snap) {
  if (snap.virtual) {
    lastAt = 0;
    return;
  }
  lastAt = Date.now();
  if (!timer) timer = setInterval(watchdog, 1000);
  if (snap.status !== 'running') {
    show(snap.status, 'wait');
    return;
  }
  const { all, names } = silent(snap);
  if (all > 0 && names.length === all) show('no process answers', 'wait', 'not answering: ' + names.join(', '));
  else if (names.length > 0) show(`live · ${names.length} of ${all} not answering`, 'wait', 'not answering: ' + names.join(', '));
  else show('live', 'ok');
}

/** streamLost: the stream broke (the browser reconnects by itself). */
export function streamLost() {
  show('the controller is not answering (reconnecting…)', 'wait');
}

function watchdog() {
  if (lastAt === 0) return;
  const s = Math.round((Date.now() - lastAt) / 1000);
  if (Date.now() - lastAt > STALE_MS) show(`the controller is not answering (no news for ${s} s)`, 'wait');
}

const MB = (n) => (n / 1e6).toFixed(1);

/**
 * loadingText says how far the static page's simulator is in loading
 * (worker.js's phases): the bytes downloaded of the module's size (only
 * the bytes when the host compresses it), then compiling, then starting.
 */
export function loadingText(l) {
  switch (l.phase) {
    case 'download': return l.total > 0 ? `loading the simulator: ${MB(l.bytes)} of ${MB(l.total)} MB` : `loading the simulator: ${MB(l.bytes)} MB`;
    case 'compile': return `compiling the simulator (${MB(l.bytes)} MB)…`;
    default: return 'starting the simulator…';
  }
}

/** showLoading puts loadingText in the status until the first frame. */
export function showLoading(l) {
  show(loadingText(l), 'wait');
}
