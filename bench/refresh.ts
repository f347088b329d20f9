// Token refreshes for the gateway bench: refresh-token families from the authorization code flow, and a
// closed loop in which each worker rotates its own family as fast as the token endpoint answers.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { Stack } from '../scripts/lib/stack.ts';
import { codeFlow, authorizeWithFetch } from '../test/support/oauth.ts';
import type { Browserless, RegisteredClient } from '../test/support/oauth.ts';
import type { startSmtpPeer } from '@simrs/platform/smtp-peer';
import { summarize } from './load.ts';
import type { LoadResult } from './load.ts';

export const DOCTOR = 'dokter@rs-bench.test';

/** Refresh-token grants from the authorization code flow (one family each), for `REFRESH_FAMILIES` workers. */
export async function refreshFamilies(
  stack: Stack,
  smtp: Awaited<ReturnType<typeof startSmtpPeer>>,
  app: RegisteredClient,
  browser: Browserless,
  count: number,
): Promise<string[]> {
  const redirectUri = (app.metadata.redirect_uris as string[])[0]!;
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) {
    // No openid: an integration's refresh (no ID token to sign each time).
    const flow = await codeFlow(app.config, redirectUri, 'simrs:read offline_access');
    const { callback } = await authorizeWithFetch(stack, smtp, browser, flow.url, { email: DOCTOR });
    const res = await fetch(`${stack.gatewayUrl}/api/auth/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        code_verifier: flow.verifier,
        redirect_uri: redirectUri,
        client_id: app.clientId,
        client_secret: app.clientSecret!,
      }),
    });
    const body = (await res.json()) as { refresh_token?: string };
    if (!body.refresh_token) throw new Error(`no refresh token: ${JSON.stringify(body)}`);
    tokens.push(body.refresh_token);
  }
  return tokens;
}

/** Closed loop: each worker refreshes its own family as fast as the token endpoint answers. */
export async function refreshLoad(stack: Stack, app: RegisteredClient, families: string[], seconds: number): Promise<LoadResult> {
  const pool = new Pool(stack.gatewayUrl, { connections: families.length });
  const latencies: number[] = [];
  let errors = 0;
  const warmupEnd = performance.now() + 500;
  const end = warmupEnd + seconds * 1000;
  await Promise.all(
    families.map(async (initial) => {
      let refreshToken = initial;
      while (performance.now() < end) {
        const started = performance.now();
        try {
          const res = await pool.request({
            method: 'POST',
            path: '/api/auth/oauth2/token',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({
              grant_type: 'refresh_token',
              refresh_token: refreshToken,
              client_id: app.clientId,
              client_secret: app.clientSecret!,
            }).toString(),
          });
          const body = (await res.body.json()) as { refresh_token?: string };
          if (res.statusCode !== 200 || !body.refresh_token) {
            errors++;
            if (started >= warmupEnd) continue;
            return;
          }
          refreshToken = body.refresh_token;
          if (started >= warmupEnd) latencies.push(performance.now() - started);
        } catch {
          errors++;
          return;
        }
      }
    }),
  );
  await pool.close();
  return summarize(latencies, errors, seconds);
}
