// Passkeys (WebAuthn) through Better Auth's passkey plugin, for the relying party PUBLIC_URL names.
// User verification is required, at registration and at every sign-in: clinical records are opened
// with a passkey alone, so possession of the device is not enough, the authenticator must also have
// checked who holds it (PIN, fingerprint, face). The plugin asks for "preferred" and verifies with
// requireUserVerification off, so the options say "required" (here and in webauthn.ts) and both
// ceremonies are refused after verification when the authenticator's UV flag is not set.
import { passkey } from '@better-auth/passkey';
import { APIError } from 'better-auth/api';
import type { Config } from '../config.ts';

export const USER_VERIFICATION = 'required';

const notVerified = () =>
  new APIError('BAD_REQUEST', {
    code: 'USER_VERIFICATION_REQUIRED',
    message: 'The authenticator did not verify the user (PIN or biometrics): a passkey needs it here.',
  });

export function passkeyPlugin(config: Pick<Config, 'PASSKEY_RP_ID' | 'PASSKEY_RP_NAME' | 'PUBLIC_URL'>) {
  return passkey({
    rpID: config.PASSKEY_RP_ID,
    rpName: config.PASSKEY_RP_NAME,
    origin: config.PUBLIC_URL,
    // Discoverable credentials, so that conditional UI (autofill) can offer them.
    authenticatorSelection: { residentKey: 'required', userVerification: USER_VERIFICATION },
    registration: {
      async afterVerification({ verification }) {
        if (!verification.registrationInfo?.userVerified) throw notVerified();
        return undefined;
      },
    },
    authentication: {
      async afterVerification({ verification }) {
        if (!verification.authenticationInfo?.userVerified) throw notVerified();
      },
    },
  });
}
