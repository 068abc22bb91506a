// The page's engine when it is served by make site's static folder: this
// Web Worker runs lab.wasm (cmd/labwasm, lab watch's own code) and answers
// the page's requests (the paths and JSON bodies lab watch serves) off the
// page's main thread. It paces playback by calling the module's tick on a
// timer, as lab watch's ticker does, and posts each new snapshot.
//
// page -> worker: {id, method, path, body}
// worker -> page: {id, status, type, disposition, body} | {snapshot} |
//   {loading: {phase, bytes, total}} | {ready, load_ms, phases} | {failed}
//
// While the module loads the worker says how far it is, for the page's
// status line: phase "download" with the bytes received of total (0 when
// the host compresses it: the Content-Length then counts the compressed
// bytes, and the body comes decompressed), "compile" once the last byte is
// in (the streaming compile runs during the download and finishes after
// it), and "start" while the Go program starts (runtime, package
// initialisation, the first lab). The first tick's snapshot ends it.
importScripts('wasm_exec.js');

const started = performance.now();
const go = new Go();
// ms each phase ended at, since the worker started (origin: when that was,
// as performance.timeOrigin, for the page to place it)
const phases = { origin: performance.timeOrigin };
const ready = load().then((instance) => {
  postMessage({ loading: { phase: 'start' } });
  go.run(instance); // main sets the global lblab, then waits for calls
  phases.start_ms = performance.now() - started;
  postMessage({ ready: true, load_ms: phases.start_ms, phases });
  loop();
}).catch((err) => {
  postMessage({ failed: 'the simulator did not load: ' + err.message });
  throw err;
});

// PROGRESS_MS spaces the download's progress messages.
const PROGRESS_MS = 50;

/** load fetches and compiles lab.wasm, posting its progress; it resolves to the instance. */
async function load() {
  const res = await fetch('lab.wasm');
  if (!res.ok) throw new Error(`lab.wasm: HTTP ${res.status}`);
  const total = res.headers.get('Content-Encoding') ? 0 : Number(res.headers.get('Content-Length')) || 0;
  let bytes = 0;
  let said = -Infinity;
  const say = (phase) => postMessage({ loading: { phase, bytes, total } });
  say('download');
  const counted = res.body.pipeThrough(new TransformStream({
    transform(chunk, out) {
      bytes += chunk.byteLength;
      if (performance.now() - said >= PROGRESS_MS) {
        said = performance.now();
        say('download');
      }
      out.enqueue(chunk);
    },
    flush() {
      phases.download_ms = performance.now() - started;
      say('download'); // every byte in
      say('compile');
    },
  }));
  const r = await WebAssembly.instantiateStreaming(new Response(counted, { headers: { 'Content-Type': 'application/wasm' } }), go.importObject);
  phases.compile_ms = performance.now() - started;
  phases.bytes = bytes;
  return r.instance;
}

// The module posts, through this, the snapshots showing a long request's
// progress (compare all, the JSON report) while it answers it: no tick
// runs until it has.
self.postSnapshot = (snapshot) => postMessage({ snapshot });

// A zero-delay turn of the event loop (setTimeout(0) is clamped to 4 ms).
const chan = new MessageChannel();
chan.port1.onmessage = () => loop();

function loop() {
  const out = self.lblab.tick();
  if (out.snapshot) postMessage({ snapshot: out.snapshot });
  if (out.again) chan.port2.postMessage(0);
  else setTimeout(loop, out.interval_ms);
}

onmessage = async (e) => {
  const m = e.data;
  await ready;
  const out = self.lblab.request(m.method, m.path, m.body || '');
  postMessage({ id: m.id, status: out.status, type: out.type, disposition: out.disposition, body: out.body });
  if (out.snapshot) postMessage({ snapshot: out.snapshot });
};
