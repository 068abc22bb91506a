// The controller API: drills, scenarios, and the toast that reports answers.
// Every request goes through the engine (engine.js).
import { h } from './dom.js';
import { engine } from './engine.js';

let toastTimer = 0;

/** toast shows a short message at the bottom; kind is "ok" or "error". */
export function toast(text, kind = 'ok') {
  const el = document.getElementById('toast');
  el.replaceChildren(h('span', { text }));
  el.className = 'toast ' + kind;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, kind === 'error' ? 6000 : 2500);
}

/** post sends JSON and returns the decoded answer; a refusal becomes a toast. */
export async function post(path, body) {
  let res;
  try {
    res = await engine.request('POST', path, JSON.stringify(body));
  } catch (err) {
    toast('the lab controller is not answering: ' + err.message, 'error');
    return null;
  }
  const data = decode(res.text);
  if (!res.ok) {
    toast(data.error || 'HTTP ' + res.status, 'error');
    return null;
  }
  return data;
}

/** chaos applies one drill (the body of POST /api/chaos). */
export async function chaos(drill) {
  const out = await post('/api/chaos', drill);
  if (out) toast('applied: ' + out.applied + (out.undo ? ` (then ${out.undo} in ${out.undo_in_s} s)` : ''));
  return out;
}

/** getJSON fetches a JSON document (null on failure). */
export async function getJSON(path) {
  try {
    const res = await engine.request('GET', path);
    return res.ok ? JSON.parse(res.text) : null;
  } catch {
    return null;
  }
}

/** getText fetches a document's text (null on failure, with a toast). */
export async function getText(path) {
  let res;
  try {
    res = await engine.request('GET', path);
  } catch (err) {
    toast('the lab controller is not answering: ' + err.message, 'error');
    return null;
  }
  if (!res.ok) {
    toast(decode(res.text).error || 'HTTP ' + res.status, 'error');
    return null;
  }
  return res;
}

function decode(text) {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

/** saveFile offers text for download as name. */
export function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * downloadLink makes link a (href: a GET path) download through the
 * engine when no server answers its href (the wasm engine); with the http
 * engine the link stays an ordinary one.
 */
export function downloadLink(a) {
  if (engine.kind === 'http') return a;
  a.addEventListener('click', async (e) => {
    e.preventDefault();
    const res = await getText(a.getAttribute('href'));
    if (!res) return;
    const name = /filename="([^"]+)"/.exec(res.disposition || '');
    saveFile(name ? name[1] : 'download', res.text, res.type);
  });
  return a;
}
