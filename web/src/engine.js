// The engine the page talks to: every request and the stream of snapshots
// go through it, so the rest of the page does not know what answers.
// - http: the Go process that served the page (lab up, lab watch): fetch
//   and GET /api/stream.
// - wasm: make site's static folder (the root element has
//   data-engine="wasm"): a Web Worker runs lab watch's code compiled to
//   WebAssembly (worker.js, lab.wasm) and answers the very same requests
//   (same paths, same JSON bodies) with no server behind the page.
// request(method, path, body) resolves to {ok, status, type, disposition,
// text}; subscribe(onSnapshot, onTrouble, onLoading) delivers each snapshot
// decoded, and (wasm) the module's loading progress, {phase, bytes, total}
// (worker.js), until the first snapshot.

function httpEngine() {
  return {
    kind: 'http',
    async request(method, path, body) {
      const init = { method };
      if (body !== undefined) {
        init.headers = { 'Content-Type': 'application/json' };
        init.body = body;
      }
      const res = await fetch(path, init);
      return { ok: res.ok, status: res.status, type: res.headers.get('Content-Type') || '',
        disposition: res.headers.get('Content-Disposition') || '', text: await res.text() };
    },
    subscribe(onSnapshot, onTrouble) {
      const es = new EventSource('/api/stream');
      es.onmessage = (e) => onSnapshot(JSON.parse(e.data));
      es.onerror = () => onTrouble('reconnecting…');
    },
  };
}

function wasmEngine() {
  const worker = new Worker('worker.js');
  const pending = new Map();
  let next = 1;
  let onSnapshot = () => {};
  let onTrouble = () => {};
  let onLoading = () => {};
  const engine = {
    kind: 'wasm',
    loadMs: null, // the module's fetch, compile and start, in ms (null until ready)
    // when each phase of the load ended, in ms since the worker started:
    // {download_ms, compile_ms, start_ms, bytes}, and worker_ms, when the
    // worker started since the page was opened (null until ready)
    phases: null,
    request(method, path, body) {
      return new Promise((resolve) => {
        const id = next++;
        pending.set(id, resolve);
        worker.postMessage({ id, method, path, body: body === undefined ? '' : body });
      });
    },
    subscribe(snap, trouble, loading) {
      onSnapshot = snap;
      onTrouble = trouble;
      if (loading) onLoading = loading;
    },
  };
  // Only the newest snapshot is drawn, as lab watch's stream hands a slow
  // page only the newest: at max the worker publishes one every tick, and a
  // main thread that fell behind (a long task, a big fleet's diagram)
  // would otherwise draw every one it missed before the answer to a click.
  let newest = null;
  const draw = () => {
    const snap = newest;
    newest = null;
    if (snap) onSnapshot(JSON.parse(snap));
  };
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.snapshot) {
      if (newest === null) setTimeout(draw, 0); // after the messages already queued
      newest = m.snapshot;
    } else if (m.id) {
      const resolve = pending.get(m.id);
      pending.delete(m.id);
      resolve({ ok: m.status >= 200 && m.status < 300, status: m.status, type: m.type,
        disposition: m.disposition, text: m.body });
    } else if (m.loading) onLoading(m.loading);
    else if (m.ready) {
      engine.loadMs = m.load_ms;
      engine.phases = { ...m.phases, worker_ms: m.phases.origin - performance.timeOrigin };
    } else if (m.failed) onTrouble(m.failed);
  };
  worker.onerror = (e) => onTrouble('the simulator failed: ' + (e.message || 'error'));
  return engine;
}

export const engine = document.documentElement.dataset.engine === 'wasm' ? wasmEngine() : httpEngine();
