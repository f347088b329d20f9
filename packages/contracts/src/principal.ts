// The principal the gateway hands to records: who calls, for which hospital, with what rights. It is a
// short-lived HS256 JWT (jose) under a secret only the gateway and records share. The gateway strips any
// incoming copy; records refuses calls without a valid one. The request id travels in its own header so
// that one minted principal can be reused for its whole lifetime.
import { jwtVerify, SignJWT } from 'jose';
import { z } from 'zod';

export const PRINCIPAL_HEADER = 'x-simrs-principal';
export const REQUEST_ID_HEADER = 'x-request-id';
const ISSUER = 'simrs-gateway';
const AUDIENCE = 'simrs-records';
export const PRINCIPAL_TTL_SECONDS = 60;

export const principalSchema = z.object({
  userId: z.string().min(1),
  tenantId: z.string().min(1),
  role: z.string().min(1),
  scopes: z.array(z.string()),
  sessionId: z.string().optional(),
  clientId: z.string().optional(),
  /** The launch context's patient (SMART), when the token carries one: `patient/` scopes reach only it. */
  patientId: z.string().optional(),
});
export type Principal = z.infer<typeof principalSchema>;

function key(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function signPrincipal(principal: Principal, secret: string, ttlSeconds = PRINCIPAL_TTL_SECONDS): Promise<string> {
  return new SignJWT({ p: principalSchema.parse(principal) })
    .setProtectedHeader({ alg: 'HS256', typ: 'simrs-principal+jwt' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key(secret));
}

/** Throws when the token is missing, forged, expired or malformed. */
export async function verifyPrincipal(token: string, secret: string): Promise<Principal> {
  const { payload } = await jwtVerify(token, key(secret), {
    algorithms: ['HS256'],
    issuer: ISSUER,
    audience: AUDIENCE,
    typ: 'simrs-principal+jwt',
  });
  return principalSchema.parse(payload.p);
}
