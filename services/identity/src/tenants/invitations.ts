// An invitation is a magic link with a longer life (INVITATION_TTL_SECONDS instead of the 5 minutes of
// a sign-in link), single use like every magic link, mailed with the invitation template. It is a
// verification record in the exact form the magic-link plugin consumes, so opening it signs the
// invitee in through the plugin's own verify endpoint and lands on the dashboard.
import { randomBytes } from 'node:crypto';
import { DASHBOARD } from '@simrs/contracts/dashboard';
import { AUTH_BASE_PATH } from '@simrs/contracts/oauth';
import type { Config } from '../config.ts';
import type { DirectoryUser, Tenant } from '../directory/index.ts';
import type { Keys } from '../keys/index.ts';
import type { Mailer } from '../mail/index.ts';
import type { AuthInternals } from '../sessions/index.ts';
import { hashMagicLinkToken } from '../signin/index.ts';

export interface InvitationDeps {
  config: Pick<Config, 'PUBLIC_URL' | 'INVITATION_TTL_SECONDS'>;
  keys: Keys;
  mailer: Mailer;
  authContext: () => Promise<AuthInternals>;
}

export function createInviter(deps: InvitationDeps) {
  return async (user: DirectoryUser, tenant: Tenant, inviterName?: string): Promise<void> => {
    const token = randomBytes(24).toString('base64url');
    const ctx = await deps.authContext();
    await ctx.internalAdapter.createVerificationValue({
      identifier: hashMagicLinkToken(deps.keys, token),
      value: JSON.stringify({ email: user.email, name: user.name }),
      expiresAt: new Date(Date.now() + deps.config.INVITATION_TTL_SECONDS * 1000),
    });
    const url = new URL(`${deps.config.PUBLIC_URL}${AUTH_BASE_PATH}/magic-link/verify`);
    url.searchParams.set('token', token);
    url.searchParams.set('callbackURL', `${deps.config.PUBLIC_URL}${DASHBOARD.home}`);
    url.searchParams.set('errorCallbackURL', `${deps.config.PUBLIC_URL}${DASHBOARD.signIn}`);
    await deps.mailer.invitation({ email: user.email, name: user.name, tenantName: tenant.name }, url.toString(), user.role, inviterName);
  };
}
