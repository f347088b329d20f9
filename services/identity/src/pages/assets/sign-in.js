/* global document, window, location, AbortController, URLSearchParams */
import { api, status, text } from './api.js';
import { conditionalSupported, credentialJSON, requestOptions, supported } from './webauthn.js';

const $ = (id) => document.getElementById(id);
const statusEl = $('status');
const params = new URLSearchParams(location.search);

// Sent here by /oauth2/authorize: the signed authorization request rides along with the sign-in, and
// Better Auth answers where the flow goes next (the consent page, or back to the application).
const oauthQuery = params.has('sig') && params.has('client_id') ? location.search.slice(1) : undefined;
const withOAuth = (body) => (oauthQuery ? { ...body, oauth_query: oauthQuery } : body);

/** The authorization request again, unsigned, for a sign-in that completes elsewhere (a mailed link). */
function authorizeAgain() {
  const again = new URLSearchParams(oauthQuery);
  for (const name of ['sig', 'exp', 'ba_iat', 'ba_pl', 'ba_param']) again.delete(name);
  const prompt = (again.get('prompt') || '').split(' ').filter((p) => p && p !== 'login');
  if (prompt.length) again.set('prompt', prompt.join(' '));
  else again.delete('prompt');
  return `/api/auth/oauth2/authorize?${again}`;
}

/**
 * Where to go once signed in: the path the server chose from ?callbackURL= or ?next= (a path of this
 * site, checked there by the product's one rule), else the account page.
 */
function next() {
  if (oauthQuery) return authorizeAgain();
  return $('email-form').dataset.next || '/auth/account';
}

/** After a sign-in answer: the OAuth flow's next step when Better Auth names one, else next(). */
function proceed(answer) {
  location.assign(answer && answer.redirect && answer.url ? answer.url : next());
}

// Known error codes in the page's language; anything else as the server worded it.
const explain = (err) => text(err.code, err.message);
if (oauthQuery) status(statusEl, text('continueApp'));
if (params.get('error')) status(statusEl, text(params.get('error'), text('failed')), true);

const email = () => $('email').value.trim();

$('email-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!email()) return status(statusEl, text('enterEmail'), true);
  try {
    await api('/email-otp/send-verification-otp', { email: email(), type: 'sign-in' });
    $('otp-form').hidden = false;
    $('otp').focus();
    status(statusEl, text('codeSent'));
  } catch (err) {
    status(statusEl, explain(err), true);
  }
});

$('send-magic-link').addEventListener('click', async () => {
  if (!email()) return status(statusEl, text('enterEmail'), true);
  try {
    await api('/sign-in/magic-link', { email: email(), callbackURL: next() });
    status(statusEl, text('linkSent'));
  } catch (err) {
    status(statusEl, explain(err), true);
  }
});

$('otp-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  try {
    proceed(await api('/sign-in/email-otp', withOAuth({ email: email(), otp: $('otp').value.trim() })));
  } catch (err) {
    status(statusEl, explain(err), true);
  }
});

let conditional;

async function passkeySignIn(mediation) {
  const options = await api('/passkey/generate-authenticate-options');
  const request = { publicKey: requestOptions(options) };
  if (mediation) {
    conditional = new AbortController();
    request.mediation = mediation;
    request.signal = conditional.signal;
  }
  const credential = await window.navigator.credentials.get(request);
  if (!credential) return;
  proceed(await api('/passkey/verify-authentication', withOAuth({ response: credentialJSON(credential) })));
}

$('passkey-sign-in').addEventListener('click', async () => {
  if (!supported()) return status(statusEl, text('noPasskeys'), true);
  conditional?.abort();
  try {
    await passkeySignIn();
  } catch (err) {
    if (err.name !== 'AbortError' && err.name !== 'NotAllowedError') status(statusEl, err.message, true);
    else status(statusEl, text('passkeyCancelled'), true);
  }
});

// Conditional UI: passkeys offered in the e-mail field's autofill.
conditionalSupported().then((ok) => {
  if (!ok) return;
  passkeySignIn('conditional').catch((err) => {
    if (err.name !== 'AbortError') status(statusEl, err.message, true);
  });
});
