// OAuth grants as the unit of revocation (RFC 7009 §2.1, RFC 6749 §4.1.2, §10.4). A grant is one
// authorization code or device code and every token issued from it (refresh tokens carry the code's
// stored id through each rotation). Every access token names its grant (GRANT_CLAIM) and the
// millisecond identity issued it (ISSUED_AT_MS_CLAIM); revoking a grant names it, so it never reaches
// another grant of the same user and client, nor a token issued after it (a revoked grant issues none).
import { createHash } from 'node:crypto';
import { GRANT_CLAIM, ISSUED_AT_MS_CLAIM } from '@simrs/contracts/oauth';
import type { Keys } from '../keys/index.ts';
import type { Revocations } from '../sessions/index.ts';
import type { IdentityStorage } from '../sessions/index.ts';
import type { Ctx } from '../signin/index.ts';
import { DEVICE_CODE_GRANT, hashOAuthToken, isPlainObject, oauthError } from './tokens.ts';

type AdapterCtx = Ctx;

export interface RefreshRow {
  id: string;
  userId: string;
  clientId?: string | null;
  authorizationCodeId?: string | null;
  revoked?: Date | null;
}

/** The public name of a grant: a hash of the stored id of the code that started it (not the code, not its stored form). */
export const grantIdOf = (originId: string) => createHash('sha256').update(`grant:${originId}`).digest('base64url').slice(0, 22);

const redeemedKey = (grantId: string) => `oauth-grant-redeemed:${grantId}`;

interface GrantDeps {
  keys: Keys;
  storage: IdentityStorage;
  revocations: Revocations;
  accessTokenTtlSeconds: number;
}

function findRefresh({ keys }: GrantDeps, ctx: AdapterCtx, refreshToken: string) {
  return ctx.context.adapter.findOne<RefreshRow>({
    model: 'oauthRefreshToken',
    where: [{ field: 'token', value: hashOAuthToken(keys, refreshToken, 'refresh_token') }],
  });
}

/** The stored id of the code a token request redeems (device codes are already swapped for their stored hash). */
async function originOf(deps: GrantDeps, ctx: AdapterCtx): Promise<string | undefined> {
  const body = isPlainObject(ctx.body) ? ctx.body : {};
  if (body.grant_type === 'authorization_code' && typeof body.code === 'string')
    return hashOAuthToken(deps.keys, body.code, 'authorization_code');
  if (body.grant_type === DEVICE_CODE_GRANT && typeof body.device_code === 'string') return body.device_code;
  if (body.grant_type === 'refresh_token' && typeof body.refresh_token === 'string')
    return (await findRefresh(deps, ctx, body.refresh_token))?.authorizationCodeId ?? undefined;
  return undefined;
}

/** The claims every access token carries for revocation: its grant (by its origin, originOf) and its issue time in ms. */
function accessTokenClaims(origin: string | undefined): Record<string, unknown> {
  return { ...(origin ? { [GRANT_CLAIM]: grantIdOf(origin) } : {}), [ISSUED_AT_MS_CLAIM]: Date.now() };
}

/** Ends one grant: its refresh tokens (and stored access tokens) in Postgres, its access tokens at the gateway. */
async function endGrant({ revocations }: GrantDeps, ctx: AdapterCtx, row: RefreshRow): Promise<void> {
  if (!row.authorizationCodeId) {
    // A refresh token issued before grants had names: the user's tokens for this client, up to now.
    await revocations.publish({ userId: row.userId, ...(row.clientId ? { clientId: row.clientId } : {}) });
    return;
  }
  const family = await ctx.context.adapter.findMany<{ id: string }>({
    model: 'oauthRefreshToken',
    where: [{ field: 'authorizationCodeId', value: row.authorizationCodeId }],
  });
  if (family.length)
    await ctx.context.adapter.deleteMany({
      model: 'oauthAccessToken',
      where: [{ field: 'refreshId', operator: 'in', value: family.map((r) => r.id) }],
    });
  await ctx.context.adapter.deleteMany({
    model: 'oauthRefreshToken',
    where: [{ field: 'authorizationCodeId', value: row.authorizationCodeId }],
  });
  await revocations.publish({ grantIds: [grantIdOf(row.authorizationCodeId)] });
}

/**
 * A request that lost the race to rotate this token ends the grant by deleting its refresh tokens, the
 * rotated one included. Done between this rotation and its insert, that delete missed the new token;
 * the rotated row being gone tells, read after the insert, so either the delete saw the new token or
 * this read sees the delete. Then the grant ends here too.
 */
async function endIfRotationLost(deps: GrantDeps, ctx: AdapterCtx, rotated: string, issued: string): Promise<void> {
  if (await findRefresh(deps, ctx, rotated)) return;
  const row = await findRefresh(deps, ctx, issued);
  if (row) await endGrant(deps, ctx, row);
}

/**
 * After a code or device grant: remember for an access token's lifetime that the code was redeemed
 * (a replay then names a real grant), and give a device grant's refresh token its origin (Better
 * Auth leaves it empty), so that its rotations keep naming the grant.
 */
async function afterIssued(deps: GrantDeps, ctx: AdapterCtx, refreshToken: string | undefined): Promise<void> {
  const body = isPlainObject(ctx.body) ? ctx.body : {};
  if (body.grant_type === 'refresh_token' && typeof body.refresh_token === 'string' && refreshToken)
    return endIfRotationLost(deps, ctx, body.refresh_token, refreshToken);
  // A refresh keeps its grant by itself: no need to read its row again.
  if (body.grant_type !== 'authorization_code' && body.grant_type !== DEVICE_CODE_GRANT) return;
  const origin = await originOf(deps, ctx);
  if (!origin) return;
  if (body.grant_type === 'authorization_code') await deps.storage.set(redeemedKey(grantIdOf(origin)), '1', deps.accessTokenTtlSeconds);
  if (body.grant_type === DEVICE_CODE_GRANT && refreshToken)
    await ctx.context.adapter.update({
      model: 'oauthRefreshToken',
      where: [{ field: 'token', value: hashOAuthToken(deps.keys, refreshToken, 'refresh_token') }],
      update: { authorizationCodeId: origin },
    });
}

/**
 * A code presented again (RFC 6749 §4.1.2): Better Auth deletes the refresh tokens it issued; the
 * access tokens are cut off here, at the gateway and userinfo alike. Only a code that was redeemed
 * names a grant: made-up codes publish nothing.
 */
async function revokeIfReplayed({ keys, storage, revocations }: GrantDeps, ctx: AdapterCtx, code: string): Promise<boolean> {
  const origin = hashOAuthToken(keys, code, 'authorization_code');
  if (await ctx.context.internalAdapter.findVerificationValue(origin)) return false;
  const grantId = grantIdOf(origin);
  if (!(await storage.get(redeemedKey(grantId)))) return false;
  await storage.delete(redeemedKey(grantId));
  await revocations.publish({ grantIds: [grantId] });
  return true;
}

/**
 * RFC 7636 §4.6: a code_verifier that does not match the challenge is invalid_grant (400); Better
 * Auth would answer 401 invalid_request. The code is spent either way (single use).
 */
async function refuseWrongVerifier({ keys }: GrantDeps, ctx: AdapterCtx, code: string, verifier: unknown): Promise<void> {
  if (typeof verifier !== 'string') return; // Better Auth answers a missing verifier
  const origin = hashOAuthToken(keys, code, 'authorization_code');
  const stored = (await ctx.context.internalAdapter.findVerificationValue(origin)) as { value?: string } | null;
  const query = stored?.value ? (JSON.parse(stored.value) as { query?: { code_challenge?: string } }).query : undefined;
  if (!query?.code_challenge) return;
  if (createHash('sha256').update(verifier).digest('base64url') === query.code_challenge) return;
  await ctx.context.internalAdapter.consumeVerificationValue(origin);
  throw oauthError('BAD_REQUEST', 'invalid_grant', 'code_verifier does not match the code_challenge');
}

/**
 * A rotated (revoked) refresh token presented again by the client it was issued to: its grant ends
 * (RFC 9700 §4.14.2). The token's row when it did, else undefined.
 */
async function endIfReused(deps: GrantDeps, ctx: AdapterCtx, refreshToken: string, clientId: string): Promise<RefreshRow | undefined> {
  const row = await findRefresh(deps, ctx, refreshToken);
  if (!row?.revoked || row.clientId !== clientId) return undefined;
  await endGrant(deps, ctx, row);
  return row;
}

/** RFC 7009 §2.1 for a refresh token: its grant's access tokens end too, nothing else. */
async function revokeGrantOf({ revocations }: GrantDeps, row: RefreshRow): Promise<void> {
  if (row.authorizationCodeId) await revocations.publish({ grantIds: [grantIdOf(row.authorizationCodeId)] });
  else await revocations.publish({ userId: row.userId, ...(row.clientId ? { clientId: row.clientId } : {}) });
}

/** The grant operations, bound to their dependencies. */
export function createGrants(deps: GrantDeps) {
  return {
    findRefresh: (ctx: AdapterCtx, refreshToken: string) => findRefresh(deps, ctx, refreshToken),
    originOf: (ctx: AdapterCtx) => originOf(deps, ctx),
    accessTokenClaims,
    afterIssued: (ctx: AdapterCtx, refreshToken: string | undefined) => afterIssued(deps, ctx, refreshToken),
    revokeIfReplayed: (ctx: AdapterCtx, code: string) => revokeIfReplayed(deps, ctx, code),
    refuseWrongVerifier: (ctx: AdapterCtx, code: string, verifier: unknown) => refuseWrongVerifier(deps, ctx, code, verifier),
    endGrant: (ctx: AdapterCtx, row: RefreshRow) => endGrant(deps, ctx, row),
    endIfReused: (ctx: AdapterCtx, refreshToken: string, clientId: string) => endIfReused(deps, ctx, refreshToken, clientId),
    revokeGrantOf: (row: RefreshRow) => revokeGrantOf(deps, row),
  };
}

export type Grants = ReturnType<typeof createGrants>;
