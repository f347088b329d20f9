// The pages identity serves itself, plain accessible HTML with one small script each (no inline code,
// so the CSP can forbid it): /auth/sign-in (e-mail code, magic link, passkey with conditional UI),
// /auth/account (where a magic link lands: who is signed in, passkeys, sessions, sign-out, and the
// tenant's users for a tenant administrator), and the OAuth pages /auth/consent and /auth/device
// (oauth-pages.ts).
// Element ids are stable: tests drive these pages in Chromium. The sign-in, consent and device pages
// speak the language chosen in the dashboard (i18n.ts); the account page, which the dashboard
// replaces for staff, stays in English.
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ROLE_LABELS, ROLES } from '@simrs/contracts/access';
import type { Role } from '@simrs/contracts/access';
import { safeReturnPath } from '@simrs/contracts/return-path';
import type { Directory } from '../directory/index.ts';
import { PAGE_TEXT, pageLocale } from './i18n.ts';
import type { PageLocale } from './i18n.ts';
import { escape, layout } from './layout.ts';
import { oauthPages } from './oauth-pages.ts';
import type { OAuthPageDeps } from './oauth-pages.ts';
import { PAGES } from './paths.ts';

const ASSETS: Record<string, string> = {
  'style.css': 'text/css; charset=utf-8',
  'webauthn.js': 'text/javascript; charset=utf-8',
  'sign-in.js': 'text/javascript; charset=utf-8',
  'account.js': 'text/javascript; charset=utf-8',
  'api.js': 'text/javascript; charset=utf-8',
  'consent.js': 'text/javascript; charset=utf-8',
  'patient-picker.js': 'text/javascript; charset=utf-8',
  'device.js': 'text/javascript; charset=utf-8',
};
const assetDir = new URL('./assets/', import.meta.url);

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/**
 * Where the sign-in page goes once signed in: `?callbackURL=` or `?next=` when it is a path of this site
 * (safeReturnPath, the product's one rule), else the account page. Decided here rather than in the
 * page's script, which is a static asset and could only have kept a copy of the rule.
 */
export function signInNext(search: URLSearchParams, publicUrl: string): string {
  return safeReturnPath(search.get('callbackURL') || search.get('next'), publicUrl, PAGES.account);
}

function signInPage(locale: PageLocale, next: string): string {
  const t = PAGE_TEXT[locale].signIn;
  return layout(
    t.title,
    'sign-in.js',
    `<h1>${escape(t.heading)}</h1>
<p id="status" role="status" aria-live="polite"></p>
<form id="email-form" novalidate data-next="${escape(next)}">
  <label for="email">${escape(t.email)}</label>
  <input id="email" name="email" type="email" autocomplete="username webauthn" required>
  <div class="actions">
    <button id="send-otp" type="submit">${escape(t.sendCode)}</button>
    <button id="send-magic-link" type="button" class="secondary">${escape(t.sendLink)}</button>
  </div>
</form>
<form id="otp-form" hidden novalidate>
  <label for="otp">${escape(t.code)}</label>
  <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
  <div class="actions"><button id="verify-otp" type="submit">${escape(t.verify)}</button></div>
</form>
<hr>
<button id="passkey-sign-in" type="button">${escape(t.passkey)}</button>`,
    locale,
  );
}

function accountPage(user: { email: string; name: string; role: Role }, tenantName: string, locale: PageLocale): string {
  const t = PAGE_TEXT[locale].account;
  const roleLabel = ROLE_LABELS[user.role]?.[locale] ?? user.role;
  // No role is preselected: an invitation names its role on purpose (never administrator by default).
  const roleOptions = [`<option value="" selected disabled>${escape(t.chooseRole)}</option>`]
    .concat(ROLES.map((r) => `<option value="${r}">${escape(ROLE_LABELS[r][locale])}</option>`))
    .join('');
  const admin =
    user.role === 'tenant_admin'
      ? `<section id="tenant-admin" aria-labelledby="tenant-admin-title">
  <h2 id="tenant-admin-title">${escape(t.people(tenantName))}</h2>
  <form id="invite-form" novalidate>
    <label for="invite-email">${escape(t.email)}</label>
    <input id="invite-email" type="email" required>
    <label for="invite-role">${escape(t.role)}</label>
    <select id="invite-role" required>${roleOptions}</select>
    <div class="actions"><button id="invite-user" type="submit">${escape(t.invite)}</button></div>
  </form>
  <ul id="user-list"></ul>
</section>`
      : '';
  return layout(
    t.title,
    'account.js',
    `<h1>${escape(t.heading)}</h1>
<p id="status" role="status" aria-live="polite"></p>
<section id="signed-in" data-role="${escape(user.role)}">
  <p>${escape(t.signedInAs)} <strong id="user-email">${escape(user.email)}</strong>
  (<span id="user-role">${escape(roleLabel)}</span>, <span id="tenant-name">${escape(tenantName)}</span>).</p>
  <button id="sign-out" type="button">${escape(t.signOut)}</button>
</section>
<section aria-labelledby="passkeys-title">
  <h2 id="passkeys-title">${escape(t.passkeys)}</h2>
  <label for="passkey-name">${escape(t.passkeyName)}</label>
  <input id="passkey-name" type="text" maxlength="100" placeholder="${escape(t.passkeyPlaceholder)}">
  <div class="actions"><button id="register-passkey" type="button">${escape(t.addPasskey)}</button></div>
  <ul id="passkey-list"></ul>
</section>
<section aria-labelledby="sessions-title">
  <h2 id="sessions-title">${escape(t.sessions)}</h2>
  <ul id="session-list"></ul>
  <button id="revoke-other-sessions" type="button" class="secondary">${escape(t.signOutElsewhere)}</button>
</section>
${admin}`,
    locale,
  );
}

export interface PageDeps extends OAuthPageDeps {
  /** The site's origin (PUBLIC_URL): return addresses must stay on it. */
  publicUrl: string;
  directory: Directory;
  /** The signed-in user for these request headers, if any. */
  currentUser(headers: Headers): Promise<{ id: string } | undefined>;
}

export type Pages = ReturnType<typeof createPages>;

export function createPages(deps: PageDeps) {
  function send(res: ServerResponse, status: number, contentType: string, body: string | Buffer, extra: Record<string, string> = {}) {
    res.writeHead(status, {
      'content-type': contentType,
      'cache-control': 'no-store',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      ...extra,
    });
    res.end(res.req?.method === 'HEAD' ? undefined : body);
  }
  const redirect = (res: ServerResponse, location: string) => {
    res.writeHead(302, { location, 'cache-control': 'no-store' });
    res.end();
  };

  const oauth = oauthPages(deps, { send, redirect });

  return {
    /** Serves a page; 'method' or 'missing' when there is none, for the server's error writer to answer. */
    async serve(req: IncomingMessage, res: ServerResponse, path: string): Promise<void | 'method' | 'missing'> {
      if (req.method !== 'GET' && req.method !== 'HEAD') return 'method';
      if (path === '/auth' || path === '/auth/') return redirect(res, PAGES.account);
      if (path === PAGES.signIn) {
        const next = signInNext(new URL(req.url ?? '/', deps.publicUrl).searchParams, deps.publicUrl);
        return send(res, 200, 'text/html; charset=utf-8', signInPage(pageLocale(req.headers.cookie), next));
      }
      if (path === PAGES.account) {
        const headers = new Headers();
        if (req.headers.cookie) headers.set('cookie', req.headers.cookie);
        const current = await deps.currentUser(headers);
        const user = current && (await deps.directory.findUserById(current.id));
        if (!user || !user.active) return redirect(res, PAGES.signIn);
        const tenant = await deps.directory.getTenant(user.tenantId);
        return send(res, 200, 'text/html; charset=utf-8', accountPage(user, tenant?.name ?? user.tenantId, pageLocale(req.headers.cookie)));
      }
      if (path === PAGES.consent) return oauth.consent(req, res);
      if (path === PAGES.device) return oauth.device(req, res);
      const asset = path.startsWith('/auth/assets/') ? path.slice('/auth/assets/'.length) : undefined;
      if (asset && Object.hasOwn(ASSETS, asset)) {
        const body = await readFile(new URL(asset, assetDir));
        return send(res, 200, ASSETS[asset]!, body, { 'cache-control': 'public, max-age=300' });
      }
      return 'missing';
    },
  };
}
