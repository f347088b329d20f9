// The staff dashboard (dashboard/, a React app built by Vite into dashboard/dist) at the site root:
// its hashed assets with a long cache, and index.html for every client-side route, so that a reload
// or a shared link of /pasien/<id> opens the app. Nothing else is answered here: /api, /trpc, /auth,
// /playground and the rest keep their own routes (mounted before this, or after it for /playground).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { RequestHandler } from 'express';

export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));

/** The dashboard's client routes (dashboard/src/App.tsx). */
export const CLIENT_ROUTES =
  /^\/(?:|masuk|akun|perangkat|audit|pasien(?:\/[\w-]+(?:\/ubah)?|\/baru)?|admin(?:\/(?:pengguna|integrasi))?)\/?$/;

export function dashboard(dist: string = DASHBOARD_DIST, onMissing: (dir: string) => void = () => {}): RequestHandler {
  const indexFile = `${dist}/index.html`;
  // Built by `npm ci` (the dashboard workspace's prepare script) or `npm run build -w @simrs/dashboard`.
  if (!existsSync(indexFile)) onMissing(dist);
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use('/assets', express.static(`${dist}/assets`, { immutable: true, maxAge: '365d', index: false, fallthrough: true }));
  // Read per request (it is small): a rebuild is served without restarting the gateway.
  router.get(CLIENT_ROUTES, (_req, res, next) => {
    if (!existsSync(indexFile)) return next();
    res.sendFile(indexFile, { cacheControl: false, headers: { 'cache-control': 'no-cache' } }, (err) => err && next(err));
  });
  return router;
}
