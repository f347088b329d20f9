/* global document, fetch, setTimeout, clearTimeout */
// The SMART standalone launch's patient picker on the consent page: shown when the application asks for
// `launch/patient` (and the user may allow it). It searches the hospital's patients through records'
// `pasien.list`, same origin with the user's own session cookie, so it lists exactly the patients this
// user may see in this hospital; the choice goes with the consent answer (consent.js) as `patient`.
// Built here rather than in the page's HTML: the page needs scripts to answer anyway.

import { text } from './api.js';

const LAUNCH_PATIENT = 'launch/patient';
let chosen;

const el = (tag, props = {}, children = []) => {
  const node = Object.assign(document.createElement(tag), props);
  for (const child of children) node.append(child);
  return node;
};

/** Whether the consent page asks for a patient (the application requested launch/patient). */
export function needsPatient() {
  return document.querySelector(`#scope-list li[data-scope="${LAUNCH_PATIENT}"]`) !== null && document.getElementById('approve') !== null;
}

/** The chosen patient's id (a FHIR Patient id), or undefined. */
export function chosenPatient() {
  return chosen;
}

async function searchPatients(q) {
  const input = { limit: 10, ...(q ? { q } : {}) };
  const res = await fetch(`/trpc/pasien.list?input=${encodeURIComponent(JSON.stringify(input))}`, { credentials: 'same-origin' });
  const body = await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.error?.message ?? `patient search failed (${res.status})`);
  return body?.result?.data?.items ?? [];
}

function patientItem(p, announce) {
  const radio = el('input', { type: 'radio', name: 'patient', value: p.id, id: `patient-${p.id}` });
  radio.addEventListener('change', () => {
    chosen = p.id;
    announce(`${text('pickChosen', 'Chosen:')} ${p.nama} (RM ${p.noRm})`);
  });
  if (chosen === p.id) radio.checked = true;
  const label = el('label', { htmlFor: radio.id }, [`${p.nama} · RM ${p.noRm} · ${p.tanggalLahir}`]);
  return el('li', { className: 'patient' }, [radio, ' ', label]);
}

function mount() {
  const actions = document.getElementById('approve')?.closest('.actions');
  if (!needsPatient() || !actions) return;
  const chosenText = el('p', { id: 'patient-chosen', role: 'status' });
  const results = el('ul', { id: 'patient-results' });
  const search = el('input', { id: 'patient-search', type: 'search', autocomplete: 'off', spellcheck: false });
  const announce = (text) => (chosenText.textContent = text);
  const section = el('section', { id: 'patient-picker' }, [
    el('h2', { id: 'patient-title' }, [text('pickTitle', 'Choose the patient')]),
    el('label', { htmlFor: 'patient-search' }, [text('pickSearch', 'Search by name')]),
    search,
    results,
    chosenText,
  ]);
  section.setAttribute('aria-labelledby', 'patient-title');
  actions.before(section);

  let timer;
  let latest = 0;
  const run = async () => {
    const mine = ++latest;
    try {
      const found = await searchPatients(search.value.trim());
      if (mine !== latest) return; // an older answer arriving late
      results.replaceChildren(...found.map((p) => patientItem(p, announce)));
      if (!found.length) results.replaceChildren(el('li', { className: 'empty' }, [text('pickNone', 'No patient found.')]));
    } catch (err) {
      if (mine === latest) results.replaceChildren(el('li', { className: 'error' }, [err.message]));
    }
  };
  search.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 250);
  });
  void run();
}

mount();
