// The lab's timed captions: the last one whose time the run's clock has
// passed, shown under the narration (on either clock: t_s is seconds since
// the run started).
import { h, setText, secs } from './dom.js';

/** renderCaption shows the caption in force at snap.t_s (none: hidden). */
export function renderCaption(snap) {
  const box = document.getElementById('caption');
  const list = snap.captions || [];
  let now = null;
  for (const c of list) if (c.t_s <= snap.t_s) now = c;
  box.hidden = !now;
  if (!now) return;
  if (!box.firstChild) box.append(h('span', { class: 'caption-t' }), ' ', h('span', { class: 'caption-text' }));
  setText(box.querySelector('.caption-t'), secs(now.t_s));
  setText(box.querySelector('.caption-text'), now.text);
}
