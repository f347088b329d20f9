/* global document, location */
// The consent page: the answer goes to Better Auth's /oauth2/consent with the signed request, which
// answers where to go next (the application's redirect URI, with a code or with access_denied).
import { api, status, text } from './api.js';
import { chosenPatient, needsPatient } from './patient-picker.js';

const $ = (id) => document.getElementById(id);
const query = location.search.slice(1);

async function decide(accept) {
  // SMART standalone launch: allowing means choosing the patient too.
  const patient = accept && needsPatient() ? chosenPatient() : undefined;
  if (accept && needsPatient() && !patient) return status($('status'), text('choosePatient'), true);
  for (const id of ['approve', 'deny']) if ($(id)) $(id).disabled = true;
  try {
    const answer = await api('/oauth2/consent', { accept, oauth_query: query, ...(patient ? { patient } : {}) });
    const next = answer && (answer.url || answer.redirect_uri || answer.uri);
    if (!next) throw new Error(text('noAnswer'));
    status($('status'), accept ? text('allowed') : text('denied'));
    location.assign(next);
  } catch (err) {
    status($('status'), err.message, true);
    for (const id of ['approve', 'deny']) if ($(id)) $(id).disabled = false;
  }
}

$('approve')?.addEventListener('click', () => decide(true));
$('deny')?.addEventListener('click', () => decide(false));
