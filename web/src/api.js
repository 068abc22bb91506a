// The controller API: drills, scenarios, and the toast that reports answers.
import { h } from './dom.js';

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
    res = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    toast('the lab controller is not answering: ' + err.message, 'error');
    return null;
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    toast(data.error || res.statusText, 'error');
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
    const res = await fetch(path);
    return res.ok ? await res.json() : null;
  } catch {
    return null;
  }
}
