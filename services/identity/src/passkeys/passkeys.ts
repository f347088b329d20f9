// Passkeys (WebAuthn) through Better Auth's passkey plugin, for the relying party PUBLIC_URL names.
import { passkey } from '@better-auth/passkey';
import type { Config } from '../config.ts';

export function passkeyPlugin(config: Pick<Config, 'PASSKEY_RP_ID' | 'PASSKEY_RP_NAME' | 'PUBLIC_URL'>) {
  return passkey({
    rpID: config.PASSKEY_RP_ID,
    rpName: config.PASSKEY_RP_NAME,
    origin: config.PUBLIC_URL,
    // Discoverable credentials, so that conditional UI (autofill) can offer them.
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
}
