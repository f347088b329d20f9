// The passkey plugin answers generate-authenticate-options with SimpleWebAuthn's shape (rpId, and
// allowCredentials/extensions left out when empty). This fills in every field of the seed's table
// that means something for an assertion, in a form standard WebAuthn clients accept
// (PublicKeyCredential.parseRequestOptionsFromJSON, @simplewebauthn/browser). `user` and
// `authenticatorSelection` belong to registration options and are left out.
import { USER_VERIFICATION } from './passkeys.ts';

export interface AuthenticationOptionsJSON {
  challenge: string;
  timeout: number;
  rpId: string;
  rp: { name: string; id: string };
  allowCredentials: { id: string; type: 'public-key'; transports: string[] }[];
  userVerification: string;
  extensions: Record<string, unknown>;
}

interface RawOptions {
  challenge?: unknown;
  timeout?: unknown;
  rpId?: unknown;
  allowCredentials?: { id: string; transports?: (string | undefined)[] }[];
  userVerification?: unknown;
  extensions?: unknown;
}

export function shapeAuthenticationOptions(raw: RawOptions, rp: { name: string; id: string }): AuthenticationOptionsJSON {
  return {
    challenge: String(raw.challenge),
    timeout: typeof raw.timeout === 'number' ? raw.timeout : 60_000,
    rpId: typeof raw.rpId === 'string' ? raw.rpId : rp.id,
    rp: { name: rp.name, id: typeof raw.rpId === 'string' ? raw.rpId : rp.id },
    // Empty means "any discoverable credential for this RP": what conditional UI needs.
    allowCredentials: (raw.allowCredentials ?? []).map((c) => ({
      id: c.id,
      type: 'public-key',
      // Stored as a comma list; a passkey saved without transports must not yield [""].
      transports: (c.transports ?? []).filter((t): t is string => typeof t === 'string' && t.length > 0),
    })),
    // The plugin asks for "preferred"; SIMRS requires it (passkeys.ts).
    userVerification: USER_VERIFICATION,
    extensions: raw.extensions && typeof raw.extensions === 'object' ? (raw.extensions as Record<string, unknown>) : {},
  };
}
