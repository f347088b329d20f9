// The OAuth authorization request as the dashboard's pages carry it. identity's OAuth provider sends a
// browser to the sign-in page (/masuk) or the consent page (/izin, /pilih-pasien) with the request in
// the query, signed by identity (`sig`). The pages never trust what the query says about the client:
// they ask identity by client id. Sign-in and consent answers go back to identity with the signed query
// (`oauth_query`, added by @better-auth/oauth-provider's client plugin in auth.ts), and identity answers
// where the flow goes next: `{redirect: true, url}`.
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { LAUNCH_PATIENT_SCOPE } from '@simrs/contracts/smart';

/** The signed authorization request in this query, or undefined when the page was not opened by one. */
export function signedRequest(params: URLSearchParams): URLSearchParams | undefined {
  return params.has('sig') && params.has('client_id') ? params : undefined;
}

export const requestedScopes = (request: URLSearchParams) => (request.get('scope') ?? '').split(' ').filter(Boolean);

export const asksForPatient = (request: URLSearchParams) => requestedScopes(request).includes(LAUNCH_PATIENT_SCOPE);

/** The consent page for this request: the SMART patient picker when the application asks for a patient. */
export const consentPageFor = (request: URLSearchParams) => (asksForPatient(request) ? DASHBOARD.patientPicker : DASHBOARD.consent);

/**
 * The authorization request again, unsigned, for a sign-in that completes elsewhere (a mailed link lands
 * there and identity runs the request anew). `prompt=login` is satisfied by that sign-in, so it goes.
 */
export function authorizeAgain(request: URLSearchParams): string {
  const again = new URLSearchParams(request);
  for (const name of ['sig', 'exp', 'ba_iat', 'ba_pl', 'ba_param']) again.delete(name);
  const prompt = (again.get('prompt') ?? '').split(' ').filter((p) => p && p !== 'login');
  if (prompt.length) again.set('prompt', prompt.join(' '));
  else again.delete('prompt');
  return `/api/auth/oauth2/authorize?${again}`;
}

/** Where identity says the flow goes next, if it said so. */
export function nextStep(answer: unknown): string | undefined {
  const a = answer as { redirect?: unknown; url?: unknown } | null | undefined;
  return a && a.redirect === true && typeof a.url === 'string' ? a.url : undefined;
}

/** Leaves the dashboard for the next step of the flow (the application, or identity's authorize endpoint). */
export function continueTo(url: string): void {
  window.location.assign(url);
}
