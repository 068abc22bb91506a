// Your own lab, on the virtual clock (lab watch, and make site's page):
// paste or upload a lab file, run it (POST /api/lab; its errors show with
// file:line:col as lab sim gives them), download it, and share a link
// whose fragment carries the file, its seed and its cost budget
// (#lab=BASE64URL&seed=N&file=NAME&cost=N).
import { h } from './dom.js';
import { engine } from './engine.js';
import { getText, saveFile, toast } from './api.js';
import { playNew } from './playback.js';

let els = null;

function build() {
  const yaml = h('textarea', { id: 'own-yaml', rows: 12, spellcheck: 'false', 'aria-label': 'lab file',
    placeholder: 'paste a lab file here (docs/labfile.md), or upload one, or edit the lab playing' });
  const file = h('input', { id: 'own-file', type: 'text', value: 'my-lab.yaml', size: 14, 'aria-label': 'file name' });
  // text, not type=number: what was typed reaches the API as it is (a
  // seed past 2^53 digit for digit, and a mistake in the API's refusal)
  const seed = h('input', { id: 'own-seed', type: 'text', inputmode: 'numeric', placeholder: "file's", 'aria-label': 'seed', class: 'own-seed' });
  // the factor the lab's cost budget is raised by, as lab sim --max-cost
  const cost = h('input', { id: 'own-cost', type: 'text', inputmode: 'decimal', placeholder: '1', size: 4, 'aria-label': 'cost budget',
    class: 'own-seed', title: 'a lab over the cost budget (1 GiB of memory, 2 minutes of CPU) is refused before it runs; N allows N times it, as lab sim --max-cost N' });
  const upload = h('input', { id: 'own-upload', type: 'file', accept: '.yaml,.yml,text/yaml', 'aria-label': 'upload a lab file',
    onchange: async () => {
      const f = upload.files[0];
      if (!f) return;
      yaml.value = await f.text();
      file.value = f.name;
    } });
  const error = h('pre', { id: 'own-error', class: 'own-error', hidden: true });
  const link = h('input', { id: 'own-link', type: 'text', readonly: true, hidden: true, 'aria-label': 'link to share' });
  const panel = h('details', { id: 'ownlab', class: 'panel ownlab-panel' },
    h('summary', {}, h('h2', { text: 'Your lab' })),
    yaml,
    h('div', { class: 'own-row' }, h('label', {}, 'file ', file), h('label', {}, 'seed ', seed), h('label', {}, 'cost budget ', cost), upload),
    h('div', { class: 'own-row' },
      h('button', { id: 'own-edit', text: 'edit the lab playing', title: 'its lab file as given, and its seed', onclick: edit }),
      h('button', { id: 'own-run', text: 'run', title: 'play this lab file from 0 (its first compare setting, if it has any)', onclick: run }),
      h('button', { id: 'own-save', text: 'download lab file', onclick: () => saveFile(file.value || 'lab.yaml', yaml.value, 'application/yaml') }),
      h('button', { id: 'own-share', text: 'share link', title: 'a link to this page that carries the lab file and its seed', onclick: share })),
    error, link);
  document.querySelector('.col-side').append(panel);
  els = { panel, yaml, file, seed, cost, error, link };
  // A shared link opened in a tab already showing the page changes only
  // the fragment: no reload, so its lab runs from here.
  window.addEventListener('hashchange', fromFragment);
}

/** edit fills the editor with the lab playing, as it was given. */
async function edit() {
  const res = await getText('/api/source');
  if (!res) return;
  const src = JSON.parse(res.text);
  els.yaml.value = src.yaml;
  els.file.value = src.file.split('/').pop();
  els.seed.value = String(src.seed);
}

/** run plays the editor's lab file; its errors stay shown until the next run. */
async function run() {
  els.error.hidden = true;
  let res;
  try {
    res = await engine.request('POST', '/api/lab', labBody());
  } catch (err) {
    return toast('the lab controller is not answering: ' + err.message, 'error');
  }
  let out = {};
  try {
    out = JSON.parse(res.text);
  } catch { /* an answer without JSON: its status says it */ }
  if (!res.ok) {
    showError(res.status === 413 ? `${els.file.value || 'lab.yaml'}: too large to run in the page (${out.error})`
      : out.error || 'HTTP ' + res.status);
    return;
  }
  await playNew(); // a new lab keeps the pause: run means play
  toast(`${out.lab} is running (seed ${out.seed})`);
}

/**
 * labBody is POST /api/lab's body: the seed as typed, digits as a JSON
 * number (exact: no JavaScript number in between), and the cost budget's
 * factor as a JSON number when it reads as one; anything else goes as a
 * string, which the API refuses with its message.
 */
function labBody() {
  let body = JSON.stringify({ file: els.file.value || 'lab.yaml', yaml: els.yaml.value });
  const add = (key, raw, isNumber) => {
    const v = raw.trim();
    if (v !== '') body = body.slice(0, -1) + `,"${key}":` + (isNumber(v) ? v : JSON.stringify(v)) + '}';
  };
  add('seed', els.seed.value, (v) => /^[0-9]+$/.test(v));
  add('max_cost', els.cost.value, (v) => /^[0-9]+(\.[0-9]+)?$/.test(v));
  return body;
}

/** showError shows a message under the editor, the panel open. */
function showError(text) {
  els.error.textContent = text;
  els.error.hidden = false;
  els.panel.open = true;
}

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function unbase64url(s) {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
}

/** share puts the lab file, its seed and its cost budget in the page's address (the fragment). */
async function share() {
  if (!els.yaml.value) await edit();
  const params = new URLSearchParams({ lab: base64url(els.yaml.value), file: els.file.value || 'lab.yaml' });
  if (els.seed.value !== '') params.set('seed', els.seed.value);
  if (els.cost.value !== '') params.set('cost', els.cost.value);
  history.replaceState(null, '', '#' + params.toString());
  els.link.value = location.href;
  els.link.hidden = false;
  els.link.select();
  try {
    await navigator.clipboard.writeText(location.href);
    toast('link copied: it opens this lab with this seed');
  } catch {
    toast('the link is in the box below and in the address bar');
  }
}

/** fromFragment runs the lab a shared link carries, if any. */
function fromFragment() {
  const params = new URLSearchParams(location.hash.slice(1));
  if (!params.get('lab')) return;
  try {
    els.yaml.value = unbase64url(params.get('lab'));
  } catch {
    showError('the link\'s lab is not base64url of a UTF-8 text: the link is broken (the lab playing goes on)');
    return;
  }
  els.file.value = params.get('file') || 'lab.yaml';
  els.seed.value = params.get('seed') || '';
  els.cost.value = params.get('cost') || '';
  els.panel.open = true;
  run();
}

/** renderOwnLab shows the panel once a virtual snapshot came (lab watch, the static page). */
export function renderOwnLab(snap) {
  if (!snap.virtual || els) return;
  build();
  fromFragment();
}
