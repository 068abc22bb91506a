// The page's engine when it is served by make site's static folder: this
// Web Worker runs lab.wasm (cmd/labwasm, lab watch's own code) and answers
// the page's requests (the paths and JSON bodies lab watch serves) off the
// page's main thread. It paces playback by calling the module's tick on a
// timer, as lab watch's ticker does, and posts each new snapshot.
//
// page -> worker: {id, method, path, body}
// worker -> page: {id, status, type, disposition, body} | {snapshot} | {ready, load_ms} | {failed}
importScripts('wasm_exec.js');

const started = performance.now();
const go = new Go();
const ready = WebAssembly.instantiateStreaming(fetch('lab.wasm'), go.importObject).then((r) => {
  go.run(r.instance); // main sets the global lblab, then waits for calls
  postMessage({ ready: true, load_ms: performance.now() - started });
  loop();
}).catch((err) => {
  postMessage({ failed: 'the simulator did not load: ' + err.message });
  throw err;
});

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
