// The OAuth pages: /auth/consent (where the authorize flow asks the signed-in user: the application's
// name, its hospital, what it asks for; allow or deny) and /auth/device (the RFC 8628 verification
// page: type the code shown on the device, or open verification_uri_complete; see the application and
// what it asks for; approve or deny). Rendered here from identity's own data, so what the page shows
// never comes from the query string; the decisions go to Better Auth's endpoints from a small script.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SCOPE_READ, SCOPE_WRITE } from '@simrs/contracts/access';
import { describeSmartScope } from '@simrs/contracts/smart';
import type { Directory, DirectoryUser } from '../directory/index.ts';
import { escape, layout } from './layout.ts';
import { PAGES } from './paths.ts';

/** What the consent and device pages say each scope lets the application do (SMART scopes: describeSmartScope). */
export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'Know who you are (your SIMRS account id)',
  profile: 'See your name',
  email: 'See your e-mail address',
  offline_access: 'Stay connected while you are away (refresh tokens)',
  [SCOPE_READ]: "Read your hospital's records (patients), as your role allows",
  [SCOPE_WRITE]: "Create and change your hospital's records, as your role allows",
};

/** What the pages show of an OAuth client (the fields of oauth's OAuthClientInfo they read). */
export interface PageClient {
  clientId: string;
  name: string | null;
  /** The tenant the client belongs to (set at registration). */
  tenantId: string | null;
  disabled: boolean;
}

export type DeviceLookup =
  { ok: true; status: string; clientId?: string; scope?: string } | { ok: false; httpStatus: number; error: string; description: string };

export interface OAuthPageDeps {
  directory: Directory;
  currentUser(headers: Headers): Promise<{ id: string } | undefined>;
  oauthClients: { find(clientId: string): Promise<PageClient | undefined> };
  /** Better Auth's device verification for this browser (binds an unclaimed code to the signed-in user). */
  verifyDeviceCode(headers: Headers, userCode: string): Promise<DeviceLookup>;
}

interface Responder {
  send(res: ServerResponse, status: number, contentType: string, body: string): void;
  redirect(res: ServerResponse, location: string): void;
}

const HTML = 'text/html; charset=utf-8';

/** The request headers Better Auth needs to see this browser: its cookie and its address. */
function forwarded(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const name of ['cookie', 'x-forwarded-for', 'user-agent', 'x-request-id']) {
    const value = req.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return headers;
}

function scopeList(scopes: string[]): string {
  const items = scopes
    .filter(Boolean)
    .map(
      (s) => `<li data-scope="${escape(s)}">${escape(SCOPE_DESCRIPTIONS[s] ?? describeSmartScope(s) ?? s)} <code>${escape(s)}</code></li>`,
    )
    .join('\n');
  return `<ul id="scope-list">\n${items}\n</ul>`;
}

function clientName(client: PageClient): string {
  return client.name?.trim() || `Application ${client.clientId.slice(0, 8)}`;
}

export function oauthPages(deps: OAuthPageDeps, out: Responder) {
  async function signedIn(req: IncomingMessage): Promise<DirectoryUser | undefined> {
    const current = await deps.currentUser(forwarded(req));
    const user = current && (await deps.directory.findUserById(current.id));
    return user?.active ? user : undefined;
  }

  async function tenantName(id: string): Promise<string> {
    return (await deps.directory.getTenant(id))?.name ?? id;
  }

  function message(res: ServerResponse, status: number, title: string, text: string, script = 'consent.js'): void {
    out.send(
      res,
      status,
      HTML,
      layout(title, script, `<h1>${escape(title)}</h1>\n<p id="status" role="status" aria-live="polite" class="error">${escape(text)}</p>`),
    );
  }

  return {
    /** GET /auth/consent?<the signed authorization request> */
    async consent(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const url = new URL(req.url ?? '/', 'http://x');
      const user = await signedIn(req);
      // The sign-in page carries the signed request on and resumes it after signing in.
      if (!user) return out.redirect(res, `${PAGES.signIn}${url.search}`);
      const clientId = url.searchParams.get('client_id');
      const client = clientId ? await deps.oauthClients.find(clientId) : undefined;
      if (!client || client.disabled || !url.searchParams.get('sig'))
        return message(
          res,
          400,
          'Unknown application',
          'This authorization request is not valid. Go back to the application and start again.',
        );
      const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const redirectHost = URL.canParse(redirectUri) ? new URL(redirectUri).host : '';
      const sameTenant = client.tenantId === user.tenantId;
      const hospital = await tenantName(user.tenantId);
      const decision = sameTenant
        ? `<div class="actions">
  <button id="approve" type="button">Allow</button>
  <button id="deny" type="button" class="secondary">Deny</button>
</div>`
        : `<p id="tenant-mismatch" class="error">This application belongs to another hospital: it cannot use your account.</p>
<div class="actions"><button id="deny" type="button">Go back</button></div>`;
      out.send(
        res,
        200,
        HTML,
        layout(
          'Allow access',
          'consent.js',
          `<h1>Allow <span id="client-name">${escape(clientName(client))}</span> to use your SIMRS account?</h1>
<p id="status" role="status" aria-live="polite"></p>
<p>Signed in as <strong id="user-email">${escape(user.email)}</strong> at <span id="tenant-name">${escape(hospital)}</span>.</p>
<section aria-labelledby="scopes-title" data-client-id="${escape(client.clientId)}">
  <h2 id="scopes-title">It asks to</h2>
  ${scopeList(scopes)}
</section>
${redirectHost ? `<p>After your answer you go back to <strong id="redirect-host">${escape(redirectHost)}</strong>.</p>` : ''}
${decision}`,
        ),
      );
    },

    /** GET /auth/device[?user_code=...] */
    async device(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const url = new URL(req.url ?? '/', 'http://x');
      const userCode = (url.searchParams.get('user_code') ?? '').trim();
      const user = await signedIn(req);
      if (!user) return out.redirect(res, `${PAGES.signIn}?callbackURL=${encodeURIComponent(`${PAGES.device}${url.search}`)}`);

      const form = (status: string, isError: boolean, value = '') => `<h1>Connect a device</h1>
<p id="status" role="status" aria-live="polite"${isError ? ' class="error"' : ''}>${escape(status)}</p>
<form id="code-form" method="get" action="${PAGES.device}">
  <label for="user-code">The code shown on your device</label>
  <input id="user-code" name="user_code" value="${escape(value)}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
  <div class="actions"><button id="submit-code" type="submit">Continue</button></div>
</form>`;
      if (!userCode) return out.send(res, 200, HTML, layout('Connect a device', 'device.js', form('', false)));

      const found = await deps.verifyDeviceCode(forwarded(req), userCode);
      if (!found.ok) {
        const text =
          found.httpStatus === 429
            ? 'Too many attempts. Wait a while and try again.'
            : found.error === 'access_denied'
              ? found.description
              : found.error === 'expired_token'
                ? 'That code has expired. Start again on your device.'
                : 'That code is not valid. Check it and try again.';
        return out.send(
          res,
          found.httpStatus >= 400 ? found.httpStatus : 400,
          HTML,
          layout('Connect a device', 'device.js', form(text, true, userCode)),
        );
      }
      if (found.status !== 'pending')
        return message(
          res,
          409,
          'Connect a device',
          'This request was answered already. Start again on your device if you need to.',
          'device.js',
        );
      // Better Auth names the client only to the user the code is bound to.
      const client = found.clientId ? await deps.oauthClients.find(found.clientId) : undefined;
      if (!client) return message(res, 403, 'Connect a device', 'This code is meant for another account.', 'device.js');
      const scopes = (found.scope ?? '').split(' ').filter(Boolean);
      out.send(
        res,
        200,
        HTML,
        layout(
          'Connect a device',
          'device.js',
          `<h1>Connect <span id="client-name">${escape(clientName(client))}</span>?</h1>
<p id="status" role="status" aria-live="polite"></p>
<p>Code <strong id="user-code-shown">${escape(userCode.toUpperCase())}</strong>. Signed in as <strong id="user-email">${escape(user.email)}</strong>
at <span id="tenant-name">${escape(await tenantName(user.tenantId))}</span>.</p>
<section id="request" aria-labelledby="scopes-title" data-user-code="${escape(userCode)}" data-client-id="${escape(client.clientId)}">
  <h2 id="scopes-title">It asks to</h2>
  ${scopeList(scopes)}
  <p>Approve only if you started this on your own device just now.</p>
  <div class="actions">
    <button id="approve" type="button">Approve</button>
    <button id="deny" type="button" class="secondary">Deny</button>
  </div>
</section>`,
        ),
      );
    },
  };
}
