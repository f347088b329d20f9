// The staff dashboard (dashboard/, a React app built by Vite into dashboard/dist) at the site root:
// its hashed assets with a long cache, and index.html for every client-side route, so that a reload
// or a shared link of /pasien/<id> opens the app. The dashboard is the only UI: its sign-in, OAuth
// consent, SMART patient picker and device pages are where identity sends browsers (@simrs/contracts/
// dashboard). The addresses of identity's former pages (/auth/...) redirect to them, so that links in
// mails already sent and device screens still showing the old verification URI keep working. Nothing
// else is answered here: /api, /trpc, /playground and the rest keep their own routes.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { RequestHandler } from 'express';
import { DASHBOARD } from '@simrs/contracts/dashboard';

export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));

/** The dashboard's client routes (dashboard/src/App.tsx). */
export const CLIENT_ROUTES =
  /^\/(?:|masuk|izin|pilih-pasien|akun|perangkat|audit|antrean|pendaftaran|kunjungan\/[\w-]+|pasien(?:\/[\w-]+(?:\/ubah|\/klinis)?|\/baru)?|admin(?:\/(?:pengguna|integrasi|perangkat|poli|satusehat|ekspor))?)\/?$/;

/** identity's former pages and where each lives now (the query goes along: user_code, the OAuth request). */
export const FORMER_PAGES: ReadonlyMap<string, string> = new Map([
  ['/auth', DASHBOARD.account],
  ['/auth/account', DASHBOARD.account],
  ['/auth/sign-in', DASHBOARD.signIn],
  ['/auth/consent', DASHBOARD.consent],
  ['/auth/device', DASHBOARD.device],
]);

export function dashboard(dist: string = DASHBOARD_DIST, onMissing: (dir: string) => void = () => {}): RequestHandler {
  const indexFile = `${dist}/index.html`;
  // Built by `npm ci` (the dashboard workspace's prepare script) or `npm run build -w @simrs/dashboard`.
  if (!existsSync(indexFile)) onMissing(dist);
  const router = express.Router({ caseSensitive: true, strict: true });
  router.get([...FORMER_PAGES.keys()], (req, res) => {
    const query = req.originalUrl.indexOf('?');
    res.redirect(302, FORMER_PAGES.get(req.path)! + (query >= 0 ? req.originalUrl.slice(query) : ''));
  });
  router.use('/assets', express.static(`${dist}/assets`, { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  // Read per request (it is small): a rebuild is served without restarting the gateway.
  router.get(CLIENT_ROUTES, (_req, res, next) => {
    if (!existsSync(indexFile)) return next();
    res.sendFile(indexFile, { cacheControl: false, headers: { 'cache-control': 'no-cache' } }, (err) => err && next(err));
  });
  return router;
}
