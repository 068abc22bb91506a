// The scenario picker and the narration of the lab running.
import { h, setText } from './dom.js';
import { getJSON, post, toast } from './api.js';
import { playNew } from './playback.js';

let select, runButton, narration, available = false;
let shown = ''; // the running scenario the picker last followed

export async function initScenarios(box, narrationEl) {
  narration = narrationEl;
  select = h('select', { id: 'scenario', 'aria-label': 'scenario' });
  runButton = h('button', { id: 'scenario-run', text: 'run scenario', onclick: run });
  box.replaceChildren(select, runButton);
  const list = await getJSON('/api/scenarios');
  if (!list) return;
  available = list.available;
  const none = h('option', { value: '', disabled: true, text: 'pick a scenario…' });
  select.replaceChildren(none, ...list.scenarios.map((s) => h('option', {
    value: s.name, disabled: !s.live, title: s.reason || s.description,
    text: `${s.name}${s.setting ? ' (' + s.setting + ')' : ''}${s.live ? '' : ' – sim only'}`,
  })));
  select.value = list.current || '';
  // The scenario the list names is the one running: the first snapshot's
  // is no switch, and a choice made before it arrives stays chosen.
  if (list.current) shown = list.current;
  runButton.disabled = select.disabled = !available;
  runButton.title = available ? 'stop this lab and start the scenario' : list.reason || '';
}

async function run() {
  const name = select.value;
  if (!name) return toast('pick a scenario first', 'error');
  runButton.disabled = true;
  toast(`starting ${name}…`);
  try {
    const out = await post('/api/scenario', { name });
    if (out) {
      await playNew(); // on the virtual clock a switch keeps the pause
      toast(`${name} is running`);
    }
  } finally {
    runButton.disabled = !available;
  }
}

/**
 * renderScenario shows the description and narration of the lab running.
 * They describe the lab as it started; once a drill has changed a setting
 * (p2c switched to round robin, say) a line says what is in force now.
 */
export function renderScenario(snap) {
  const parts = [];
  const changes = snap.changes || [];
  if (snap.scenario || snap.lab) parts.push(h('strong', { text: snap.scenario || snap.lab }));
  if (snap.setting) parts.push(` (setting ${snap.setting})`);
  if (snap.description) parts.push(' — ' + snap.description);
  if (snap.description && changes.length) parts.push(h('span', { class: 'as-started', text: ' (as it started)' }));
  const key = [snap.scenario, snap.lab, snap.setting, snap.narration, ...changes].join('|');
  if (narration.dataset.key !== key) {
    narration.dataset.key = key;
    narration.replaceChildren(h('p', { class: 'desc' }, ...parts),
      changes.length ? h('p', { class: 'changes' }, h('strong', { text: 'now: ' }), changes.join(' · ')) : '',
      snap.narration ? h('p', { class: 'narr', text: snap.narration }) : '');
  }
  narration.hidden = parts.length === 0;
  // The picker follows the scenario running when that changes (a switch
  // started elsewhere), not on every snapshot: a choice made and not yet
  // run stays chosen after the picker loses focus.
  if (snap.scenario && snap.scenario !== shown) {
    shown = snap.scenario;
    if (document.activeElement !== select && !runButton.disabled) select.value = snap.scenario;
  }
  setText(document.getElementById('lab-name'), snap.lab || '');
}
