// The OAuth pages: /auth/consent (where the authorize flow asks the signed-in user: the application's
// name, its hospital, what it asks for; allow or deny) and /auth/device (the RFC 8628 verification
// page: type the code shown on the device, or open verification_uri_complete; see the application and
// what it asks for; approve or deny). Rendered here from identity's own data, so what the page shows
// never comes from the query string; the decisions go to Better Auth's endpoints from a small script.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describeSmartScope } from '@simrs/contracts/smart';
import type { Directory, DirectoryUser } from '../directory/index.ts';
import { PAGE_TEXT, pageLocale } from './i18n.ts';
import type { PageLocale, PageText } from './i18n.ts';
import { escape, layout } from './layout.ts';
import { PAGES } from './paths.ts';

/** What the consent and device pages say each scope lets the application do, in English (each language: i18n.ts; SMART scopes: describeSmartScope, in both). */
export const SCOPE_DESCRIPTIONS: Record<string, string> = PAGE_TEXT.en.scopes;

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

function scopeList(scopes: string[], t: PageText, locale: PageLocale): string {
  // The scopes come from the request: `constructor` is not a scope the catalogue describes.
  const known = (s: string) => (Object.hasOwn(t.scopes, s) ? t.scopes[s] : undefined);
  const items = scopes
    .filter(Boolean)
    .map((s) => `<li data-scope="${escape(s)}">${escape(known(s) ?? describeSmartScope(s, locale) ?? s)} <code>${escape(s)}</code></li>`)
    .join('\n');
  return `<ul id="scope-list">\n${items}\n</ul>`;
}

/**
 * A sentence of the page's language with marked-up parts (names, addresses in their own elements, which
 * tests and scripts find by id) put where the sentence has them: the words around them stay the language's.
 */
function sentence(write: (...slots: string[]) => string, ...parts: string[]): string {
  const slots = parts.map((_, i) => String.fromCharCode(0xe000 + i)); // private-use characters: never in a text
  return parts.reduce((html, part, i) => html.replace(slots[i]!, part), escape(write(...slots)));
}

const marked = (tag: string, id: string, text: string) => `<${tag} id="${id}">${escape(text)}</${tag}>`;

function clientName(client: PageClient, t: PageText): string {
  return client.name?.trim() || t.application(client.clientId.slice(0, 8));
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

  function message(res: ServerResponse, locale: PageLocale, status: number, title: string, text: string, script = 'consent.js'): void {
    const body = `<h1>${escape(title)}</h1>\n<p id="status" role="status" aria-live="polite" class="error">${escape(text)}</p>`;
    out.send(res, status, HTML, layout(title, script, body, locale));
  }

  return {
    /** GET /auth/consent?<the signed authorization request> */
    async consent(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const url = new URL(req.url ?? '/', 'http://x');
      const locale = pageLocale(req.headers.cookie);
      const t = PAGE_TEXT[locale];
      const user = await signedIn(req);
      // The sign-in page carries the signed request on and resumes it after signing in.
      if (!user) return out.redirect(res, `${PAGES.signIn}${url.search}`);
      const clientId = url.searchParams.get('client_id');
      const client = clientId ? await deps.oauthClients.find(clientId) : undefined;
      if (!client || client.disabled || !url.searchParams.get('sig'))
        return message(res, locale, 400, t.consent.unknownTitle, t.consent.unknownText);
      const scopes = (url.searchParams.get('scope') ?? '').split(' ').filter(Boolean);
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const redirectHost = URL.canParse(redirectUri) ? new URL(redirectUri).host : '';
      const sameTenant = client.tenantId === user.tenantId;
      const hospital = await tenantName(user.tenantId);
      const decision = sameTenant
        ? `<div class="actions">
  <button id="approve" type="button">${escape(t.consent.allow)}</button>
  <button id="deny" type="button" class="secondary">${escape(t.consent.deny)}</button>
</div>`
        : `<p id="tenant-mismatch" class="error">${escape(t.consent.otherHospital)}</p>
<div class="actions"><button id="deny" type="button">${escape(t.consent.goBack)}</button></div>`;
      out.send(
        res,
        200,
        HTML,
        layout(
          t.consent.title,
          'consent.js',
          `<h1>${sentence(t.consent.heading, marked('span', 'client-name', clientName(client, t)))}</h1>
<p id="status" role="status" aria-live="polite"></p>
<p>${sentence(t.consent.signedInAs, marked('strong', 'user-email', user.email), marked('span', 'tenant-name', hospital))}</p>
<section aria-labelledby="scopes-title" data-client-id="${escape(client.clientId)}">
  <h2 id="scopes-title">${escape(t.consent.asks)}</h2>
  ${scopeList(scopes, t, locale)}
</section>
${redirectHost ? `<p>${sentence(t.consent.goesBackTo, marked('strong', 'redirect-host', redirectHost))}</p>` : ''}
${decision}`,
          locale,
        ),
      );
    },

    /** GET /auth/device[?user_code=...] */
    async device(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const url = new URL(req.url ?? '/', 'http://x');
      const userCode = (url.searchParams.get('user_code') ?? '').trim();
      const locale = pageLocale(req.headers.cookie);
      const t = PAGE_TEXT[locale];
      const user = await signedIn(req);
      if (!user) return out.redirect(res, `${PAGES.signIn}?callbackURL=${encodeURIComponent(`${PAGES.device}${url.search}`)}`);

      const form = (status: string, isError: boolean, value = '') => `<h1>${escape(t.device.title)}</h1>
<p id="status" role="status" aria-live="polite"${isError ? ' class="error"' : ''}>${escape(status)}</p>
<form id="code-form" method="get" action="${PAGES.device}">
  <label for="user-code">${escape(t.device.code)}</label>
  <input id="user-code" name="user_code" value="${escape(value)}" autocomplete="off" autocapitalize="characters" spellcheck="false" required>
  <div class="actions"><button id="submit-code" type="submit">${escape(t.device.continue)}</button></div>
</form>`;
      if (!userCode) return out.send(res, 200, HTML, layout(t.device.title, 'device.js', form('', false), locale));

      const found = await deps.verifyDeviceCode(forwarded(req), userCode);
      if (!found.ok) {
        const text =
          found.httpStatus === 429
            ? t.device.tooMany
            : found.error === 'access_denied' // identity refuses a device code only for another hospital's application (oauth/hooks.ts)
              ? t.device.otherHospital
              : found.error === 'expired_token'
                ? t.device.expired
                : t.device.invalid;
        return out.send(
          res,
          found.httpStatus >= 400 ? found.httpStatus : 400,
          HTML,
          layout(t.device.title, 'device.js', form(text, true, userCode), locale),
        );
      }
      if (found.status !== 'pending') return message(res, locale, 409, t.device.title, t.device.answered, 'device.js');
      // Better Auth names the client only to the user the code is bound to.
      const client = found.clientId ? await deps.oauthClients.find(found.clientId) : undefined;
      if (!client) return message(res, locale, 403, t.device.title, t.device.otherAccount, 'device.js');
      const scopes = (found.scope ?? '').split(' ').filter(Boolean);
      out.send(
        res,
        200,
        HTML,
        layout(
          t.device.title,
          'device.js',
          `<h1>${sentence(t.device.heading, marked('span', 'client-name', clientName(client, t)))}</h1>
<p id="status" role="status" aria-live="polite"></p>
<p>${escape(t.device.codeShown)} ${marked('strong', 'user-code-shown', userCode.toUpperCase())}.
${sentence(t.consent.signedInAs, marked('strong', 'user-email', user.email), marked('span', 'tenant-name', await tenantName(user.tenantId)))}</p>
<section id="request" aria-labelledby="scopes-title" data-user-code="${escape(userCode)}" data-client-id="${escape(client.clientId)}">
  <h2 id="scopes-title">${escape(t.consent.asks)}</h2>
  ${scopeList(scopes, t, locale)}
  <p>${escape(t.device.onlyIfYou)}</p>
  <div class="actions">
    <button id="approve" type="button">${escape(t.device.approve)}</button>
    <button id="deny" type="button" class="secondary">${escape(t.device.deny)}</button>
  </div>
</section>`,
          locale,
        ),
      );
    },
  };
}
