// Signing algorithms. Access tokens are EdDSA (Ed25519) unless ACCESS_TOKEN_SIGNING_ALG says otherwise
// (config.ts): only SIMRS verifies them (the gateway, and identity's introspection and userinfo), and an
// Ed25519 signature costs about a tenth of an RS256 one (0.12 against 0.95 ms of CPU here), which a
// token refresh pays every time.
// ID token signing algorithms (OpenID Connect Discovery §3, Dynamic Client Registration §2). RS256 is
// the default, as OIDC requires and as most relying-party libraries expect; EdDSA (Ed25519) and ES256
// are there for a client that registers `id_token_signed_response_alg`. Every algorithm has its own
// key in the JWKS (rotated together, oauth/signing-keys.ts). Better Auth signs every ID token with the
// primary key; for a client that chose another algorithm the ID token is signed again here with Better
// Auth's signJWT, its at_hash computed for that algorithm (OIDC Core §3.1.3.6).
import { createHash } from 'node:crypto';
import { signJWT } from 'better-auth/plugins';
import type { JwtOptions } from 'better-auth/plugins';
import { decodeJwt } from 'jose';
import { isPlainObject, oauthError } from './tokens.ts';

export const ID_TOKEN_ALGS = ['RS256', 'EdDSA', 'ES256'] as const;
export type IdTokenAlg = (typeof ID_TOKEN_ALGS)[number];
export const DEFAULT_ID_TOKEN_ALG: IdTokenAlg = 'RS256';

/** The signing keys: RS256 first (it signs ID tokens by default), then one per other algorithm (EdDSA also signs access tokens). */
export const SIGNING_KEY_CONFIGS = {
  keyPairConfig: { alg: 'RS256', modulusLength: 2048 },
  keyPairConfigs: [{ alg: 'EdDSA', crv: 'Ed25519' }, { alg: 'ES256' }],
} as const satisfies JwtOptions['jwks'];

/** Metadata key under which a client's choice is kept (the client's `metadata` column). */
const METADATA_KEY = 'id_token_signed_response_alg';

/** The algorithm a registration asks for; undefined when it names none; refused when unsupported. */
export function requestedIdTokenAlg(body: unknown): IdTokenAlg | undefined {
  const value = isPlainObject(body) ? body[METADATA_KEY] : undefined;
  if (value === undefined) return undefined;
  if (typeof value === 'string' && (ID_TOKEN_ALGS as readonly string[]).includes(value)) return value as IdTokenAlg;
  throw oauthError('BAD_REQUEST', 'invalid_client_metadata', `id_token_signed_response_alg must be one of ${ID_TOKEN_ALGS.join(', ')}`);
}

export const idTokenAlgMetadata = (alg: IdTokenAlg) => ({ [METADATA_KEY]: alg });

/** A client's algorithm, from its stored metadata. */
export function idTokenAlgOf(metadata: unknown): IdTokenAlg {
  const parsed = typeof metadata === 'string' ? (JSON.parse(metadata) as unknown) : metadata;
  const value = isPlainObject(parsed) ? parsed[METADATA_KEY] : undefined;
  return typeof value === 'string' && (ID_TOKEN_ALGS as readonly string[]).includes(value) ? (value as IdTokenAlg) : DEFAULT_ID_TOKEN_ALG;
}

/** at_hash: the left half of the access token's hash, with the hash of the signing algorithm (SHA-512 for Ed25519). */
function atHash(accessToken: string, alg: IdTokenAlg): string {
  const digest = createHash(alg === 'EdDSA' ? 'sha512' : 'sha256')
    .update(accessToken)
    .digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** The ID token Better Auth just issued, signed again with `alg` (same claims, at_hash for `alg`). */
export async function resignIdToken(
  ctx: Parameters<typeof signJWT>[0],
  jwtOptions: JwtOptions | undefined,
  idToken: string,
  accessToken: string | undefined,
  alg: IdTokenAlg,
): Promise<string> {
  const payload = decodeJwt(idToken);
  if (accessToken && payload.at_hash !== undefined) payload.at_hash = atHash(accessToken, alg);
  return signJWT(ctx, { options: jwtOptions, payload, signingAlgorithm: alg });
}
