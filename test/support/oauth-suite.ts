// What test/oauth.test.ts and test/oauth-tokens.test.ts share: each runs its own stack with the same
// people (four of one hospital, two of another), hooked to the file by `useOAuthStack`. The stack's
// parts are exported as live bindings, set by that hook, so that both files' tests read `stack`,
// `smtp` and `redirectUri` as the names they are.
import { after, before } from 'node:test';
import type * as client from 'openid-client';
import type { SmtpPeer } from '@simrs/platform/testing/smtp-peer';
import type { Stack } from '../../scripts/lib/stack.ts';
import { Browserless, startOAuthWorld } from './oauth.ts';
import type { OAuthWorld } from './oauth.ts';

export const TENANT = 'rs-oauth';
export const USERS = {
  admin: 'admin@rs-oauth.test',
  doctor: 'dokter@rs-oauth.test',
  nurse: 'perawat@rs-oauth.test',
  midwife: 'bidan@rs-oauth.test',
  otherAdmin: 'admin@rs-lain.test',
  otherDoctor: 'dokter@rs-lain.test',
};

export let stack: Stack;
export let smtp: SmtpPeer;
/** The loopback redirect URI every client is registered with, answered by a tiny server. */
export let redirectUri: string;
/** The stack's own redis-server, where identity keeps its secondary storage. */
export let redis: { url: string };

/**
 * Starts the stack (with the people seeded) before the file's tests, then runs `ready`, and stops it
 * after them. `ready` is the file's own setup on the stack: a file's top-level before hooks start
 * together, so a second one could not count on the stack being up.
 */
export function useOAuthStack(name: string, ready: () => Promise<void> = async () => {}): void {
  let world: OAuthWorld | undefined;
  before(async () => {
    world = await startOAuthWorld(name, [
      { email: USERS.admin, tenant: TENANT, role: 'tenant_admin' },
      { email: USERS.doctor, tenant: TENANT, role: 'doctor' },
      { email: USERS.nurse, tenant: TENANT, role: 'nurse' },
      { email: USERS.midwife, tenant: TENANT, role: 'nurse' },
      { email: USERS.otherAdmin, tenant: 'rs-lain', role: 'tenant_admin' },
      { email: USERS.otherDoctor, tenant: 'rs-lain', role: 'doctor' },
    ]);
    ({ stack, smtp, redirectUri } = world);
    redis = { url: world.redisUrl };
    await ready();
  });
  after(async () => {
    await world?.stop();
  });
}

/** Browsers without a browser: one session per person, reused (OTP sends per address are limited). */
export const sessions = new Map<string, Browserless>();
export const browserFor = (email: string) => {
  if (!sessions.has(email)) sessions.set(email, new Browserless(stack));
  return sessions.get(email)!;
};

/** Refresh tokens, codes and registration tokens handed out: none may be readable where identity keeps state. */
export const issued = new Set<string>();

export const clientMetadata = (name: string, extra: Partial<client.ClientMetadata> = {}): Partial<client.ClientMetadata> => ({
  client_name: name,
  redirect_uris: [redirectUri],
  application_type: 'native',
  token_endpoint_auth_method: 'client_secret_post',
  ...extra,
});

export async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

export const status = async (res: Response) => {
  await res.arrayBuffer();
  return res.status;
};
