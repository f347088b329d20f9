// The staff dashboard (dashboard/, a React app built by Vite into dashboard/dist) at the site root:
// its hashed assets with a long cache, and index.html for every client-side route, so that a reload
// or a shared link of /pasien/<id> opens the app. Nothing else is answered here: /api, /trpc, /auth,
// /playground and the rest keep their own routes (mounted before this, or after it for /playground).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express from 'express';
import type { RequestHandler } from 'express';

export const DASHBOARD_DIST = fileURLToPath(new URL('../../../dashboard/dist', import.meta.url));

/** The dashboard's client routes (dashboard/src/App.tsx). */
export const CLIENT_ROUTES = /^\/(?:|masuk|akun|perangkat|audit|pasien(?:\/[\w-]+(?:\/ubah)?|\/baru)?|admin(?:\/(?:pengguna|integrasi))?)\/?$/;

export function dashboard(dist: string = DASHBOARD_DIST, onMissing: (dir: string) => void = () => {}): RequestHandler {
  const indexFile = `${dist}/index.html`;
  if (!existsSync(indexFile)) {
    // Built by `npm ci` (the dashboard workspace's prepare script) or `npm run build -w @simrs/dashboard`.
    onMissing(dist);
    return (_req, _res, next) => next();
  }
  const index = readFileSync(indexFile);
  const assets = express.static(`${dist}/assets`, { immutable: true, maxAge: '365d', index: false, fallthrough: true });
  const router = express.Router({ caseSensitive: true, strict: true });
  router.use('/assets', assets);
  router.get(CLIENT_ROUTES, (_req, res) => {
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(index);
  });
  return router;
}
