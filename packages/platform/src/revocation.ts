// How identity tells the gateway that sessions ended (sign-out, revoke-other-sessions, deactivation,
// role change): a Redis PUBLISH of ids only, never tokens or e-mail addresses. The gateway evicts what
// it cached; while its subscription is down it does not trust its cache at all.
import { z } from 'zod';

export const REVOCATION_CHANNEL = 'simrs:revocations';

export const revocationSchema = z.object({
  sessionIds: z.array(z.string()).optional(),
  userId: z.string().optional(),
});
export type Revocation = z.infer<typeof revocationSchema>;

export function encodeRevocation(revocation: Revocation): string {
  return JSON.stringify(revocationSchema.parse(revocation));
}

export function decodeRevocation(message: string): Revocation | undefined {
  try {
    const parsed = revocationSchema.safeParse(JSON.parse(message));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
